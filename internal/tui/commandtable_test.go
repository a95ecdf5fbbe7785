package tui

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/command"
)

// helpNames are the command names /help prints.
func helpNames(m *model, log *[]string) []string {
	*log = (*log)[:0]
	m.cmdHelp(nil)
	var names []string
	for _, line := range strings.Split(printed(log), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "/") {
			names = append(names, strings.TrimPrefix(f[0], "/"))
		}
	}
	return names
}

// completionNames are the names "/" completes to.
func completionNames(m *model) []string {
	var names []string
	for _, it := range m.slashCompletion("").items {
		names = append(names, it.value)
	}
	return names
}

// TestOneCommandTable: the terminal keeps no command table of its own.
// Every command it handles is in the registry, /help and completion list
// what the registry offers the terminal, and what the registry holds for
// the terminal runs, whoever registered it; a command for other faces
// only is not offered.
func TestOneCommandTable(t *testing.T) {
	m, log := newTestModel(t)

	// Before the session: the terminal's commands, from the registry.
	boot := m.commands()
	var want []string
	for _, c := range boot.Commands() {
		if c.Faces != command.FaceTerminal || c.Execute == nil {
			t.Errorf("/%s: faces %v, execute %v; want terminal-only with an action", c.Name, c.Faces, c.Execute != nil)
		}
		want = append(want, c.Name)
	}
	if len(want) != 31 {
		t.Errorf("%d terminal commands, want 31: %v", len(want), want)
	}
	if got := helpNames(m, log); !slices.Equal(got, want) {
		t.Errorf("/help before the session lists %v, want %v", got, want)
	}

	// With the session: its registry holds them beside the shared ones.
	a := withSession(t, m)
	a.Commands = command.DefaultRegistry()
	reg := m.commands()
	if reg != a.Commands {
		t.Fatal("the terminal does not read the session's registry")
	}
	for _, name := range want {
		if c, _, _ := reg.Lookup(name); c == nil || c.Faces != command.FaceTerminal {
			t.Errorf("/%s is not in the session's registry as a terminal command", name)
		}
	}
	ran := ""
	reg.Register(&command.Command{Name: "ping", Description: "Answer pong.", Faces: command.FaceTerminal,
		Execute: func(_ context.Context, inv *command.Invocation) (*command.Result, error) {
			ran = strings.Join(inv.Args, " ")
			return command.Info("pong"), nil
		}})
	reg.Register(&command.Command{Name: "acponly", Description: "For ACP clients.", Faces: command.FaceACP,
		Execute: func(context.Context, *command.Invocation) (*command.Result, error) { return command.Info("no"), nil }})
	var offered []string
	for _, c := range reg.CommandsFor(command.FaceTerminal) {
		offered = append(offered, c.Name)
	}
	if !slices.Contains(offered, "ping") || slices.Contains(offered, "acponly") || !slices.Contains(offered, "memory") {
		t.Fatalf("the registry offers the terminal %v", offered)
	}
	if got := helpNames(m, log); !slices.Equal(got, offered) {
		t.Errorf("/help lists %v, want the registry's %v", got, offered)
	}
	if got := completionNames(m); !slices.Equal(got, offered) {
		t.Errorf("completion offers %v, want the registry's %v", got, offered)
	}

	*log = (*log)[:0]
	m.submit("/ping a b", false)
	if ran != "a b" || !strings.Contains(printed(log), "pong") {
		t.Errorf("/ping ran with %q and printed:\n%s", ran, printed(log))
	}
	m.submit("/acponly", false)
	if !strings.Contains(printed(log), "Unknown command: /acponly") {
		t.Errorf("a command for ACP only ran in the terminal:\n%s", printed(log))
	}

	// A same-named command registered later (a custom /about) gives way
	// to the terminal's, as before.
	reg.Register(&command.Command{Name: "about", Description: "A custom about.",
		Execute: func(context.Context, *command.Invocation) (*command.Result, error) {
			return command.Info("custom"), nil
		}})
	*log = (*log)[:0]
	m.submit("/about", false)
	if got := printed(log); strings.Contains(got, "custom") || !strings.Contains(got, "Castor") {
		t.Errorf("/about after a custom /about:\n%s", got)
	}
}
