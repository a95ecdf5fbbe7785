package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
)

// Request is a run's sandbox as its environment, flags and settings ask
// for it.
type Request struct {
	// Env is GEMINI_SANDBOX, Flag -s/--sandbox (nil when not given),
	// Setting tools.sandbox, as Choose reads them.
	Env     string
	Flag    *bool
	Setting any
	// ByDefault turns the sandbox on when none of them says anything
	// (yolo mode, the servers, subagents).
	ByDefault bool
	// Code is the sandbox a program asked for in code
	// (castor.WithSandbox): "true" for the platform's method, or a
	// method's name. It goes before the rest.
	Code string
	// Options are the profile's: its name (SEATBELT_PROFILE), workspace,
	// allowed paths, network and .git.
	Options
}

// Activate makes the sandbox r asks for: nil with no sandbox; an error
// (an *UnavailableError) when one was asked for and cannot be had,
// never an unconfined run; a warning as the notice when one on by
// default cannot be had. The notice is for the user at start ("" for
// nothing to say).
func Activate(r Request) (*Sandbox, string, error) {
	var choice Choice
	var err error
	if r.Code != "" {
		choice, err = chooseValue(r.Code, "castor.WithSandbox")
	} else {
		choice, err = Choose(r.Env, r.Flag, r.Setting, r.ByDefault)
	}
	if err != nil || choice.Method == "" {
		return nil, "", err
	}
	o := r.Options
	o.Method = choice.Method
	if choice.Auto && preferBwrap(o) {
		// Landlock keeps .git read-only only by fixing the workspace's
		// own entries; bubblewrap binds it read-only over a writable
		// workspace. Landlock when bubblewrap cannot start here.
		b := o
		b.Method = Bwrap
		if p, err := Build(b); err == nil {
			if s, err := New(p); err == nil {
				return s, "Sandbox: " + p.Describe(), nil
			}
		}
	}
	p, err := Build(o)
	if err == nil {
		var s *Sandbox
		if s, err = New(p); err == nil {
			return s, "Sandbox: " + p.Describe(), nil
		}
	}
	if choice.Asked {
		var ue *UnavailableError
		if errors.As(err, &ue) {
			return nil, "", err
		}
		return nil, "", &UnavailableError{Method: choice.Method, Cause: err}
	}
	return nil, fmt.Sprintf("Warning: %v; tools run without a sandbox (--sandbox=false or tools.sandbox: false silences this).", err), nil
}

// preferBwrap reports whether bubblewrap should confine o's commands
// rather than Landlock: on Linux, with bwrap installed, for a workspace
// holding .git or .gemini.
func preferBwrap(o Options) bool {
	if runtime.GOOS != "linux" || o.Method != Landlock {
		return false
	}
	// The workspace first: two lstats, where looking for bwrap is a stat
	// of every PATH directory.
	protects := slices.ContainsFunc(o.Workspace, func(w string) bool {
		return slices.ContainsFunc(Protected, func(name string) bool {
			if name == ".git" && o.AllowGitWrites {
				return false
			}
			_, err := os.Lstat(filepath.Join(w, name))
			return err == nil
		})
	})
	if !protects {
		return false
	}
	_, err := exec.LookPath("bwrap")
	return err == nil
}
