package extension

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/castor-dev/castor/config"
)

// CheckAll does what Gemini CLI 0.61's interactive start-up does with the
// installed extensions: each one installed from a git URL or a local
// folder is checked (Newer); one that changed is updated when it
// was installed with --auto-update, and otherwise counted in one notice
// that updates are available. Linked extensions are read in place and are
// never checked. info receives the lines that report no problem (an
// update made, the notice of updates available), warn a check or update
// that failed, one line each: the interactive terminal shows the first as
// information, as Gemini CLI does, not as warnings. CheckAll stops between
// extensions when ctx ends; it is meant to run in the background.
func CheckAll(ctx context.Context, exts []*config.Extension, wd string, info, warn func(string)) {
	ctx = context.WithValue(ctx, unattendedKey{}, true)
	var available []string
	for _, e := range exts {
		if ctx.Err() != nil {
			return
		}
		if e.Install == nil || e.InstallDir == "" || e.Install.Type == "link" {
			continue
		}
		u, err := Newer(ctx, e, wd)
		if err != nil {
			// A local source folder that is gone (installed from a
			// temporary copy) makes it not updatable, silently, as in
			// Gemini CLI; anything else is said.
			if ctx.Err() == nil && !errors.Is(err, ErrNotUpdatable) && !errors.Is(err, ErrBadSource) {
				warn(fmt.Sprintf("Extension %q: checking for an update failed: %s", e.Name, oneLine(err.Error())))
			}
			continue
		}
		if u == nil {
			continue // up to date
		}
		from, to := Versions(e, u)
		if !e.Install.AutoUpdate {
			available = append(available, fmt.Sprintf("%s %s → %s", e.Name, from, to))
			u.Close()
			continue
		}
		note, err := Apply(e, u)
		u.Close()
		if note != "" {
			warn(note)
		}
		if err != nil {
			warn(fmt.Sprintf("Extension %q: the update to %s failed: %s", e.Name, to, oneLine(err.Error())))
			continue
		}
		info(fmt.Sprintf("Extension %q successfully updated: %s → %s. It is used from the next session on.", e.Name, from, to))
	}
	if n := len(available); n > 0 {
		s := "s"
		if n == 1 {
			s = ""
		}
		info(fmt.Sprintf("You have %d extension%s with an update available (%s). Run \"castor extensions update <name>\" or \"castor extensions update --all\" to upgrade.", n, s, strings.Join(available, ", ")))
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
