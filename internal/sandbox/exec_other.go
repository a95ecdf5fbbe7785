//go:build !unix

package sandbox

import "errors"

func execve(string, []string, []string) error { return errors.New("no exec on this system") }
