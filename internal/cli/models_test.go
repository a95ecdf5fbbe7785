package cli

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/setup"
)

// TestModelsTextSaysWhy: a provider whose settings are wrong is "not
// usable", one whose server did not answer "not reachable".
func TestModelsTextSaysWhy(t *testing.T) {
	for _, c := range []struct {
		p    setup.ProviderListing
		want string
	}{
		{setup.ProviderListing{Name: "x", Type: "nope", Error: `providers.x.type "nope" is not supported`}, "not usable: providers.x.type"},
		{setup.ProviderListing{Name: "local", Type: "openai", BaseURL: "http://127.0.0.1:1/v1", Error: "connection refused"}, "not reachable: connection refused"},
	} {
		if got := modelsText([]setup.ProviderListing{c.p}); !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.p.Name, got, c.want)
		}
	}
}
