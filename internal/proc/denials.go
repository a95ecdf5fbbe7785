package proc

// denialsIn is a Sandbox that reads relative paths in a command's
// messages against the directory it ran in.
type denialsIn interface {
	DenialsIn(dir, output string) string
}

// DenialsIn is Denials for a command run in dir: paths its messages name
// relative to dir are explained too.
func DenialsIn(dir, output string) string {
	if s := sandbox.Load(); s != nil {
		if d, ok := (*s).(denialsIn); ok {
			return d.DenialsIn(dir, output)
		}
		return (*s).Denials(output)
	}
	return ""
}
