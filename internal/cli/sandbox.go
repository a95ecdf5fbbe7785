package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/proc"
	"github.com/castor-dev/castor/internal/sandbox"
)

// sandboxFlag is -s/--sandbox when given, nil when not.
func sandboxFlag(cmd *cobra.Command, f *flags) *bool {
	if !cmd.Flags().Changed("sandbox") {
		return nil
	}
	return &f.sandbox
}

// startSandbox turns the sandbox on for every command this process
// starts (internal/proc), as GEMINI_SANDBOX, the flag and tools.sandbox
// choose; byDefault turns it on when none of them says anything (yolo
// mode, the A2A and ACP servers). A sandbox asked for and unavailable is
// an error (exit 44), never an unconfined run; one on by default and
// unavailable is a warning. The notice (the active profile, or that
// warning; "" without a sandbox) is for stderr, once the caller has
// checked the rest of its command line. st are the workspace's settings
// (workspaceSettings), nil when they do not load.
func startSandbox(st *config.Settings, flag *bool, byDefault bool, wd string, include []string) (active *sandbox.Profile, notice string, err error) {
	get := func(key string) any {
		if st == nil {
			return nil
		}
		v, _ := st.Get(key)
		return v
	}
	setting := get("tools.sandbox")
	if on, _ := get("security.toolSandboxing").(bool); on && setting == nil {
		setting = true // Gemini CLI's newer switch for the same
	}
	r := sandbox.Request{
		Env:       os.Getenv("GEMINI_SANDBOX"),
		Flag:      flag,
		Setting:   setting,
		ByDefault: byDefault,
		Options: sandbox.Options{
			Name:      os.Getenv("SEATBELT_PROFILE"),
			Workspace: append([]string{wd}, include...),
			Image:     os.Getenv("GEMINI_SANDBOX_IMAGE"),
		},
	}
	if m, ok := setting.(map[string]any); ok && r.Image == "" {
		r.Image, _ = m["image"].(string) // tools.sandbox: {"command": "docker", "image": …}
	}
	if st != nil {
		more, _ := st.GetStrings("context.includeDirectories")
		r.Workspace = append(r.Workspace, more...)
		r.Extra, _ = st.GetStrings("tools.sandboxAllowedPaths")
		r.Network, _ = st.GetBool("tools.sandboxNetworkAccess")
		r.AllowGitWrites, _ = st.GetBool("tools.sandboxAllowGitWrites")
	}
	home, _ := os.UserHomeDir()
	for i, d := range r.Workspace {
		r.Workspace[i] = expandHome(d, wd, home)
	}
	for i, d := range r.Extra {
		r.Extra[i] = expandHome(d, wd, home)
	}
	sb, notice, err := sandbox.Activate(r)
	if sb == nil {
		proc.SetSandbox(nil)
		return nil, notice, err
	}
	proc.SetSandbox(sb)
	return &sb.Profile, notice, nil
}

// expandHome resolves a directory as the settings and flags write it:
// "~" for the home directory, relative to the working directory.
func expandHome(dir, wd, home string) string {
	switch {
	case dir == "~":
		return home
	case strings.HasPrefix(dir, "~/"):
		return filepath.Join(home, dir[2:])
	case !filepath.IsAbs(dir):
		return filepath.Join(wd, dir)
	}
	return dir
}

// printNotice prints a startSandbox notice, if any, on w.
func printNotice(w io.Writer, notice string) {
	if notice != "" {
		fmt.Fprintln(w, notice)
	}
}
