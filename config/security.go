package config

// YoloDisabled reports security.disableYoloMode: YOLO mode may not be
// asked for by flag (Gemini CLI refuses to start), switched on in the
// terminal UI, or taken from general.defaultApprovalMode.
func (s *Settings) YoloDisabled() bool {
	on, _ := s.GetBool("security.disableYoloMode")
	return on
}

// YoloDisabledMessage is Gemini CLI's error when a flag asks for YOLO mode
// that security.disableYoloMode forbids (it exits 52).
const YoloDisabledMessage = "YOLO mode is disabled by your administrator. To enable it, please request an update to the settings at: https://goo.gle/manage-gemini-cli"

// YoloToggleRefused is Gemini CLI's warning when the terminal UI's YOLO
// toggle meets security.disableYoloMode.
const YoloToggleRefused = "You cannot enter YOLO mode since it is disabled in your settings."

// AlwaysAllowDisabled reports security.disableAlwaysAllow: confirmations
// offer no "always allow" answers, and such answers count as once.
func (s *Settings) AlwaysAllowDisabled() bool {
	on, _ := s.GetBool("security.disableAlwaysAllow")
	return on
}
