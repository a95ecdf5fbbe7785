package gemini_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/gemini"
	"google.golang.org/genai"
)

func TestThinkingConfig(t *testing.T) {
	budget := &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: genai.Ptr[int32](8192)}
	level := &genai.ThinkingConfig{IncludeThoughts: true, ThinkingLevel: genai.ThinkingLevelHigh}
	tests := []struct {
		model string
		want  *genai.ThinkingConfig
	}{
		{"gemini-2.5-pro", budget},
		{"gemini-2.5-flash", budget},
		{"gemini-2.5-flash-lite", budget},
		{"models/gemini-2.5-pro", budget},
		{"gemini-3-pro-preview", level},
		{"gemini-3.1-pro-preview", level},
		{"gemini-3-flash-preview", level},
		{"gemini-2.0-flash", nil},
		{"gemini-2.0-flash-lite", nil},
		{"gemini-1.5-flash", nil},
		{"gemma-3-27b-it", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := gemini.ThinkingConfig(tt.model); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ThinkingConfig(%q) = %+v, want %+v", tt.model, got, tt.want)
		}
	}
}

func TestDefaultGenerationConfig(t *testing.T) {
	c := gemini.DefaultGenerationConfig("gemini-3-pro-preview")
	if *c.Temperature != 1 || *c.TopP != 0.95 || *c.TopK != 64 || c.ThinkingConfig.ThinkingLevel != genai.ThinkingLevelHigh {
		t.Errorf("config = %+v", c)
	}
	if c := gemini.DefaultGenerationConfig("gemini-2.0-flash"); c.ThinkingConfig != nil {
		t.Errorf("2.0 thinking = %+v", c.ThinkingConfig)
	}
}

func TestParseCustomHeaders(t *testing.T) {
	tests := []struct {
		in   string
		want http.Header
	}{
		{"", http.Header{}},
		{"X-Api-Key: abc", http.Header{"X-Api-Key": {"abc"}}},
		{"A: 1, B: 2", http.Header{"A": {"1"}, "B": {"2"}}},
		{"Authorization:Bearer tok", http.Header{"Authorization": {"Bearer tok"}}},
		{"X-Meta: {\"a\":1,\"name\":\"x\"}, Y: z", http.Header{"X-Meta": {`{"a":1,"name":"x"}`}, "Y": {"z"}}},
		{"X-List: a, b, c", http.Header{"X-List": {"a, b, c"}}},
		{"X-Url: http://h:1/p, Y: 2", http.Header{"X-Url": {"http://h:1/p"}, "Y": {"2"}}},
		{"novalue, : empty, A: 1", http.Header{"A": {"1"}}},
		{"A: 1, A: 2", http.Header{"A": {"2"}}},
	}
	for _, tt := range tests {
		if got := gemini.ParseCustomHeaders(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseCustomHeaders(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func FuzzParseCustomHeaders(f *testing.F) {
	for _, s := range []string{"A: 1, B: 2", "X: {\"a\":1,\"b\":2}", ",,,:", "a:b:c,d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, vs := range gemini.ParseCustomHeaders(s) {
			if name == "" || strings.ContainsAny(name, " \t\r\n:,") {
				t.Fatalf("bad header name %q from %q", name, s)
			}
			for _, v := range vs {
				if strings.ContainsAny(v, "\r\n\x00") || v != strings.TrimSpace(v) {
					t.Fatalf("bad header value %q from %q", v, s)
				}
			}
		}
	})
}

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    gemini.Config
		wantErr bool
	}{
		{
			name: "api key",
			env:  map[string]string{"GEMINI_API_KEY": "g", "GOOGLE_API_KEY": "o", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"},
			want: gemini.Config{APIKey: "g", BaseURL: "http://127.0.0.1:9", Headers: http.Header{}},
		},
		{
			name: "google key for gemini api",
			env:  map[string]string{"GOOGLE_API_KEY": "o"},
			want: gemini.Config{APIKey: "o", Headers: http.Header{}},
		},
		{
			name: "vertex",
			env: map[string]string{
				"GOOGLE_GENAI_USE_VERTEXAI": "true", "GEMINI_API_KEY": "g", "GOOGLE_CLOUD_PROJECT_ID": "p",
				"GOOGLE_CLOUD_LOCATION": "us-central1", "GOOGLE_VERTEX_BASE_URL": "https://proxy.example/v",
				"GOOGLE_GEMINI_BASE_URL": "https://ignored.example",
			},
			want: gemini.Config{Vertex: true, Project: "p", Location: "us-central1", BaseURL: "https://proxy.example/v", Headers: http.Header{}},
		},
		{
			name: "bearer and headers",
			env: map[string]string{
				"GEMINI_API_KEY": "g", "GEMINI_API_KEY_AUTH_MECHANISM": "Bearer",
				"GEMINI_CLI_CUSTOM_HEADERS": "X-A: 1", "GOOGLE_GENAI_API_VERSION": "v1",
			},
			want: gemini.Config{APIKey: "g", BearerAuth: true, APIVersion: "v1", Headers: http.Header{"X-A": {"1"}}},
		},
		{
			name:    "bad base url",
			env:     map[string]string{"GEMINI_API_KEY": "g", "GOOGLE_GEMINI_BASE_URL": "not a url"},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gemini.ConfigFromEnv(func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestMissingCredentials(t *testing.T) {
	tests := []struct {
		name string
		cfg  gemini.Config
		want string
	}{
		{"gemini api", gemini.Config{}, "GEMINI_API_KEY"},
		{"vertex", gemini.Config{Vertex: true, Project: "p"}, "GOOGLE_CLOUD_LOCATION"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gemini.New(context.Background(), tt.cfg)
			var ae *model.AuthError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want AuthError mentioning %s", err, tt.want)
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("env ok"))
	for _, k := range []string{"GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GEMINI_API_KEY_AUTH_MECHANISM", "GEMINI_CLI_CUSTOM_HEADERS", "GOOGLE_GENAI_API_VERSION"} {
		t.Setenv(k, "")
	}
	t.Setenv("GEMINI_API_KEY", "env-key")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL)
	m, err := gemini.FromEnv(context.Background(), "9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.GenerateContent(context.Background(), &model.Request{Model: "gemini-2.5-flash", Contents: userText("x")})
	if err != nil {
		t.Fatal(err)
	}
	if got := text([]*genai.GenerateContentResponse{resp}); got != "env ok" {
		t.Errorf("text = %q", got)
	}
	if k := srv.LastRequest().Header.Get("X-Goog-Api-Key"); k != "env-key" {
		t.Errorf("key = %q", k)
	}
}
