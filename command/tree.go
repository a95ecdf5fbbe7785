package command

import "strings"

// maxTreeDepth bounds how deep Tree walks: a face's listing stops there
// even if a registry nests deeper (or, built by hand, loops).
const maxTreeDepth = 8

// Tree converts cmds, with their sub-commands, into a face's own listing
// type: mk builds one entry from a command, the name it is listed under
// and its already converted sub-commands (empty, never nil, past eight
// levels). The name is the command's own, or with full its whole path
// ("memory show"), as Gemini CLI's REST listing names sub-commands.
func Tree[T any](cmds []*Command, full bool, mk func(c *Command, name string, subs []T) T) []T {
	return tree(cmds, "", full, 0, mk)
}

func tree[T any](cmds []*Command, parent string, full bool, depth int, mk func(*Command, string, []T) T) []T {
	out := []T{}
	for _, c := range cmds {
		name := c.Name
		if full {
			name = strings.TrimSpace(parent + " " + c.Name)
		}
		subs := []T{}
		if depth < maxTreeDepth {
			subs = tree(c.SubCommands, name, full, depth+1, mk)
		}
		out = append(out, mk(c, name, subs))
	}
	return out
}
