package cli

import (
	"errors"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/policy"
)

// refuseYolo is Gemini CLI's start-up check of security.disableYoloMode:
// -y or --approval-mode yolo is a configuration error (exit 52) when the
// settings of wd forbid YOLO mode. Settings that do not load are left for
// the assembly to report.
func refuseYolo(mode policy.Mode, wd string) error {
	if mode != policy.ModeYolo {
		return nil
	}
	st, err := config.Load(config.LoadOptions{Workspace: wd})
	if err != nil || !st.YoloDisabled() {
		return nil
	}
	return &setup.ConfigError{Err: errors.New(config.YoloDisabledMessage)}
}
