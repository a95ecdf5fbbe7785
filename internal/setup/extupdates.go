package setup

import (
	"context"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/extension"
)

// startExtensionUpdates checks the installed extensions for updates in the
// background when Options.ExtensionUpdates asks for it, as Gemini CLI's
// interactive start-up does: extensions installed with --auto-update are
// updated, the others are mentioned once (extension.CheckAll). Updates
// made and available go through Info (Warn when it is nil), failures
// through Warn. Close cancels a fetch still running and waits
// for an update being copied in, so none is cut short by the exit.
func startExtensionUpdates(ctx context.Context, o Options, a *Agent, wd string) {
	if !o.ExtensionUpdates || o.IgnoreSettings {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Every installed extension is checked, active here or not.
		exts, _ := config.LoadExtensions(config.ExtensionsOptions{GeminiDir: a.Home.Dir, Workspace: wd, Trusted: a.Trusted, Lookup: a.Env.Lookup, Settings: a.Settings})
		info := o.Info
		if info == nil {
			info = o.Warn
		}
		extension.CheckAll(ctx, exts, wd, info, o.Warn)
	}()
	a.onClose(func() error {
		cancel()
		<-done
		return nil
	})
}
