package command

import (
	"fmt"
	"strings"
	"testing"
)

// entry is a listing built by Tree in the tests: "name[subs...]".
func entry(c *Command, name string, subs []string) string {
	return name + "[" + strings.Join(subs, ",") + "]"
}

func TestTree(t *testing.T) {
	memory := &Command{Name: "memory", SubCommands: []*Command{{Name: "show"}, {Name: "add"}}}
	for _, tt := range []struct {
		name string
		cmds []*Command
		full bool
		want string
	}{
		{"none", nil, false, ""},
		{"own names", []*Command{memory, {Name: "about"}}, false, "memory[show[],add[]] about[]"},
		{"full names", []*Command{memory}, true, "memory[memory show[],memory add[]]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Tree(tt.cmds, tt.full, entry)
			if got == nil {
				t.Fatal("Tree returned nil, want an empty listing")
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("Tree = %q, want %q", s, tt.want)
			}
		})
	}
}

// A command that contains itself is listed eight levels deep, not
// forever.
func TestTreeDepth(t *testing.T) {
	loop := &Command{Name: "loop"}
	loop.SubCommands = []*Command{loop}
	depth := 0
	Tree([]*Command{loop}, false, func(c *Command, name string, subs []int) int {
		if len(subs) == 0 {
			return 0
		}
		depth = max(depth, subs[0]+1)
		return subs[0] + 1
	})
	if depth != maxTreeDepth {
		t.Errorf("listed %d levels below the top, want %d", depth, maxTreeDepth)
	}
	if got := fmt.Sprint(Tree([]*Command{{Name: "a", SubCommands: []*Command{}}}, true, entry)); got != "[a[]]" {
		t.Errorf("a command with no sub-commands: %s", got)
	}
}
