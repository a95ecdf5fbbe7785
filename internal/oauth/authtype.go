package oauth

import (
	"fmt"
	"strings"
)

// AuthType is Gemini CLI's authentication method, as stored in settings
// under security.auth.selectedType.
type AuthType string

// The auth types Gemini CLI knows.
const (
	// LoginWithGoogle is "Sign in with Google": OAuth user credentials
	// against the Code Assist endpoint. Castor needs the user's own OAuth
	// client for it (see ErrNoClient).
	LoginWithGoogle AuthType = "oauth-personal"
	GeminiAPIKey    AuthType = "gemini-api-key"
	VertexAI        AuthType = "vertex-ai"
	// CloudShell is the legacy name of ComputeADC; Gemini CLI rewrites it.
	CloudShell AuthType = "cloud-shell"
	// ComputeADC uses Application Default Credentials, in practice the
	// compute metadata server of GCE or Cloud Shell, against Code Assist.
	ComputeADC AuthType = "compute-default-credentials"
	// Gateway is the Gemini API through GOOGLE_GEMINI_BASE_URL.
	Gateway AuthType = "gateway"
)

// CodeAssist reports whether t talks to the Code Assist endpoint with
// Google credentials (rather than the Gemini API or Vertex AI).
func (t AuthType) CodeAssist() bool {
	return t == LoginWithGoogle || t == ComputeADC || t == CloudShell
}

func (t AuthType) known() bool {
	switch t {
	case LoginWithGoogle, GeminiAPIKey, VertexAI, CloudShell, ComputeADC, Gateway:
		return true
	}
	return false
}

// Selection is the auth type in effect and where it came from.
type Selection struct {
	Type AuthType
	// Source is "security.auth.selectedType", the environment variable
	// that chose Type, or "" when nothing is configured.
	Source string
}

// AuthTypeFromEnv is Gemini CLI's getAuthTypeFromEnv: the first of
// GOOGLE_GENAI_USE_GCA=true (sign in with Google),
// GOOGLE_GENAI_USE_VERTEXAI=true, GOOGLE_GEMINI_BASE_URL (gateway),
// GEMINI_API_KEY, and CLOUD_SHELL=true or GEMINI_CLI_USE_COMPUTE_ADC=true
// (compute credentials). It returns "" when none applies.
func AuthTypeFromEnv(getenv func(string) string) Selection {
	switch {
	case getenv(EnvUseGCA) == "true":
		return Selection{LoginWithGoogle, EnvUseGCA}
	case getenv("GOOGLE_GENAI_USE_VERTEXAI") == "true":
		return Selection{VertexAI, "GOOGLE_GENAI_USE_VERTEXAI"}
	case getenv("GOOGLE_GEMINI_BASE_URL") != "":
		return Selection{Gateway, "GOOGLE_GEMINI_BASE_URL"}
	case getenv("GEMINI_API_KEY") != "":
		return Selection{GeminiAPIKey, "GEMINI_API_KEY"}
	case getenv("CLOUD_SHELL") == "true":
		return Selection{ComputeADC, "CLOUD_SHELL"}
	case getenv("GEMINI_CLI_USE_COMPUTE_ADC") == "true":
		return Selection{ComputeADC, "GEMINI_CLI_USE_COMPUTE_ADC"}
	}
	return Selection{}
}

// SelectAuthType chooses the auth type as headless Gemini CLI does: the
// selectedType from settings, else the environment (AuthTypeFromEnv). An
// unset or legacy "cloud-shell" choice becomes compute credentials when
// CLOUD_SHELL or GEMINI_CLI_USE_COMPUTE_ADC is "true", as Gemini CLI
// rewrites it at startup. It fails, with Gemini CLI's messages, when
// enforced is set and differs from the choice, or when the choice is not
// an auth type. A zero Selection means nothing is configured.
func SelectAuthType(selected, enforced string, getenv func(string) string) (Selection, error) {
	sel := Selection{Type: AuthType(strings.TrimSpace(selected)), Source: "security.auth.selectedType"}
	computeEnv := getenv("CLOUD_SHELL") == "true" || getenv("GEMINI_CLI_USE_COMPUTE_ADC") == "true"
	switch {
	case sel.Type == CloudShell && computeEnv:
		sel.Type = ComputeADC
	case sel.Type == "" && computeEnv:
		// Gemini CLI stores this choice in the settings at startup,
		// before it looks at the rest of the environment, so it beats
		// GOOGLE_GENAI_USE_GCA and GEMINI_API_KEY.
		sel = Selection{ComputeADC, "CLOUD_SHELL"}
		if getenv("CLOUD_SHELL") != "true" {
			sel.Source = "GEMINI_CLI_USE_COMPUTE_ADC"
		}
	case sel.Type == "":
		sel = AuthTypeFromEnv(getenv)
	}
	if enforced = strings.TrimSpace(enforced); enforced != "" && string(sel.Type) != enforced {
		if sel.Type == "" {
			return Selection{}, fmt.Errorf("The auth type '%s' is enforced, but no authentication is configured.", enforced)
		}
		return Selection{}, fmt.Errorf("The enforced authentication type is '%s', but the current type is '%s'. Please re-authenticate with the correct type.", enforced, sel.Type)
	}
	if sel.Type != "" && !sel.Type.known() {
		return Selection{}, fmt.Errorf("Invalid auth method selected: %q.", sel.Type)
	}
	return sel, nil
}
