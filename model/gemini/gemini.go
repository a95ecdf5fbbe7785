// Package gemini is the model.Model transport for the Gemini API (API key)
// and Vertex AI, built on google.golang.org/genai.
//
// It leaves retries to model.WithRetry and continuation to the engine: genai
// retries and automatic continuation are both off, so one call is exactly
// one HTTP request.
package gemini

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/internal/resend"
	"github.com/castor-dev/castor/model"
	"google.golang.org/genai"
)

// Default endpoints, set explicitly so genai never falls back to
// environment variables we did not choose to honour.
const (
	geminiBaseURL    = "https://generativelanguage.googleapis.com/"
	vertexGlobalURL  = "https://aiplatform.googleapis.com/"
	geminiAPIVersion = "v1beta"
	vertexAPIVersion = "v1beta1"
)

// Config configures New.
type Config struct {
	// APIKey is the Gemini API key, or for Vertex the express-mode key.
	APIKey string
	// Vertex selects Vertex AI instead of the Gemini API. Without APIKey,
	// Vertex uses Application Default Credentials with Project and
	// Location.
	Vertex   bool
	Project  string
	Location string
	// BaseURL overrides the service endpoint (gateways, proxies, tests).
	BaseURL string
	// APIVersion overrides the API version ("v1beta" / "v1beta1").
	APIVersion string
	// Version is Castor's version, sent in the User-Agent.
	Version string
	// HTTPClient is the client to send requests with; nil means a fresh
	// one. It is not modified.
	HTTPClient *http.Client
	// Headers are added to every request (GEMINI_CLI_CUSTOM_HEADERS).
	Headers http.Header
	// BearerAuth sends the API key as "Authorization: Bearer <key>"
	// instead of x-goog-api-key (GEMINI_API_KEY_AUTH_MECHANISM=bearer).
	BearerAuth bool
}

// Model talks to the Gemini API or Vertex AI. It is safe for concurrent
// use.
type Model struct {
	client *genai.Client
	now    func() time.Time
	// tools caches the encoded declarations; set for the Gemini API
	// only (genai converts tools and contents differently for Vertex),
	// where contents are encoded here too (contents.go).
	tools *toolEncoding
}

var _ model.Model = (*Model)(nil)

// New returns a Model for cfg. Missing credentials yield a *model.AuthError.
func New(ctx context.Context, cfg Config) (*Model, error) {
	cc := &genai.ClientConfig{
		HTTPOptions: genai.HTTPOptions{
			BaseURL:    cfg.BaseURL,
			APIVersion: cfg.APIVersion,
			Headers:    cfg.Headers.Clone(),
			// nil RetryOptions means genai sends each request once; our
			// retry layer decides what to repeat.
			RetryOptions: nil,
		},
	}
	if cc.HTTPOptions.Headers == nil {
		cc.HTTPOptions.Headers = http.Header{}
	}
	if cfg.Vertex {
		cc.Backend = genai.BackendVertexAI
		switch {
		case cfg.APIKey != "":
			// Express mode: an explicit key wins over project/location,
			// as in Gemini CLI.
			cc.APIKey = cfg.APIKey
		case cfg.Project != "" && cfg.Location != "":
			cc.Project, cc.Location = cfg.Project, cfg.Location
		default:
			return nil, &model.AuthError{Err: errors.New("no credentials for Vertex AI: set GOOGLE_API_KEY, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION")}
		}
		if cc.HTTPOptions.APIVersion == "" {
			cc.HTTPOptions.APIVersion = vertexAPIVersion
		}
		if cc.HTTPOptions.BaseURL == "" {
			cc.HTTPOptions.BaseURL = vertexBaseURL(cc.Location, cc.APIKey != "")
		}
	} else {
		if cfg.APIKey == "" {
			return nil, &model.AuthError{Err: errors.New("no credentials: set GEMINI_API_KEY, or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_API_KEY or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION")}
		}
		cc.Backend = genai.BackendGeminiAPI
		cc.APIKey = cfg.APIKey
		if cc.HTTPOptions.APIVersion == "" {
			cc.HTTPOptions.APIVersion = geminiAPIVersion
		}
		if cc.HTTPOptions.BaseURL == "" {
			cc.HTTPOptions.BaseURL = geminiBaseURL
		}
	}

	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	hc := *base
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	// resend sends a request again at once when its connection broke
	// while it was being written, rather than the retrier waiting its
	// backoff for a request the server never received.
	hc.Transport = &transport{base: resend.New(rt), version: cfg.Version, bearer: cfg.BearerAuth}
	cc.HTTPClient = &hc
	if cfg.Vertex && cc.APIKey == "" {
		// genai only adds ADC itself when it builds the client; ours
		// needs the auth middleware added explicitly.
		if err := cc.UseDefaultCredentials(); err != nil {
			return nil, &model.AuthError{Err: fmt.Errorf("vertex AI application default credentials: %w", err)}
		}
	}
	client, err := genai.NewClient(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("gemini client: %w", err)
	}
	m := &Model{client: client, now: time.Now}
	if !cfg.Vertex {
		m.tools = &toolEncoding{}
	}
	return m, nil
}

