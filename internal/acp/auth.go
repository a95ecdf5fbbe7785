package acp

import (
	sdk "github.com/coder/acp-go-sdk"
)

// Auth method ids: Gemini CLI's names for what Castor allows. Gemini
// CLI's own Google sign-in (oauth-personal) is never offered: Castor may
// not reuse it.
const (
	authAPIKey = "gemini-api-key"
	authVertex = "vertex-ai"
	authADC    = "compute-default-credentials"
)

func authMethods() []sdk.AuthMethod {
	desc := func(s string) *string { return &s }
	return []sdk.AuthMethod{
		{Agent: &sdk.AuthMethodAgent{Id: authAPIKey, Name: "Use a Gemini API key",
			Description: desc("GEMINI_API_KEY from the environment or .env, or the key given in _meta[\"api-key\"]."),
			Meta:        map[string]any{"api-key": map[string]any{"provider": "google"}}}},
		{Agent: &sdk.AuthMethodAgent{Id: authVertex, Name: "Vertex AI",
			Description: desc("GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION with Application Default Credentials, or GOOGLE_API_KEY.")}},
		{Agent: &sdk.AuthMethodAgent{Id: authADC, Name: "Application Default Credentials",
			Description: desc("Google Cloud Application Default Credentials through Code Assist.")}},
	}
}

// authenticate returns the environment a method chooses for the sessions
// opened after it.
func authenticate(method string, meta map[string]any) (map[string]string, error) {
	switch method {
	case authAPIKey:
		env := map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "false", "GOOGLE_GENAI_USE_GCA": "false"}
		if key, ok := meta["api-key"].(string); ok && key != "" {
			env["GEMINI_API_KEY"] = key
		}
		return env, nil
	case authVertex:
		return map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true"}, nil
	case authADC:
		return map[string]string{"GEMINI_CLI_USE_COMPUTE_ADC": "true"}, nil
	}
	return nil, sdk.NewInvalidParams(map[string]any{"error": "unknown auth method " + method})
}
