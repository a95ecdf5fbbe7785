// Package codeassist is the model.Model transport for Google's Code Assist
// endpoint (cloudcode-pa.googleapis.com/v1internal), which Google account
// users reach through their free or Code Assist tier. It also performs
// Code Assist onboarding (loadCodeAssist, onboardUser).
//
// Requests and responses are the Gemini REST shapes from
// google.golang.org/genai wrapped in Code Assist's envelopes (see
// GenerateContentRequest). Authentication is the HTTP client's business:
// give Config a client that adds OAuth bearer tokens (internal/oauth:
// Application Default Credentials, or the user's own OAuth client, never
// Gemini CLI's sign-in).
// As in model/gemini, retries are left to model.WithRetry, so one call is
// one HTTP request.
package codeassist

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"runtime"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/resend"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/gemini"
)

// Gemini CLI's endpoint and API version.
const (
	DefaultEndpoint   = "https://cloudcode-pa.googleapis.com"
	DefaultAPIVersion = "v1internal"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvEndpoint   = "CODE_ASSIST_ENDPOINT"
	EnvAPIVersion = "CODE_ASSIST_API_VERSION"
)

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

// Config configures New.
type Config struct {
	// Endpoint is the service root (default DefaultEndpoint); APIVersion
	// the version path (default DefaultAPIVersion).
	Endpoint   string
	APIVersion string
	// HTTPClient sends the requests and must authorize them; nil means
	// http.DefaultClient, which only a test server accepts.
	HTTPClient *http.Client
	// Project is the Code Assist project sent with generate calls, as
	// found by Setup.
	Project string
	// Version is Castor's version, sent in the User-Agent.
	Version string
	// Headers are added to every request (GEMINI_CLI_CUSTOM_HEADERS).
	Headers http.Header
	// ModelMappings renames models before they are sent; nil means
	// DefaultModelMappings(), an empty map none.
	ModelMappings map[string]string
}

// ConfigFromEnv reads the endpoint (CODE_ASSIST_ENDPOINT), API version
// (CODE_ASSIST_API_VERSION) and custom headers (GEMINI_CLI_CUSTOM_HEADERS).
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{
		Endpoint:   strings.TrimSpace(getenv(EnvEndpoint)),
		APIVersion: strings.TrimSpace(getenv(EnvAPIVersion)),
		Headers:    gemini.ParseCustomHeaders(getenv("GEMINI_CLI_CUSTOM_HEADERS")),
	}
}

// Model talks to Code Assist. It is safe for concurrent use.
type Model struct {
	base     string // endpoint + "/" + version
	hc       *http.Client
	project  string
	version  string
	headers  http.Header
	mappings map[string]string
}

var _ model.Model = (*Model)(nil)

// New returns a Model for cfg. It fails only for a malformed endpoint.
func New(cfg Config) (*Model, error) {
	endpoint := cfg.Endpoint
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("invalid %s %q: want http(s)://host[/path]", EnvEndpoint, endpoint)
	}
	version := cfg.APIVersion
	if version == "" {
		version = DefaultAPIVersion
	}
	m := &Model{
		base:     strings.TrimSuffix(endpoint, "/") + "/" + version,
		hc:       cfg.HTTPClient,
		project:  cfg.Project,
		version:  cfg.Version,
		headers:  cfg.Headers.Clone(),
		mappings: cfg.ModelMappings,
	}
	if m.hc == nil {
		m.hc = http.DefaultClient
	}
	// A request whose connection broke while it was being written is
	// sent again at once (internal/resend), as the Gemini API client's.
	hc := *m.hc
	hc.Transport = resend.New(hc.Transport)
	m.hc = &hc
	if m.mappings == nil {
		m.mappings = DefaultModelMappings()
	}
	return m, nil
}

// Project returns the Code Assist project sent with generate calls.
func (m *Model) Project() string { return m.project }

// WithProject returns a copy of m that sends project.
func (m *Model) WithProject(project string) *Model {
	c := *m
	c.project = project
	return &c
}

// userAgent is model/gemini's User-Agent; setup calls, which serve no
// model, leave the model segment out.
func (m *Model) userAgent(modelID string) string {
	if modelID != "" {
		return gemini.UserAgent(m.version, modelID)
	}
	v := m.version
	if v == "" {
		v = "dev"
	}
	return fmt.Sprintf("Castor/%s (%s; %s)", v, runtime.GOOS, runtime.GOARCH)
}

