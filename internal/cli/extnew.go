package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/lazy"
)

// extTemplates are the boilerplates of `castor extensions new <path>
// <template>`, named as Gemini CLI names its examples. Each maps a file
// (slash-separated, below the new folder) to its content; "%NAME%" stands
// for the extension's name (the folder's base name).
var extTemplates = lazy.Value[map[string]map[string]string]{New: func() map[string]map[string]string {
	m := map[string]map[string]string{
		"context": {
			"gemini-extension.json": `{
  "name": "%NAME%",
  "version": "1.0.0",
  "contextFileName": "GEMINI.md"
}
`,
			"GEMINI.md": `# %NAME%

Instructions here are added to the model's context in every session while
this extension is enabled.
`,
		},
		"custom-commands": {
			"gemini-extension.json": `{
  "name": "%NAME%",
  "version": "1.0.0"
}
`,
			"commands/fs/grep-code.toml": `description = "Search the code for a pattern and summarise the hits"
prompt = """
Summarise what these matches of "{{args}}" show:

!{grep -rn {{args}} .}
"""
`,
		},
		"exclude-tools": {
			"gemini-extension.json": `{
  "name": "%NAME%",
  "version": "1.0.0",
  "excludeTools": ["run_shell_command(rm -rf)"]
}
`,
		},
		"hooks": {
			"gemini-extension.json": `{
  "name": "%NAME%",
  "version": "1.0.0"
}
`,
			"hooks/hooks.json": `{
  "hooks": {
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "sh ${extensionPath}/scripts/on-start.sh"
          }
        ]
      }
    ]
  }
}
`,
			"scripts/on-start.sh": `#!/bin/sh
# Runs when a session starts; what it prints is shown to the user.
cat >/dev/null # the event, as JSON
echo "Session started: the %NAME% extension's hook ran."
`,
		},
		"policies": {
			"gemini-extension.json": `{
  "name": "%NAME%",
  "version": "1.0.0",
  "description": "Policy rules that come with an extension."
}
`,
			"policies/policies.toml": `# An extension's policy rules rank below the user's and the workspace's.
# Rules that allow, and yolo mode, are ignored in an extension.

# Ask before any "rm -rf", whatever the approval mode.
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm -rf"
decision = "ask_user"
priority = 100

# Keep credentials out of searches.
[[rule]]
toolName = "grep_search"
argsPattern = "(\\.env|id_rsa|passwd)"
decision = "deny"
priority = 200
denyMessage = "The %NAME% extension keeps credentials out of searches."
`,
		},
		"skills": {
			"gemini-extension.json": `{
  "name": "%NAME%",
  "version": "1.0.0"
}
`,
			"skills/greeter/SKILL.md": `---
name: greeter
description: Greets the user when asked for a greeting.
---

When the user says hello or asks for a greeting, answer:
"Hello from the %NAME% extension!"
`,
		},
		"themes-example": {
			"gemini-extension.json": `{
  "name": "%NAME%",
  "version": "1.0.0",
  "themes": [
    {
      "name": "%NAME%-green",
      "type": "custom",
      "background": { "primary": "#1a362a" },
      "text": { "primary": "#a6e3a1", "secondary": "#6e8e7a", "link": "#89e689" },
      "status": { "success": "#76c076", "warning": "#d9e689", "error": "#b34e4e" },
      "border": { "default": "#4a6c5a" },
      "ui": { "comment": "#6e8e7a" }
    }
  ]
}
`,
		},
	}
	addTemplateFiles(m)
	return m
}}

func extTemplateNames() []string {
	names := make([]string, 0, len(extTemplates.Get()))
	for n := range extTemplates.Get() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// newExtensionsNewCommand is `castor extensions new <path> [template]`.
func newExtensionsNewCommand(stdio IO) *cobra.Command {
	return &cobra.Command{
		Use:   "new <path> [template]",
		Short: "Create a new extension from a boilerplate example (templates: " + strings.Join(extTemplateNames(), ", ") + ").",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(_ *cobra.Command, args []string) error {
			template := ""
			if len(args) == 2 {
				template = args[1]
			}
			return extNew(stdio, args[0], template)
		},
	}
}

func extNew(stdio IO, path, template string) error {
	var files map[string]string
	if template != "" {
		var ok bool
		if files, ok = extTemplates.Get()[template]; !ok {
			return &usageError{msg: fmt.Sprintf("Invalid values:\n  Argument: template, Given: %q, Choices: %s", template, strings.Join(extTemplateNames(), ", "))}
		}
	}
	name := filepath.Base(filepath.Clean(path))
	if !config.ValidExtensionName(name) {
		return &usageError{msg: fmt.Sprintf("Invalid extension name %q (the folder's name): use letters, digits and dashes", name)}
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("Path already exists: %s", path)
	}
	if files == nil {
		manifest, _ := json.MarshalIndent(map[string]string{"name": name, "version": "1.0.0"}, "", "  ")
		files = map[string]string{config.ExtensionManifestName: string(manifest) + "\n"}
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return err
	}
	for rel, content := range files {
		f := filepath.Join(path, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f, []byte(strings.ReplaceAll(content, "%NAME%", name)), 0o644); err != nil {
			return err
		}
	}
	if template != "" {
		fmt.Fprintf(stdio.Stdout, "Successfully created new extension from template %q at %s.\n", template, path)
	} else {
		fmt.Fprintf(stdio.Stdout, "Successfully created new extension at %s.\n", path)
	}
	fmt.Fprintf(stdio.Stdout, "You can install this using \"castor extensions link %s\" to test it out.\n", path)
	return nil
}
