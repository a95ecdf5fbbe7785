package setup

import "fmt"

// ConfigError is a problem in settings or options (the CLI exits 52).
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// ResumeError is a session that cannot be resumed (the CLI exits 42).
type ResumeError struct{ Err error }

func (e *ResumeError) Error() string { return "Error resuming session: " + e.Err.Error() }
func (e *ResumeError) Unwrap() error { return e.Err }

// UntrustedError is a workspace that folder trust refuses (the CLI exits
// 55).
type UntrustedError struct{ Err error }

func (e *UntrustedError) Error() string { return e.Err.Error() }
func (e *UntrustedError) Unwrap() error { return e.Err }

func configErrorf(format string, args ...any) error {
	return &ConfigError{Err: fmt.Errorf(format, args...)}
}
