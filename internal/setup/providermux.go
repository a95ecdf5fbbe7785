package setup

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/model"
)

// builtinProviders exist without settings: "openai" (OPENAI_API_KEY,
// OPENAI_BASE_URL), "anthropic" (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)
// and "ollama" (OLLAMA_HOST, else Ollama's default address), as those
// tools' own clients read them.
var builtinProviders = []string{"anthropic", "ollama", "openai"}

// geminiPrefixes are the Gemini model names that hold a slash and name
// no provider: the API's resource names.
var geminiPrefixes = []string{"models/", "tunedModels/", "publishers/", "projects/"}

// providerName is the provider part of a model named "provider/model",
// "" for a Gemini model.
func providerName(name string) string {
	for _, p := range geminiPrefixes {
		if strings.HasPrefix(name, p) {
			return ""
		}
	}
	p, _, found := strings.Cut(name, "/")
	if !found {
		return ""
	}
	return p
}

// providerNames are the providers a model may name: the settings' and
// the built-in ones, sorted.
func providerNames(st *config.Settings) []string {
	names := slices.Collect(maps.Keys(st.Providers))
	for _, b := range builtinProviders {
		if !slices.Contains(names, b) {
			names = append(names, b)
		}
	}
	slices.Sort(names)
	return names
}

// providerFor is providerClient for any model name: ok false for a
// Gemini model, and an error naming the setting for a provider prefix
// that is no provider, so the request never goes to Gemini.
func providerFor(name string, st *config.Settings, getenv func(string) string) (model.Model, bool, error) {
	pname := providerName(name)
	if pname == "" {
		return nil, false, nil
	}
	m, ok, err := providerClient(name, st, getenv)
	if !ok && err == nil {
		return nil, true, configErrorf("model %q: no provider %q; name it under \"providers\" in settings.json (providers.%s.baseUrl…), or use one of: %s", name, pname, pname, strings.Join(providerNames(st), ", "))
	}
	return m, true, err
}

// ollamaBaseURL is the OpenAI-compatible endpoint of the Ollama server
// OLLAMA_HOST names, read as Ollama reads it ("host", "host:port",
// "scheme://host:port/path"; port 11434 unless https), default
// http://127.0.0.1:11434.
func ollamaBaseURL(host string) string {
	s := strings.TrimSpace(host)
	scheme, port := "http", "11434"
	if i := strings.Index(s, "://"); i >= 0 {
		scheme, s = s[:i], s[i+3:]
		if scheme == "https" {
			port = "443"
		}
	}
	hostport, path, _ := strings.Cut(s, "/")
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		h = strings.Trim(hostport, "[]")
	} else if p != "" {
		port = p
	}
	if h == "" {
		h = "127.0.0.1"
	}
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(h, port), Path: strings.TrimSuffix("/"+path, "/")}
	return u.String() + "/v1"
}

// providerMux sends each call to the transport of its model: a
// "provider/model" to that provider's (made at its first call, with
// retries), any other to Gemini's. So a session switched to a provider's
// model (/model, ACP's set_model) and a subagent naming one (model:
// local/qwen3 in its front matter, an extension's agents too) use the
// same providers as -m.
type providerMux struct {
	st     *config.Settings
	getenv func(string) string
	retry  model.RetryOptions

	mu sync.Mutex
	// gemini is Gemini's transport; newGemini makes it at its first call
	// when the session started on a provider's model, so a user of a
	// local model needs no Gemini credentials.
	gemini    model.Model
	newGemini func(context.Context) (model.Model, error)
	providers map[string]model.Model
}

// Unwrap is Gemini's transport (the router), nil before it is made.
func (x *providerMux) Unwrap() model.Model {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.gemini
}

// client is the transport for model name.
func (x *providerMux) client(ctx context.Context, name string) (model.Model, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if pname := providerName(name); pname != "" {
		if m := x.providers[pname]; m != nil {
			return m, nil
		}
		m, _, err := providerFor(name, x.st, x.getenv)
		if err != nil {
			return nil, err
		}
		if x.providers == nil {
			x.providers = map[string]model.Model{}
		}
		x.providers[pname] = model.WithRetry(m, providerRetry(x.retry))
		return x.providers[pname], nil
	}
	if x.gemini == nil {
		if x.newGemini == nil {
			return nil, fmt.Errorf("model %q: no Gemini client", name)
		}
		// Not kept on failure: a cancelled first call is not final.
		m, err := x.newGemini(ctx)
		if err != nil {
			return nil, err
		}
		x.gemini = m
	}
	return x.gemini, nil
}

// GenerateContent asks the model's transport.
func (x *providerMux) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	m, err := x.client(ctx, req.Model)
	if err != nil {
		return nil, err
	}
	return m.GenerateContent(ctx, req)
}

// GenerateContentStream asks the model's transport.
func (x *providerMux) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	m, err := x.client(ctx, req.Model)
	if err != nil {
		return func(yield func(*genai.GenerateContentResponse, error) bool) { yield(nil, err) }
	}
	return m.GenerateContentStream(ctx, req)
}

// CountTokens asks the model's transport.
func (x *providerMux) CountTokens(ctx context.Context, req *model.Request) (int32, error) {
	m, err := x.client(ctx, req.Model)
	if err != nil {
		return 0, err
	}
	return m.CountTokens(ctx, req)
}
