//go:build !unix

package setup

// secureSystemDir accepts the admin policy folder: Castor does not check
// Windows ACLs as Gemini CLI does.
func secureSystemDir(dir string, warn func(string)) bool { return true }
