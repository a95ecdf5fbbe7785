package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Limits on what one edit's note carries, so that a file in ruins does
// not flood the model's context.
const (
	maxErrors   = 20
	maxWarnings = 5
)

// Touched starts path's server in the background, if it has one, and
// gives it the file: the model read it, and likely edits it next.
func (m *Manager) Touched(path string) {
	if !m.Handles(path) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		if c, err := m.Client(ctx, path); err == nil {
			_, _, _ = c.SyncFile(path)
		}
	}()
}

// BeforeEdit records what the server reports for path with its content
// before the edit, old (nil: a new file), so that AfterEdit tells only
// what the edit brought. It starts the file's server on its first file
// and waits at most the manager's wait.
func (m *Manager) BeforeEdit(ctx context.Context, path string, old *string) {
	if !m.Handles(path) {
		return
	}
	deadline := time.Now().Add(m.opts.Wait)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	b := baseline{deadline: deadline}
	defer func() {
		m.mu.Lock()
		m.baselines[path] = b
		m.mu.Unlock()
	}()
	if old == nil {
		b.known = true // a new file has no problems yet
		return
	}
	c, err := m.Client(ctx, path)
	if err != nil {
		return
	}
	uri, v, err := c.Sync(path, *old)
	if err != nil {
		return
	}
	b.diags, b.known = c.WaitDiagnostics(ctx, uri, v)
}

// AfterEdit gives the server path's new content and returns, as a note
// for the model, the errors (and a few warnings) it reports that were
// not there before the edit; "" when there are none or the server did
// not answer within the wait.
func (m *Manager) AfterEdit(ctx context.Context, path, content string) string {
	if !m.Handles(path) {
		return ""
	}
	m.mu.Lock()
	before := m.baselines[path]
	delete(m.baselines, path)
	m.mu.Unlock()
	// One wait per edit: what BeforeEdit left of it, but never less than
	// a tenth of it, so that a server still loading its workspace costs
	// each edit about the wait, not twice.
	deadline := before.deadline
	if least := time.Now().Add(m.opts.Wait / 10); deadline.Before(least) {
		deadline = least
	}
	if before.deadline.IsZero() {
		deadline = time.Now().Add(m.opts.Wait)
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	c, err := m.Client(ctx, path)
	if err != nil {
		return ""
	}
	uri, v, err := c.Sync(path, content)
	if err != nil {
		return ""
	}
	after, ok := c.WaitDiagnostics(ctx, uri, v)
	if !ok {
		return ""
	}
	if before.known {
		after = subtract(after, before.diags)
	}
	cfg, _ := m.configFor(path)
	return formatNote(cfg.Name, m.rel(path), after)
}

// rel is path relative to the workspace when inside it.
func (m *Manager) rel(path string) string {
	if r, err := filepath.Rel(m.opts.Workspace, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}

// diagKey identifies a diagnostic apart from where it is, which an edit
// above it moves.
func diagKey(d Diagnostic) string {
	return fmt.Sprintf("%d\x00%s\x00%s\x00%s", d.Severity, d.Source, d.Code, d.Message)
}

// subtract is after less one of each diagnostic in before.
func subtract(after, before []Diagnostic) []Diagnostic {
	seen := map[string]int{}
	for _, d := range before {
		seen[diagKey(d)]++
	}
	var out []Diagnostic
	for _, d := range after {
		k := diagKey(d)
		if seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, d)
	}
	return out
}

// formatNote words the new diagnostics of one file for the model: one
// line each, "file:line:column: severity: message (source)", errors first.
func formatNote(server, rel string, diags []Diagnostic) string {
	var errs, warns []Diagnostic
	for _, d := range diags {
		switch d.Severity {
		case SeverityError, 0:
			errs = append(errs, d)
		case SeverityWarning:
			warns = append(warns, d)
		}
	}
	if len(errs) == 0 && len(warns) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The language server (%s) reports new problems in %s after this edit:", server, rel)
	list := func(ds []Diagnostic, limit int, what string) {
		for i, d := range ds {
			if i == limit {
				fmt.Fprintf(&b, "\n… and %d more %s", len(ds)-limit, what)
				break
			}
			b.WriteString("\n" + FormatDiagnostic(rel, d))
		}
	}
	list(errs, maxErrors, "errors")
	list(warns, maxWarnings, "warnings")
	return b.String()
}

// FormatDiagnostic is one diagnostic on one line, positions one-based.
func FormatDiagnostic(rel string, d Diagnostic) string {
	msg := strings.Join(strings.Fields(d.Message), " ")
	s := fmt.Sprintf("%s:%d:%d: %s: %s", rel, d.Range.Start.Line+1, d.Range.Start.Character+1, d.Severity, msg)
	if d.Source != "" {
		s += " (" + d.Source + ")"
	}
	return s
}
