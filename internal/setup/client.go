package setup

import (
	"context"
	"fmt"
	"time"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/oauth"
	"github.com/castor-dev/castor/internal/routing"
	"github.com/castor-dev/castor/internal/version"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/model/gemini"
)

// newClient picks the model transport: the caller's, a fake replaying a
// file, or Code Assist / the Gemini API / Vertex from the settings and
// the environment (with retries); --record-responses wraps it. The
// returned closer flushes the recording.
func newClient(ctx context.Context, o Options, st *config.Settings, env *Env, home config.Home, tempDir string) (model.Model, func() error, error) {
	m, err := baseClient(ctx, o, st, env.Getenv, home)
	if err == nil {
		m, err = withBudget(m, o, st, tempDir) // budget.go
	}
	if err != nil || o.RecordResponses == "" {
		return m, nil, err
	}
	rec, err := fake.Record(m, o.RecordResponses)
	if err != nil {
		return nil, nil, configErrorf("--record-responses: %v", err)
	}
	return rec, rec.Close, nil
}

func baseClient(ctx context.Context, o Options, st *config.Settings, getenv func(string) string, home config.Home) (model.Model, error) {
	if o.Client != nil {
		return o.Client, nil
	}
	if o.FakeResponses != "" {
		m, err := fake.Open(o.FakeResponses, !o.FakeResponsesNonStrict)
		if err != nil {
			return nil, configErrorf("--fake-responses: %v", err)
		}
		return m, nil
	}
	ro, err := retryOptions(o, st, getenv)
	if err != nil {
		return nil, err
	}
	// "provider/model" names a model of the providers setting
	// (providers.go), served over its own wire without Gemini's router;
	// the mux (providermux.go) sends each call by its model's name, so
	// a session may switch between Gemini and the providers.
	mux := &providerMux{st: st, getenv: getenv, retry: ro}
	name := resolveModelName(o.Model, st, getenv)
	if _, ok, err := providerFor(name, st, getenv); ok || err != nil {
		if err != nil {
			return nil, err
		}
		mux.newGemini = func(ctx context.Context) (model.Model, error) { return geminiClient(ctx, st, getenv, home, ro) }
		return mux, nil
	}
	if mux.gemini, err = geminiClient(ctx, st, getenv, home, ro); err != nil {
		return nil, err
	}
	return mux, nil
}

// geminiClient is the Gemini transport the settings and environment
// ask for: Code Assist, the Gemini API or Vertex, retried, behind the
// auto router.
func geminiClient(ctx context.Context, st *config.Settings, getenv func(string) string, home config.Home, ro model.RetryOptions) (model.Model, error) {
	// A key entered in the terminal's auth dialog stands in for
	// GEMINI_API_KEY when the environment has no credentials.
	getenv = oauth.WithStoredAPIKey(getenv, st.Security.Auth.SelectedType, oauth.NewStore(home))
	// Sign in with Google (Code Assist) when the auth type says so,
	// otherwise the Gemini API key or Vertex path.
	m, ok, err := newAuthClient(ctx, st, getenv, home, version.Version)
	if err != nil {
		return nil, err
	}
	apiKey := false
	if !ok {
		cfg, err := gemini.ConfigFromEnv(getenv)
		if err != nil {
			return nil, configErrorf("%v", err)
		}
		cfg.Version = version.Version
		apiKey = !cfg.Vertex
		if m, err = gemini.New(ctx, cfg); err != nil {
			// A key file the auth dialog wrote but that no longer reads
			// is named, not passed over as "no credentials".
			if _, kerr := oauth.NewStore(home).LoadAPIKey(); kerr != nil {
				return nil, fmt.Errorf("%w (the stored API key could not be read: %v)", err, kerr)
			}
			return nil, err
		}
	}
	// The router sits in front of the retrying transport; it asks the
	// bare one to classify, so a failing router falls back to the pro
	// model at once. With a Gemini API key the pro model is its
	// custom-tools variant, as in Gemini CLI.
	return routing.New(model.WithRetry(m, ro), m, apiKey), nil
}

// retryOptions are the options' own, or general.maxAttempts with
// CASTOR_RETRY_BASE_DELAY shortening the waits.
func retryOptions(o Options, st *config.Settings, getenv func(string) string) (model.RetryOptions, error) {
	if o.Retry != nil {
		return *o.Retry, nil
	}
	ro := model.RetryOptions{MaxAttempts: st.General.MaxAttempts, Fallback: model.DefaultFallback}
	if v := getenv("CASTOR_RETRY_BASE_DELAY"); v != "" {
		// Scripts and CI with their own backoff want shorter waits than
		// Gemini CLI's 5 s first delay.
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return ro, configErrorf("CASTOR_RETRY_BASE_DELAY=%q is not a duration like 500ms", v)
		}
		ro.InitialDelay, ro.MaxDelay = d, 6*d
	}
	if v := getenv("CASTOR_STREAM_IDLE_TIMEOUT"); v != "" {
		// One value for both the first chunk and the gaps after it; "0"
		// turns the limit off.
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return ro, configErrorf("CASTOR_STREAM_IDLE_TIMEOUT=%q is not a duration like 2m or 0 (off)", v)
		}
		if d == 0 {
			d = -1
		}
		ro.FirstChunkTimeout, ro.StreamIdleTimeout = d, d
	}
	return ro, nil
}
