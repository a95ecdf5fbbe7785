package proc

// Env is a command's environment: base, then add (later entries win, as
// for exec.Cmd.Env), then redact over the whole, last, so that nothing
// a runner adds escapes the user's redaction rules (internal/redaction;
// each runner passes its own). A nil redact keeps everything.
func Env(base, add []string, redact func([]string) []string) []string {
	env := append(append(make([]string, 0, len(base)+len(add)), base...), add...)
	if redact != nil {
		env = redact(env)
	}
	return env
}
