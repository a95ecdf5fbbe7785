package setup_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/npmtest"
	"github.com/castor-dev/castor/internal/setup"
)

func TestCommandsIncludeMCPPrompts(t *testing.T) {
	node, everything := npmtest.Server(t, "server-everything")
	home, ws := t.TempDir(), t.TempDir()
	settings, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": node, "args": []string{everything, "stdio"}},
	}})
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), settings, 0o644)
	env := map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}

	reg, stop := setup.Commands(context.Background(), setup.Options{
		WorkDir: ws, HomeDir: home, Env: config.EnvMap(env),
	})
	defer stop()
	if n := len(reg.Commands()); n <= len(command.Builtins()) {
		t.Fatalf("%d commands: the MCP prompts are missing", n)
	}
	var prompt *command.Command
	for _, c := range reg.Commands() {
		if c.Streaming && len(c.SubCommands) == 1 && c.SubCommands[0].Name == "help" {
			prompt = c
		}
	}
	if prompt == nil {
		t.Fatal("no prompt command")
	}
	res, err := reg.RunLine(context.Background(), prompt.Name+" help", command.Env{})
	if err != nil || res.Kind != command.ResultMessage {
		t.Errorf("help of %s: %+v, %v", prompt.Name, res, err)
	}
}
