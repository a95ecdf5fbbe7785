package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/internal/hooks"
)

// trustedHooksFile is Gemini CLI's record of the project hooks the user
// was told about, per project: {"<project root>": ["<name>:<command>"]}.
// Castor reads and writes the same file, so a hook either of them
// reported is not reported again by the other.
const trustedHooksFile = "trusted_hooks.json"

// noticeProjectHooks warns, as Gemini CLI 0.61 does once per new hook,
// about the project-level hooks of a trusted workspace that the user has
// not been told about yet, then records them in ~/.gemini's
// trusted_hooks.json so that the notice is not repeated.
func noticeProjectHooks(geminiDir, projectRoot string, list []hooks.Hook, warn func(string)) {
	var project []hooks.Hook
	for _, h := range list {
		if h.Source == hooks.SourceProject && h.Func == nil {
			project = append(project, h)
		}
	}
	if len(project) == 0 {
		return
	}
	path := filepath.Join(geminiDir, trustedHooksFile)
	record := map[string][]string{}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &record); err != nil {
			warn(fmt.Sprintf("%s: %v; project hooks are reported again", path, err))
			record = map[string][]string{}
		}
	case !errors.Is(err, os.ErrNotExist):
		warn(fmt.Sprintf("%s: %v", path, err))
		return
	}
	known := record[projectRoot]
	var untrusted []string
	for _, h := range project {
		key := h.Name + ":" + h.Command
		if slices.Contains(known, key) {
			continue
		}
		known = append(known, key)
		if id := h.ID(); !slices.Contains(untrusted, id) {
			untrusted = append(untrusted, id)
		}
	}
	if len(untrusted) == 0 {
		return
	}
	// Faces say "Warning:" themselves; the rest is Gemini CLI's text.
	warn("The following project-level hooks have been detected in this workspace:\n  - " + strings.Join(untrusted, "\n  - ") +
		"\n\nThese hooks will be executed. If you did not configure these hooks or do not trust this project,\nplease review the project settings (.gemini/settings.json) and remove them.")
	record[projectRoot] = known
	// Written as Gemini CLI's JSON.stringify writes it (">" unescaped).
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err = enc.Encode(record)
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if err == nil {
		err = os.MkdirAll(geminiDir, 0o700)
	}
	if err == nil {
		err = fsutil.WriteFileAtomic(path, out, 0o600)
	}
	if err != nil {
		warn(fmt.Sprintf("%s: %v; these hooks will be reported again", path, err))
	}
}
