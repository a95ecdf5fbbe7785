package setup

import (
	"sync"

	"github.com/castor-dev/castor/config"
)

// warnedSettings holds the ignored-setting warnings already given in this
// process: a server assembling a session per task, or a TUI assembling
// again, says each once.
var warnedSettings sync.Map

// warnIgnoredSettings says, through o.Warn, which keys of the settings
// files and of the active extensions' manifests Castor does not honour,
// one line per key naming the file (see config.IgnoredSetting).
func warnIgnoredSettings(o Options, a *Agent) {
	if o.IgnoreSettings {
		return
	}
	lines := a.Settings.IgnoredSettings()
	for _, e := range a.Extensions {
		lines = append(lines, config.IgnoredExtensionKeys(e)...)
	}
	for _, s := range lines {
		line := s.String()
		if _, said := warnedSettings.LoadOrStore(line, true); !said {
			o.Warn(line)
		}
	}
}
