package tui

import (
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/oauth"
	castormodel "github.com/castor-dev/castor/model"
)

// The auth dialog, Gemini CLI's AuthDialog: /auth opens it, and so does
// a start-up that failed for want of credentials, instead of leaving a
// dead input. A Gemini API key typed here is kept as Castor keeps its
// credentials (oauth.Store.SaveAPIKey, ~/.gemini/castor_api_key.json,
// owner-only) and security.auth.selectedType becomes gemini-api-key in
// the user's settings, as Gemini CLI records the choice; the session
// then starts. Gemini CLI's own Google sign-in is never offered: Castor
// signs in only with the user's own OAuth client (castor auth login).

// needsAuth says a start-up failed because no usable credentials were
// found.
func needsAuth(err error) bool {
	var ae *castormodel.AuthError
	return errors.As(err, &ae)
}

// authHome is the Gemini home the dialog stores into.
func (m *model) authHome() config.Home {
	if m.agent != nil {
		return m.agent.Home
	}
	if m.cfg.Options.HomeDir != "" {
		return config.HomeAt(m.cfg.Options.HomeDir)
	}
	return config.ResolveHome(func(k string) (string, bool) {
		v := getenv(m.cfg.Environ, k)
		return v, v != ""
	})
}

// openAuth shows the choice of method; first is a start-up without
// credentials, where Esc cannot leave Castor without one.
func (m *model) openAuth(first bool) {
	m.authFirst = first
	m.pick(&picker{
		title: "Get started",
		note:  "How would you like to authenticate for this project?",
		items: []pickItem{
			{label: "Use Gemini API Key", value: "key", desc: "typed here, kept in ~/.gemini/" + oauth.APIKeyFileName},
			{label: "Vertex AI", value: "vertex", desc: "from the environment"},
			{label: "Sign in with your own OAuth client", value: "oauth", desc: "castor auth login"},
		},
		choose: (*model).chooseAuth,
		cancel: func(m *model) tea.Cmd {
			if m.authFirst && m.startErr != nil {
				m.printNotice(noticeWarn, "You must select an auth method to proceed: /auth opens the dialog again, Ctrl-C twice quits.")
			}
			return nil
		},
	})
}

func (m *model) chooseAuth(it pickItem) tea.Cmd {
	switch it.value {
	case "key":
		m.askText("Enter Gemini API Key",
			"Get a key at https://aistudio.google.com/apikey. It is kept in "+homeRelative(oauth.NewStore(m.authHome()).APIKeyPath())+", readable by you only.",
			"", true, (*model).saveAPIKey)
	case "vertex":
		m.printNotice(noticeInfo, "Vertex AI: set GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (or GOOGLE_API_KEY) in the environment or a .env file, then start Castor again.")
	case "oauth":
		m.printNotice(noticeInfo, "Sign in with your own OAuth client: set CASTOR_OAUTH_CLIENT_ID (or security.auth.oauthClient in settings), run `castor auth login`, then start Castor again.")
	}
	return nil
}

// saveAPIKey stores the key typed, records the choice, and starts the
// session if it could not start before.
func (m *model) saveAPIKey(key string) tea.Cmd {
	if key == "" {
		m.printNotice(noticeWarn, "No API key entered; nothing was saved.")
		m.openAuth(m.authFirst)
		return nil
	}
	h := m.authHome()
	st := oauth.NewStore(h)
	if err := st.SaveAPIKey(key); err != nil {
		m.printNotice(noticeError, "saving the API key: "+err.Error())
		return nil
	}
	if err := config.UpdateFile(h.SettingsPath(), "security.auth.selectedType", string(oauth.GeminiAPIKey)); err != nil {
		m.printNotice(noticeWarn, err.Error())
	}
	shown := homeRelative(st.APIKeyPath())
	if m.startErr == nil {
		m.printNotice(noticeInfo, "API key saved in "+shown+"; Castor uses it from its next start when the environment sets no key.")
		return nil
	}
	m.printNotice(noticeInfo, "API key saved in "+shown+". Starting…")
	m.startErr = nil
	m.authFirst = false
	m.status = "starting…"
	m.startAssembly()
	return nil
}

// cmdAuth is /auth.
func (m *model) cmdAuth([]string) tea.Cmd {
	m.openAuth(false)
	return nil
}
