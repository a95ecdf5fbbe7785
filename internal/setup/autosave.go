package setup

import (
	"fmt"
	"path/filepath"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/policy"
)

// autoSave is where "allow always and save" answers go: with
// security.enablePermanentToolApproval on, Gemini CLI's
// ~/.gemini/policies/auto-saved.toml (written there even when --policy
// or policyPaths name other files, as Gemini CLI does), and a failure to
// write it is a warning: the answer then holds for the session only.
type autoSave struct {
	path string
	warn func(string)
}

func autoSaveFor(st *config.Settings, home config.Home, warn func(string)) autoSave {
	if on, _ := st.GetBool("security.enablePermanentToolApproval"); !on {
		return autoSave{}
	}
	return autoSave{path: filepath.Join(home.Dir, "policies", policy.AutoSavedFile), warn: warn}
}

// onSave reports a failed write.
func (s autoSave) onSave(path string, err error) {
	if err != nil && s.warn != nil {
		s.warn(fmt.Sprintf("%v. The answer holds for this session only.", err))
	}
}
