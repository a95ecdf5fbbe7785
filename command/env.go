package command

import (
	"encoding/json"

	"github.com/castor-dev/castor/config"
)

// EnvAt is the Env of a face with no session of its own behind it (a
// server's command routes): workspace ws, home directory home ("" for the
// usual one), and the workspace's trust as its settings decide. An empty
// ws, or settings that do not load, leave the workspace untrusted.
func EnvAt(ws, home string) Env {
	env := Env{Workspace: ws, HomeDir: home}
	if ws != "" {
		if st, err := config.Load(config.LoadOptions{Workspace: ws, HomeDir: home}); err == nil {
			env.Trusted = st.Trust.IsTrusted() || !st.Trust.FolderTrustEnabled
		}
	}
	return env
}

// Text is the result as a face shows it in words: the message (or
// prompt), or the data itself when it is a string, else as indented JSON.
// A nil result is "".
func (r *Result) Text() string {
	if r == nil {
		return ""
	}
	if r.Kind != ResultData {
		return r.Content
	}
	if s, ok := r.Data.(string); ok {
		return s
	}
	if b, err := json.MarshalIndent(r.Data, "", "  "); err == nil {
		return string(b)
	}
	return r.Content
}
