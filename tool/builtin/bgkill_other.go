//go:build !unix

package builtin

// ownKills leaves every line to the shell: only Unix sandboxes keep a
// command from signalling the session's other processes.
func (b *Background) ownKills(string) (output string, status int, rest string, ok bool) {
	return "", 0, "", false
}
