package setup

import (
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/hooks"
)

// HooksListing is what /hooks shows, for the workspace of o without a
// session (`castor hooks list`): the hooks of the settings files in
// effect and of the active extensions, by event in the order they run.
// Problems with them go to o.Warn.
func HooksListing(o Options) string {
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	env := NewEnv(o.Env)
	st, err := config.Load(config.LoadOptions{Workspace: o.WorkDir, Env: env.Lookup, HomeDir: o.HomeDir})
	if err != nil {
		o.Warn(err.Error())
		return hooksMessage(nil).Content
	}
	home := config.ResolveHome(env.Lookup)
	if o.HomeDir != "" {
		home = config.HomeAt(o.HomeDir)
	}
	a := &Agent{Home: home, Settings: st, Env: env, Trusted: st.Trust.IsTrusted() || !st.Trust.FolderTrustEnabled}
	loadExtensions(o, a, o.WorkDir)
	list, disabled := settingsHooks(st, a.Trusted, extensionRoots(a), o.WorkDir, o.Warn)
	if len(list) == 0 {
		return hooksMessage(nil).Content
	}
	return hooksMessage(hooks.New(hooks.Options{Cwd: o.WorkDir, Disabled: disabled}, list)).Content
}
