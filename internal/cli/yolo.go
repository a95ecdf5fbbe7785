package cli

import (
	"errors"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/policy"
)

// refuseYolo is Gemini CLI's start-up check of security.disableYoloMode:
// -y or --approval-mode yolo is a configuration error (exit 52) when st,
// the workspace's settings (workspaceSettings), forbid YOLO mode.
// Settings that do not load (nil) are left for the assembly to report.
func refuseYolo(mode policy.Mode, st *config.Settings) error {
	if mode != policy.ModeYolo || st == nil || !st.YoloDisabled() {
		return nil
	}
	return &setup.ConfigError{Err: errors.New(config.YoloDisabledMessage)}
}

// workspaceSettings are wd's settings as the start-up checks read them
// (refuseYolo, startSandbox), loaded once for both; nil when they do not
// load, which the assembly reports.
func workspaceSettings(wd string) *config.Settings {
	st, err := config.Load(config.LoadOptions{Workspace: wd})
	if err != nil {
		return nil
	}
	return st
}
