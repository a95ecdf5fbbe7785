package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/termtext"
)

// newHooksCommand is `castor hooks migrate|list`: Gemini CLI's `gemini
// hooks migrate --from-claude`, and a listing of the hooks a session in
// this folder would run (what /hooks shows inside one).
func newHooksCommand(_ context.Context, stdio IO) *cobra.Command {
	cmd := commandGroup("hooks", "Manage Gemini CLI hooks.")
	cmd.Aliases = []string{"hook"}
	var fromClaude bool
	migrate := &cobra.Command{
		Use:   "migrate [--from-claude]",
		Short: "Migrate hooks from Claude Code to Gemini CLI",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if !fromClaude {
				fmt.Fprintln(stdio.Stdout, "Usage: castor hooks migrate --from-claude\n\nMigrate hooks from Claude Code to Gemini CLI format.")
				return nil
			}
			return migrateClaudeHooks(stdio)
		},
	}
	migrate.Flags().BoolVar(&fromClaude, "from-claude", false, "Migrate from Claude Code hooks")
	list := &cobra.Command{
		Use:   "list",
		Short: "Lists the hooks a session in this folder runs.",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			text := setup.HooksListing(setup.Options{WorkDir: wd, Warn: func(w string) {
				fmt.Fprintf(stdio.Stderr, "Warning: %s\n", termtext.String(w))
			}})
			fmt.Fprintln(stdio.Stdout, termtext.String(text))
			return nil
		},
	}
	cmd.AddCommand(migrate, list)
	return cmd
}

// claudeEvents maps Claude Code's hook events to Gemini CLI's, as `gemini
// hooks migrate` does (a subagent's Stop becomes AfterAgent); other names
// are kept.
var claudeEvents = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"PreToolUse":       "BeforeTool",
		"PostToolUse":      "AfterTool",
		"UserPromptSubmit": "BeforeAgent",
		"Stop":             "AfterAgent",
		"SubAgentStop":     "AfterAgent",
		"SessionStart":     "SessionStart",
		"SessionEnd":       "SessionEnd",
		"PreCompact":       "PreCompress",
		"Notification":     "Notification",
	}
}}

// claudeTools maps Claude Code's tool names in a matcher to Gemini CLI's;
// built on first use (only `castor hooks migrate` reads it).
var claudeTools = lazy.Value[[]claudeTool]{New: func() []claudeTool {
	return []claudeTool{
		{regexp.MustCompile(`\bEdit\b`), "replace"},
		{regexp.MustCompile(`\bBash\b`), "run_shell_command"},
		{regexp.MustCompile(`\bRead\b`), "read_file"},
		{regexp.MustCompile(`\bWrite\b`), "write_file"},
		{regexp.MustCompile(`\bGlob\b`), "glob"},
		{regexp.MustCompile(`\bGrep\b`), "grep"},
		{regexp.MustCompile(`\bLS\b`), "ls"},
	}
}}

// claudeTool is one row of claudeTools.
type claudeTool struct {
	re   *regexp.Regexp
	name string
}

// migrateClaudeHooks reads the hooks of .claude/settings.local.json (or,
// without it, .claude/settings.json) in the current folder and writes
// them, in Gemini CLI's names, over the hooks in effect into the
// workspace's .gemini/settings.json, as Gemini CLI 0.61 does.
func migrateClaudeHooks(stdio IO) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	var src string
	for _, name := range []string{"settings.local.json", "settings.json"} {
		p := filepath.Join(wd, ".claude", name)
		if _, err := os.Stat(p); err == nil {
			src = p
			break
		}
	}
	if src == "" {
		return errors.New("No Claude Code settings found in .claude directory. Expected settings.json or settings.local.json")
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	v, err := config.ParseJSONC(data)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	fmt.Fprintf(stdio.Stdout, "Found Claude Code settings in: %s\n", src)
	root, _ := v.(map[string]any)
	section, _ := root["hooks"].(map[string]any)
	migrated := map[string]any{}
	for event, defs := range section {
		list, ok := defs.([]any)
		if !ok {
			continue
		}
		name := event
		if g, ok := claudeEvents.Get()[event]; ok {
			name = g
		}
		out := make([]any, 0, len(list))
		for _, d := range list {
			out = append(out, migrateClaudeDefinition(d))
		}
		migrated[name] = out
	}
	if len(migrated) == 0 {
		fmt.Fprintln(stdio.Stdout, "No hooks found in Claude Code settings to migrate.")
		return nil
	}
	fmt.Fprintf(stdio.Stdout, "Migrating %d hook event(s)...\n", len(migrated))
	st, err := config.Load(config.LoadOptions{Workspace: wd})
	if err != nil {
		return err
	}
	merged := map[string]any{}
	if cur, ok := st.Get("hooks"); ok {
		if m, ok := cur.(map[string]any); ok {
			for k, v := range m {
				merged[k] = v
			}
		}
	}
	for k, v := range migrated {
		merged[k] = v
	}
	path := config.WorkspaceSettingsPath(wd)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := config.UpdateFile(path, "hooks", merged); err != nil {
		return fmt.Errorf("Error saving migrated hooks: %w", err)
	}
	fmt.Fprintln(stdio.Stdout, "✓ Hooks successfully migrated to .gemini/settings.json")
	fmt.Fprintln(stdio.Stdout, "\nMigration complete! Please review the migrated hooks in .gemini/settings.json")
	return nil
}

// migrateClaudeDefinition converts one matcher group: the matcher's tool
// names, the sequential flag and each command hook (command, type and
// timeout, $CLAUDE_PROJECT_DIR read as $GEMINI_PROJECT_DIR).
func migrateClaudeDefinition(d any) any {
	def, ok := d.(map[string]any)
	if !ok {
		return d
	}
	out := map[string]any{}
	if m, ok := def["matcher"].(string); ok {
		for _, t := range claudeTools.Get() {
			m = t.re.ReplaceAllString(m, t.name)
		}
		out["matcher"] = m
	}
	if s, ok := def["sequential"]; ok {
		out["sequential"] = s
	}
	if hs, ok := def["hooks"].([]any); ok {
		list := make([]any, 0, len(hs))
		for _, h := range hs {
			hm, ok := h.(map[string]any)
			if !ok {
				list = append(list, h)
				continue
			}
			m := map[string]any{}
			if c, ok := hm["command"]; ok {
				if s, ok := c.(string); ok {
					c = strings.ReplaceAll(s, "$CLAUDE_PROJECT_DIR", "$GEMINI_PROJECT_DIR")
				}
				m["command"] = c
			}
			if hm["type"] == "command" {
				m["type"] = "command"
			}
			if t, ok := hm["timeout"].(float64); ok {
				m["timeout"] = t
			}
			list = append(list, m)
		}
		out["hooks"] = list
	}
	return out
}
