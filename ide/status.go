package ide

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is what Diagnose found, for `castor ide status`.
type Report struct {
	// Discovery is what discovery found (also on failure).
	Discovery *Discovery `json:"-"`
	// WorkDir is the directory checked against the IDE's workspace.
	WorkDir string `json:"workDir"`
	// Files describes every discovery file found.
	Files []FileReport `json:"files"`
	// Connected is set when the connection worked; Status then describes
	// it and Context is the editor context received.
	Connected bool     `json:"connected"`
	Status    *Status  `json:"status,omitempty"`
	Context   *Context `json:"context,omitempty"`
	// Problem and Error say why it did not.
	Problem Problem `json:"problem,omitempty"`
	Error   string  `json:"error,omitempty"`
}

// FileReport describes one discovery file.
type FileReport struct {
	// Name is the file's name, PID the IDE process in it; Port and
	// Workspace are its content (zero when unreadable).
	Name      string `json:"name"`
	PID       int    `json:"pid"`
	Port      int    `json:"port,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	// Note says whether the file was selected or why it was not usable.
	Note     string `json:"note"`
	Selected bool   `json:"selected,omitempty"`
}

// Diagnose looks for the companion as Connect does, connects, waits
// briefly for the editor context, and reports every step.
func Diagnose(ctx context.Context, o Options) *Report {
	if o.InitialContextWait == 0 {
		o.InitialContextWait = time.Second
	}
	r := &Report{WorkDir: o.workDir()}
	c, err := Connect(ctx, o)
	var ce *ConnectError
	switch {
	case err == nil:
		defer c.Close()
		st := c.Status()
		r.Connected, r.Status, r.Context = true, &st, c.Context()
		r.Discovery = c.lastDiscovery()
	case errors.As(err, &ce):
		r.Problem, r.Error, r.Discovery = ce.Problem, ce.Error(), ce.Discovery
	default:
		r.Error = err.Error()
	}
	if r.Discovery == nil {
		r.Discovery = o.discover()
	}
	for _, cand := range r.Discovery.Candidates {
		fr := FileReport{Name: cand.Name, PID: cand.PID, Selected: cand == r.Discovery.Selected}
		switch {
		case cand.File == nil:
			fr.Note = "unusable: " + cand.Err.Error()
		default:
			fr.Port = int(cand.File.Port)
			if cand.File.WorkspacePath != nil {
				fr.Workspace = *cand.File.WorkspacePath
			}
			fr.Note = "workspace matches"
			var we *WorkspaceError
			if errors.As(cand.WorkspaceError(r.WorkDir), &we) {
				fr.Note = map[string]string{"missing": "no workspace in the file", "empty": "no folder open in the IDE", "mismatch": "other workspace"}[we.Kind]
			}
			if cand.PID == r.Discovery.IDEPID {
				fr.Note += ", this IDE"
			}
		}
		if fr.Selected {
			fr.Note += " (selected)"
		}
		r.Files = append(r.Files, fr)
	}
	return r
}

// lastDiscovery returns the discovery of the current connection.
func (c *Client) lastDiscovery() *Discovery {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return nil
	}
	return c.conn.disc
}

// Write prints the report for people.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	d := r.Discovery
	fmt.Fprintf(&b, "Working directory: %s\n", r.WorkDir)
	if d != nil {
		fmt.Fprintf(&b, "IDE process: %d (from %s)\n", d.IDEPID, d.PIDSource)
		fmt.Fprintf(&b, "Discovery directory: %s\n", d.Dir)
		if len(r.Files) == 0 {
			b.WriteString("Discovery files: none\n")
		} else {
			b.WriteString("Discovery files:\n")
			tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
			for _, f := range r.Files {
				port := "-"
				if f.Port != 0 {
					port = fmt.Sprint(f.Port)
				}
				ws := f.Workspace
				if ws == "" {
					ws = "-"
				}
				fmt.Fprintf(tw, "  %s\tport %s\tworkspace %s\t%s\n", f.Name, port, ws, f.Note)
			}
			tw.Flush()
		}
		if d.EnvPort != 0 {
			fmt.Fprintf(&b, "%s: %d\n", EnvServerPort, d.EnvPort)
		}
	}
	if !r.Connected {
		fmt.Fprintf(&b, "Not connected: %s\n", r.Error)
		_, err := io.WriteString(w, b.String())
		return err
	}
	st := r.Status
	fmt.Fprintf(&b, "Connected to %s at %s\n", st.IDE.DisplayName, st.URL)
	server := st.Server
	if server == "" {
		server = "unnamed server"
	}
	fmt.Fprintf(&b, "Companion: %s, MCP %s\n", server, st.ProtocolVersion)
	if st.Diffing {
		b.WriteString("Diffs: shown in the IDE (openDiff, closeDiff)\n")
	} else {
		fmt.Fprintf(&b, "Diffs: shown in the terminal (the companion offers %s)\n", orNone(st.Tools))
	}
	files := r.Context.Files()
	switch {
	case r.Context == nil:
		b.WriteString("Editor context: none received yet\n")
	case len(files) == 0:
		b.WriteString("Editor context: no open files\n")
	default:
		fmt.Fprintf(&b, "Editor context: %d open %s\n", len(files), plural(len(files), "file", "files"))
		for _, f := range files {
			line := "  " + f.Path
			if f.IsActive {
				line += " (active"
				if f.Cursor != nil {
					line += fmt.Sprintf(", line %d, character %d", f.Cursor.Line, f.Cursor.Character)
				}
				if f.SelectedText != "" {
					line += fmt.Sprintf(", %d characters selected", len([]rune(f.SelectedText)))
				}
				line += ")"
			}
			b.WriteString(line + "\n")
		}
	}
	if t := r.Context.Trusted(); t != nil {
		fmt.Fprintf(&b, "Workspace trusted by the IDE: %v\n", *t)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(tools []string) string {
	if len(tools) == 0 {
		return "no tools"
	}
	return strings.Join(tools, ", ")
}

// Summary describes the live connection in a few lines, for a session's
// /ide status: the IDE, where diffs show and the open files when
// connected; why not, when the companion went away (the client keeps
// looking for it). It reads the state now, not the state at Connect.
func (c *Client) Summary() string {
	st := c.Status()
	if st.State != Connected {
		detail := st.Detail
		if detail == "" {
			detail = "not connected"
		}
		return fmt.Sprintf("Disconnected from %s: %s. Castor keeps looking for the companion; `castor ide status` in this terminal explains what it finds.", orIDE(st.IDE), detail)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Connected to %s", orIDE(st.IDE))
	if st.Diffing {
		b.WriteString("; edits are shown as diffs in the IDE.")
	} else {
		b.WriteString("; the companion shows no diffs, edits are confirmed in the terminal.")
	}
	files := c.Context().Files()
	if len(files) == 0 {
		b.WriteString("\nNo open files.")
	} else {
		b.WriteString("\nOpen files:")
		for _, f := range files {
			b.WriteString("\n  " + f.Path)
			if f.IsActive {
				b.WriteString(" (active)")
			}
		}
	}
	return b.String()
}

func orIDE(info IDEInfo) string {
	if info.DisplayName != "" {
		return info.DisplayName
	}
	return "the IDE"
}
