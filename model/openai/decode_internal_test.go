package openai

import (
	"strings"
	"testing"

	"google.golang.org/genai"
)

// TestCutStream: a stream ending without a finish reason is an error the
// retrier retries, not a short answer.
func TestCutStream(t *testing.T) {
	var errs []error
	decodeStream("p", strings.NewReader("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\n"), func(_ *genai.GenerateContentResponse, err error) bool {
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "no finish reason") {
		t.Errorf("errors = %v", errs)
	}
}

// FuzzDecodeStream: any bytes from a server end in chunks or an error,
// never a panic.
func FuzzDecodeStream(f *testing.F) {
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":3,\"id\":\"x\",\"function\":{\"name\":\"a\",\"arguments\":\"{\\\"\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n")
	f.Add("data: {\"error\":{\"message\":\"boom\"}}\n")
	f.Fuzz(func(t *testing.T, s string) {
		decodeStream("p", strings.NewReader(s), func(*genai.GenerateContentResponse, error) bool { return true })
	})
}
