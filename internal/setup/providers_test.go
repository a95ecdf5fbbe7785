package setup

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/model"
)

// TestProviderClient: which names a provider serves, and the errors of
// its settings, each naming the key.
func TestProviderClient(t *testing.T) {
	st := &config.Settings{Providers: map[string]any{
		"local": map[string]any{"baseUrl": "http://127.0.0.1:1/v1", "headers": map[string]any{"a": "b"},
			"models": map[string]any{"m": map[string]any{"inputPricePerMTok": 1.5, "outputPricePerMTok": 3.0}}},
		"anth":  map[string]any{"type": "anthropic", "baseUrl": "x"},
		"nourl": map[string]any{},
		"badh":  map[string]any{"baseUrl": "x", "headers": map[string]any{"a": 1.0}},
		"str":   "x",
	}}
	getenv := func(k string) string { return map[string]string{"OPENAI_API_KEY": "k"}[k] }
	tests := []struct {
		name    string
		ok      bool
		wantErr string
	}{
		{"gemini-2.5-pro", false, ""},
		{"models/gemini-2.5-pro", false, ""},
		{"local/m", true, ""},
		{"openai/gpt-4.1", true, ""},
		{"anth/x", true, `settings: providers.anth.type "anthropic" is not supported`},
		{"nourl/x", true, "settings: providers.nourl.baseUrl is missing"},
		{"badh/x", true, "settings: providers.badh.headers.a must be a string"},
		{"str/x", true, "settings: providers.str must be an object"},
	}
	for _, tt := range tests {
		m, ok, err := providerClient(tt.name, st, getenv)
		if ok != tt.ok || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) || (ok && err == nil && m == nil) {
			t.Errorf("%s: ok %v err %v, want ok %v err %q", tt.name, ok, err, tt.ok, tt.wantErr)
		}
	}
	price := priceTable(st)
	if p := price("local/m"); p != (model.Price{InputPerMTok: 1.5, OutputPerMTok: 3}) {
		t.Errorf("local/m price %+v", p)
	}
	if p := price("gemini-2.5-flash"); p.InputPerMTok != 0.30 {
		t.Errorf("gemini-2.5-flash price %+v", p)
	}
}
