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
)

// extTemplates are the boilerplates of `castor extensions new <path>
// <template>`, named as Gemini CLI names its examples. Each maps a file
// (slash-separated, below the new folder) to its content; "%NAME%" stands
// for the extension's name (the folder's base name).
var extTemplates = map[string]map[string]string{
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
}

func extTemplateNames() []string {
	names := make([]string, 0, len(extTemplates))
	for n := range extTemplates {
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
		if files, ok = extTemplates[template]; !ok {
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
