package castor

import (
	"os"
	"strings"

	"github.com/castor-dev/castor/config"
)

// memory is the GEMINI.md context of a session: the global file goes in
// the system instruction, project files in the environment context.
type memory struct {
	global  string
	project string
}

func loadMemory(o Options, st *config.Settings, env *environment) (memory, error) {
	var m memory
	if o.IgnoreSettings {
		return m, nil
	}
	data, err := os.ReadFile(env.home.MemoryPath(memoryFileName(st)))
	if err == nil {
		m.global = strings.TrimSpace(string(data))
	}
	return m, nil
}
