package setup

import (
	"sync"

	"github.com/castor-dev/castor/tool"
)

// mcpSync keeps the session's registry in step with the MCP servers'
// tools: after a server's tools/list_changed, new tools are registered,
// gone ones removed and changed ones re-declared, so the next model call
// declares the current set (as Gemini CLI 0.61 does).
type mcpSync struct {
	registry *tool.Registry

	mu    sync.Mutex
	names map[string]bool // MCP tools currently registered
}

// update makes the registry's MCP tools exactly tools.
func (s *mcpSync) update(tools []tool.Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := make(map[string]bool, len(tools))
	for _, t := range tools {
		next[t.Name()] = true
		// Register replaces a tool of the same name and refreshes its
		// declaration, which picks up a changed schema or description.
		s.registry.Register(t)
	}
	for n := range s.names {
		if !next[n] {
			s.registry.Unregister(n)
		}
	}
	s.names = next
}