// send makes one call and returns the successful answer; a non-2xx
// answer becomes a *model.APIError (401: inside a *model.AuthError).
func (m *Model) send(ctx context.Context, httpMethod, url string, body any, modelID string) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("code assist: encoding request: %w", err)
		}
		// A bytes.Reader lets the auth transport resend after a 401.
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, httpMethod, url, rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range m.headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", m.userAgent(modelID))
	// Marked idempotent (a nil value is not sent) so that net/http resends
	// a request that met a kept-alive connection as the server closed it,
	// as the Gemini API client does (model/gemini/transport.go).
	req.Header["Idempotency-Key"] = nil
	resp, err := m.hc.Do(req)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		var ae *model.AuthError
		if errors.As(err, &ae) {
			// The token source failed (say, a revoked sign-in); its
			// message is the one to show, without net/http's URL prefix.
			return nil, ae
		}
		return nil, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return resp, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	ae := model.NewAPIError(resp.StatusCode, resp.Header, b)
	if resp.StatusCode == http.StatusUnauthorized {
		return nil, &model.AuthError{Err: fmt.Errorf("Code Assist rejected the Google credentials (%w): sign in again with `castor auth login`", ae)}
	}
	return nil, ae
}

// call posts in to method and decodes the answer into out.
func (m *Model) call(ctx context.Context, method string, in, out any, modelID string) error {
	resp, err := m.send(ctx, http.MethodPost, m.base+":"+method, in, modelID)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return decodeBody(resp.Body, out, method)
}

func decodeBody(r io.Reader, out any, method string) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("code assist %s: reading answer: %w", method, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("code assist %s: decoding answer: %w", method, err)
	}
	return nil
}

// GenerateContent implements model.Model.
func (m *Model) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	body := m.generateRequest(req)
	var res GenerateContentResponse
	if err := m.call(ctx, "generateContent", body, &res, body.Model); err != nil {
		return nil, err
	}
	return FromGenerateContentResponse(&res), nil
}

func (m *Model) generateRequest(req *model.Request) *GenerateContentRequest {
	body := ToGenerateContentRequest(req, m.project)
	body.Model = MapModel(m.mappings, body.Model)
	return body
}

// CountTokens implements model.Model.
func (m *Model) CountTokens(ctx context.Context, req *model.Request) (int32, error) {
	body := ToCountTokensRequest(req)
	body.Request.Model = MapModel(m.mappings, body.Request.Model)
	var res CountTokensResponse
	if err := m.call(ctx, "countTokens", body, &res, strings.TrimPrefix(body.Request.Model, "models/")); err != nil {
		return 0, err
	}
	return res.TotalTokens, nil
}

// GenerateContentStream implements model.Model. The answer is decoded as
// Gemini CLI decodes it (see sseReader); a line that is not "data: " or
// blank ends the stream with an error wrapping ErrMalformedStream. A
// stream that stops without a finish reason, or breaks off after producing
// chunks, ends with an error wrapping model.ErrStreamCut, and an error
// event from the service becomes a *model.APIError.
func (m *Model) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		body := m.generateRequest(req)
		resp, err := m.send(ctx, http.MethodPost, m.base+":streamGenerateContent?alt=sse", body, body.Model)
		if err != nil {
			yield(nil, err)
			return
		}
		defer resp.Body.Close()
		events := newSSEReader(resp.Body)
		chunks, finished := 0, false
		for {
			data, err := events.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				yield(nil, streamError(ctx, err, chunks))
				return
			}
			chunk, err := decodeEvent(data)
			if err != nil {
				yield(nil, err)
				return
			}
			chunks++
			if model.HasFinish(chunk) {
				finished = true
			}
			if !yield(chunk, nil) {
				return
			}
		}
		if !finished {
			yield(nil, model.UnfinishedStreamError(chunks))
		}
	}
}

// streamError explains a stream that failed while being read.
func streamError(ctx context.Context, err error, chunks int) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if errors.Is(err, ErrMalformedStream) {
		return err
	}
	if errors.Is(err, errTruncatedEvent) {
		return fmt.Errorf("%w after %d chunks: %w", model.ErrStreamCut, chunks, err)
	}
	// A read failure: the connection broke off.
	if chunks == 0 {
		return fmt.Errorf("%w: %w", model.ErrStreamCut, err)
	}
	return fmt.Errorf("%w after %d chunks: %w", model.ErrStreamCut, chunks, err)
}

// decodeEvent decodes one SSE event: a response envelope, or the Google
// error envelope the service sends when it fails mid-generation.
func decodeEvent(data []byte) (*genai.GenerateContentResponse, error) {
	var probe struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%w: event is not JSON: %v", ErrMalformedStream, err)
	}
	if len(probe.Error) > 0 && string(probe.Error) != "null" {
		return nil, model.NewAPIError(0, nil, data)
	}
	var res GenerateContentResponse
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("%w: bad response event: %v", ErrMalformedStream, err)
	}
	return FromGenerateContentResponse(&res), nil
}
