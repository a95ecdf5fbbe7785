package castor

import (
	"context"
	"strings"
	"testing"

	"github.com/castor-dev/castor/mcp"
)

// TestDeclineElicitSpeaksGo: an agent built without WithElicit declines
// MCP servers' questions and says how a program answers them, not how a
// terminal user of the castor command would.
func TestDeclineElicitSpeaksGo(t *testing.T) {
	var warned string
	r, err := declineElicit(func(s string) { warned = s })(context.Background(), mcp.ElicitRequest{Server: "forms", Message: "Your name?"})
	if err != nil || r.Action != mcp.ElicitDecline {
		t.Fatalf("answer %+v, %v", r, err)
	}
	if !strings.Contains(warned, "castor.WithElicit") || strings.Contains(warned, " -p") || strings.Contains(warned, "--") {
		t.Errorf("warning %q", warned)
	}
}