func vertexBaseURL(location string, express bool) string {
	switch {
	case express || location == "" || location == "global":
		return vertexGlobalURL
	case location == "us" || location == "eu":
		return "https://aiplatform." + location + ".rep.googleapis.com/"
	}
	return "https://" + location + "-aiplatform.googleapis.com/"
}

// FromEnv builds a Model from the environment variables Gemini CLI reads.
// See ConfigFromEnv.
func FromEnv(ctx context.Context, version string) (*Model, error) {
	cfg, err := ConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	cfg.Version = version
	return New(ctx, cfg)
}

// ConfigFromEnv reads a Config through getenv:
//
//	GOOGLE_GENAI_USE_VERTEXAI=true|1        Vertex AI instead of the Gemini API
//	GEMINI_API_KEY                          Gemini API key
//	GOOGLE_API_KEY                          Vertex express key (Gemini API key if GEMINI_API_KEY is unset)
//	GOOGLE_CLOUD_PROJECT / _PROJECT_ID      Vertex project
//	GOOGLE_CLOUD_LOCATION                   Vertex location
//	GOOGLE_GEMINI_BASE_URL                  Gemini API endpoint override
//	GOOGLE_VERTEX_BASE_URL                  Vertex endpoint override
//	GOOGLE_GENAI_API_VERSION                API version override
//	GEMINI_API_KEY_AUTH_MECHANISM=bearer    send the key as a bearer token
//	GEMINI_CLI_CUSTOM_HEADERS               "Name: value, Name2: value2"
//
// It fails only for a malformed base URL; missing credentials are
// reported by New.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	v := strings.ToLower(strings.TrimSpace(getenv("GOOGLE_GENAI_USE_VERTEXAI")))
	cfg := Config{
		Vertex:     v == "true" || v == "1",
		Project:    firstNonEmpty(getenv("GOOGLE_CLOUD_PROJECT"), getenv("GOOGLE_CLOUD_PROJECT_ID")),
		Location:   getenv("GOOGLE_CLOUD_LOCATION"),
		APIVersion: getenv("GOOGLE_GENAI_API_VERSION"),
		BearerAuth: strings.EqualFold(strings.TrimSpace(getenv("GEMINI_API_KEY_AUTH_MECHANISM")), "bearer"),
		Headers:    ParseCustomHeaders(getenv("GEMINI_CLI_CUSTOM_HEADERS")),
	}
	if cfg.Vertex {
		cfg.APIKey = getenv("GOOGLE_API_KEY")
		cfg.BaseURL = getenv("GOOGLE_VERTEX_BASE_URL")
	} else {
		cfg.APIKey = firstNonEmpty(getenv("GEMINI_API_KEY"), getenv("GOOGLE_API_KEY"))
		cfg.BaseURL = getenv("GOOGLE_GEMINI_BASE_URL")
	}
	if cfg.BaseURL != "" {
		if err := checkBaseURL(cfg.BaseURL); err != nil {
			return Config{}, err
		}
	}
	return cfg, nil
}

func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("invalid base URL %q: want http(s)://host[/path]", s)
	}
	return nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// headerStart finds a comma that begins a new "Name:" entry; a name is an
// RFC 9110 token, so commas inside values (JSON, lists) are left alone.
var headerStart = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`,\s*` + tokenChars + `+\s*:`) }}

// tokenChars is the RFC 9110 tchar class; header names are tokens.
const tokenChars = `[!#$%&'*+\-.^_` + "`" + `|~0-9A-Za-z]`

