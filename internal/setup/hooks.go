package setup

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/hooks"
)

// RuntimeHook is an in-process hook given by the SDK. Func receives the
// assembled agent, so that it can build what it passes on (the SDK's
// SessionContext).
type RuntimeHook struct {
	Event      agent.HookEvent
	Name       string
	Matcher    string
	Sequential bool
	Timeout    time.Duration
	Func       func(ctx context.Context, a *Agent, in *agent.HookInput) (*agent.HookOutput, error)
	// Origin names the hook in errors in its caller's terms (default
	// "Options.Hooks[i]").
	Origin string
}

// hookSources are the settings layers that may define hooks, in Gemini
// CLI's order of execution.
var hookSources = []struct {
	scope  config.Scope
	source hooks.Source
}{
	{config.ScopeWorkspace, hooks.SourceProject},
	{config.ScopeUser, hooks.SourceUser},
	{config.ScopeSystem, hooks.SourceSystem},
	{config.ScopeSystemDefaults, hooks.SourceSystem},
}

// settingsHooks reads the hooks of every settings layer and of the
// extensions whose roots are given (their hooks/hooks.json). Project
// hooks of an untrusted folder are left out, and so is everything when
// hooksConfig.enabled is false; every definition that cannot be used is
// reported through warn with its file and key. It also returns the
// disabled hook ids (hooksConfig.disabled and hooks.disabled, all layers).
func settingsHooks(st *config.Settings, trusted bool, extRoots []string, workspace string, warn func(string)) ([]hooks.Hook, []string) {
	if st == nil {
		return nil, nil
	}
	if on, ok := st.GetBool("hooksConfig.enabled"); ok && !on {
		return nil, nil
	}
	if v, ok := st.Get("hooksConfig.enabled"); ok {
		if _, isBool := v.(bool); !isBool {
			warn(cmp.Or(st.FileOf("hooksConfig", "enabled"), "settings") + ": hooksConfig.enabled must be true or false; hooks stay enabled")
		}
	}
	var out []hooks.Hook
	var disabled []string
	if d, ok := st.GetStrings("hooksConfig.disabled"); ok {
		disabled = append(disabled, d...)
	}
	for _, hs := range hookSources {
		for _, lf := range st.Files {
			if lf.Scope != hs.scope || lf.Raw == nil {
				continue
			}
			raw, ok := lf.Raw["hooks"]
			if !ok {
				continue
			}
			if lf.Skipped != "" || (hs.source == hooks.SourceProject && !trusted) {
				warn(fmt.Sprintf("%s: hooks ignored: %s", lf.Path, orDefault(lf.Skipped, "the workspace is not trusted")))
				continue
			}
			if m, ok := raw.(map[string]any); ok {
				if d, ok := m["disabled"].([]any); ok {
					for _, x := range d {
						if s, ok := x.(string); ok {
							disabled = append(disabled, s)
						}
					}
				}
			}
			hs, errs := hooks.Parse(raw, hs.source, lf.Path+": hooks")
			for _, err := range errs {
				warn(err.Error())
			}
			out = append(out, hs...)
		}
	}
	for _, root := range extRoots {
		hs, errs := hooks.LoadExtension(root, workspace)
		for _, err := range errs {
			warn(err.Error())
		}
		out = append(out, hs...)
	}
	return out, disabled
}

// buildHooks is the hooks step: settings and extension hooks, then the
// runtime hooks of the options, in one hooks.System; nil when there is no
// hook at all.
func buildHooks(o Options, a *Agent, extRoots []string, transcript func() string) agent.Hooks {
	var list []hooks.Hook
	var disabled []string
	wd := a.Workspace.Root()
	if !o.IgnoreSettings {
		list, disabled = settingsHooks(a.Settings, a.Trusted, extRoots, wd, o.Warn)
		withExtensionSettingsEnv(a.Extensions, list)
		if a.Trusted {
			noticeProjectHooks(a.Home.Dir, wd, list, o.Warn)
		}
	}
	for i, rh := range o.Hooks {
		f := rh.Func
		list = append(list, hooks.Hook{
			Event: rh.Event, Name: rh.Name, Matcher: rh.Matcher, Sequential: rh.Sequential, Timeout: rh.Timeout,
			Source: hooks.SourceRuntime, Origin: orDefault(rh.Origin, fmt.Sprintf("Options.Hooks[%d]", i)),
			Func: func(ctx context.Context, in *agent.HookInput) (*agent.HookOutput, error) { return f(ctx, a, in) },
		})
	}
	if len(list) == 0 {
		return nil
	}
	return hooks.New(hooks.Options{Cwd: wd, TranscriptPath: transcript, Env: envRules(a.Settings).Apply(a.Env.Environ()), Disabled: disabled}, list)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// transcriptPath returns the session file's path for hooks' input.
func transcriptPath(rec agent.Recorder) func() string {
	return func() string {
		if cr, ok := rec.(*chatRecorder); ok {
			return cr.rec.Path()
		}
		return ""
	}
}

// startHooks fires SessionStart (startup, or resume when a recorded
// session continues) and arranges for SessionEnd (exit) to fire first
// when the agent is closed; what the end hooks say goes to warn.
func startHooks(ctx context.Context, o Options, a *Agent, resumed bool) {
	s := a.Session
	source := "startup"
	if resumed {
		source = "resume"
	}
	s.StartHooks(ctx, source)
	a.onClose(func() error {
		for _, ev := range s.EndHooks(context.Background(), "exit") {
			o.Warn(ev.Text)
		}
		return nil
	})
}
