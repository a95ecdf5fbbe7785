// Package routing resolves Gemini CLI's model aliases and routes the
// "auto" model as Gemini CLI 0.61 does: before the first model call of each
// prompt a small classifier model scores the request's complexity from 1 to
// 100, and the prompt goes to the pro model when the score reaches the
// session's threshold, to the flash model otherwise. When the classifier
// fails the prompt goes to the pro model.
//
// The Router is a model.Model placed in front of the retrying transport, so
// the engine keeps asking for "auto" (which is what faces report, as
// Gemini CLI does) and never learns about routing.
//
// The classifier is asked once per prompt: its decision is kept by the
// request's PromptID, so the calls of one prompt go to one model. Its own
// call is reported as a model.NoticeUtility, which the engine counts under
// the role utility_router.
package routing

import "unicode/utf16"

// Aliases and the models they stand for in Gemini CLI 0.61.
const (
	// Auto is the default model setting: routed per prompt.
	Auto = "auto"
	// ProModel is the pro model; ProCustomToolsModel is the variant Gemini
	// CLI picks with a Gemini API key (tuned for custom tool sets).
	ProModel            = "gemini-3.1-pro-preview"
	ProCustomToolsModel = "gemini-3.1-pro-preview-customtools"
	// FlashModel answers the "flash" alias and simple prompts under auto.
	FlashModel = "gemini-3.8-flash"
	// FlashLiteModel answers the "flash-lite" alias and classifies prompts.
	FlashLiteModel = "gemini-3.5-flash-lite"
	// ClassifierModel is the model the router asks.
	ClassifierModel = FlashLiteModel
)

// IsAlias reports whether name is one of Gemini CLI's model aliases.
func IsAlias(name string) bool {
	switch name {
	case Auto, "pro", "flash", "flash-lite":
		return true
	}
	return false
}

// Resolve returns the model an alias stands for; other names are returned
// unchanged. customTools picks the pro variant Gemini CLI uses with a
// Gemini API key. Auto resolves to what a prompt gets when the classifier
// fails: the plain pro model.
func Resolve(name string, customTools bool) string {
	switch name {
	case Auto:
		return ProModel
	case "pro":
		if customTools {
			return ProCustomToolsModel
		}
		return ProModel
	case "flash":
		return FlashModel
	case "flash-lite":
		return FlashLiteModel
	}
	return name
}

// Threshold is the score from which a prompt goes to the pro model: 80 or
// 50, fixed per session by an FNV-1a hash of its id (Gemini CLI's A/B
// split, so a session keeps one behaviour).
func Threshold(sessionID string) int {
	if sessionID == "" {
		sessionID = "unknown-session"
	}
	h := uint32(0x811c9dc5)
	// Gemini CLI hashes UTF-16 code units; ids are ASCII, but stay exact.
	for _, u := range utf16.Encode([]rune(sessionID)) {
		h ^= uint32(u)
		h *= 0x01000193
	}
	if h%100 < 50 {
		return 80
	}
	return 50
}