var headerName = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^` + tokenChars + `+$`) }}

// ParseCustomHeaders parses GEMINI_CLI_CUSTOM_HEADERS, a comma-separated
// list of "Name: value" entries; a comma splits entries only where a new
// "Name:" follows, so values may hold commas and colons. Entries without a
// colon, with an invalid name, or with CR/LF/NUL in the value are
// skipped; later duplicates win.
func ParseCustomHeaders(s string) http.Header {
	h := http.Header{}
	for len(strings.TrimSpace(s)) > 0 {
		entry := s
		s = ""
		if loc := headerStart.Get().FindStringIndex(entry); loc != nil {
			entry, s = entry[:loc[0]], entry[loc[0]+1:]
		}
		name, value, ok := strings.Cut(strings.TrimSpace(entry), ":")
		name = strings.TrimSpace(name)
		value = strings.TrimSpace(value)
		if !ok || !headerName.Get().MatchString(name) || strings.ContainsAny(value, "\r\n\x00") {
			// net/http refuses to send an invalid name, which would fail
			// every request; dropping the entry is kinder.
			continue
		}
		h.Set(name, value)
	}
	return h
}

// UserAgent returns the User-Agent sent for calls to modelID, in Gemini
// CLI's shape: Castor/<version>/<model> (<goos>; <goarch>).
func UserAgent(version, modelID string) string {
	if version == "" {
		version = "dev"
	}
	return fmt.Sprintf("Castor/%s/%s (%s; %s)", version, modelID, runtime.GOOS, runtime.GOARCH)
}

// prepareConfig copies cfg with the settings this transport insists on.
// genai writes defaults into the config it is given, and callers share
// theirs between calls, so it never sees the caller's.
func prepareConfig(cfg *genai.GenerateContentConfig) *genai.GenerateContentConfig {
	var c genai.GenerateContentConfig
	if cfg != nil {
		c = *cfg
	}
	c.AutomaticContinuation = genai.Ptr(false)
	if c.SystemInstruction != nil && c.SystemInstruction.Role == "" {
		si := *c.SystemInstruction
		si.Role = genai.RoleUser
		c.SystemInstruction = &si
	}
	return &c
}

// prepareConfig is prepareConfig plus the cached tool encoding.
func (m *Model) prepareConfig(cfg *genai.GenerateContentConfig) *genai.GenerateContentConfig {
	c := prepareConfig(cfg)
	if m.tools != nil {
		m.tools.withEncodedTools(c)
	}
	return c
}

// GenerateContent implements model.Model.
func (m *Model) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	ctx, slot := withSlot(ctx, req.Model)
	contents, cfg := m.prepare(slot, req.Contents, req.Config)
	resp, err := m.client.Models.GenerateContent(ctx, req.Model, contents, cfg)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		if rerr := slot.readError(); rerr != nil {
			// The body broke off; genai only saw the truncated JSON.
			return nil, fmt.Errorf("reading model response: %w", rerr)
		}
		return nil, m.mapError(err, slot)
	}
	return resp, nil
}

// GenerateContentStream implements model.Model. A stream that stops
// without a finish reason, or breaks off after producing chunks, ends with
// an error wrapping model.ErrStreamCut.
func (m *Model) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		ctx, slot := withSlot(ctx, req.Model)
		chunks, finished := 0, false
		contents, cfg := m.prepare(slot, req.Contents, req.Config)
		for resp, err := range m.client.Models.GenerateContentStream(ctx, req.Model, contents, cfg) {
			if err != nil {
				yield(nil, m.streamError(ctx, slot, err, chunks))
				return
			}
			chunks++
			if model.HasFinish(resp) {
				finished = true
			}
			if !yield(resp, nil) {
				return
			}
		}
		if !finished {
			yield(nil, m.streamError(ctx, slot, nil, chunks))
		}
	}
}

// streamError explains why a stream ended early. err is what genai
// reported, nil when the stream simply ended without a finish reason.
func (m *Model) streamError(ctx context.Context, slot *callSlot, err error, chunks int) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if rerr := slot.readError(); rerr != nil {
		// The transport hid the read failure from genai (which would log
		// it); it is the real cause, whatever genai made of the rest.
		err = rerr
	}
	if err != nil {
		err = m.mapError(err, slot)
		var ae *model.APIError
		if chunks == 0 || errors.As(err, &ae) {
			return err
		}
		return fmt.Errorf("%w after %d chunks: %w", model.ErrStreamCut, chunks, err)
	}
	return model.UnfinishedStreamError(chunks)
}

// CountTokens implements model.Model. Only contents are counted, as
// Gemini CLI does; the Gemini API rejects a system instruction or tools
// here.
func (m *Model) CountTokens(ctx context.Context, req *model.Request) (int32, error) {
	ctx, slot := withSlot(ctx, req.Model)
	resp, err := m.client.Models.CountTokens(ctx, req.Model, req.Contents, nil)
	if err != nil {
		return 0, m.mapError(err, slot)
	}
	return resp.TotalTokens, nil
}

// mapError turns genai's APIError into a *model.APIError carrying the
// delay the server asked for; other errors pass unchanged.
func (m *Model) mapError(err error, slot *callSlot) error {
	var ge genai.APIError
	if !errors.As(err, &ge) {
		var gp *genai.APIError
		if !errors.As(err, &gp) || gp == nil {
			return err
		}
		ge = *gp
	}
	status, header := slot.result()
	code := ge.Code
	if code == 0 {
		code = status
	}
	ae := &model.APIError{StatusCode: code, Status: ge.Status, Message: ge.Message, Details: ge.Details}
	if ge.Status != "" && strings.HasPrefix(ge.Status, fmt.Sprint(code)+" ") {
		// Non-JSON error bodies get the HTTP status line as Status
		// ("503 Service Unavailable"); that is not an RPC status name.
		ae.Status = ""
	}
	if header != nil {
		ae.RetryAfter = model.ParseRetryAfter(header.Get("Retry-After"), m.now())
	}
	ae.RetryAfter = max(ae.RetryAfter, model.RetryDelay(ge.Details, ge.Message))
	return ae
}
