package acp

import (
	"testing"

	"github.com/castor-dev/castor/command"
)

// TestAvailableCommandsForACP: a command only the terminal offers (its
// /clear) is not announced to an ACP client; shared ones are.
func TestAvailableCommandsForACP(t *testing.T) {
	reg := command.DefaultRegistry()
	reg.Register(&command.Command{Name: "clear", Description: "Clear the screen.", Faces: command.FaceTerminal})
	var names []string
	for _, c := range availableCommands(reg) {
		names = append(names, c.Name)
	}
	for _, want := range []string{"memory", "init"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("available commands %v lack %s", names, want)
		}
	}
	for _, n := range names {
		if n == "clear" {
			t.Errorf("available commands %v offer the terminal's /clear", names)
		}
	}
}
