package anthropic

import (
	"strings"
	"testing"

	"google.golang.org/genai"
)

// TestCutStream: a stream ending without message_delta's stop reason is
// an error the retrier retries, not a short answer.
func TestCutStream(t *testing.T) {
	var errs []error
	in := "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"par\"}}\n\n"
	decodeStream("m", nil, strings.NewReader(in), func(_ *genai.GenerateContentResponse, err error) bool {
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
	f.Add("data: {\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"x\",\"name\":\"a\",\"input\":{}}}\n\ndata: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"\"}}\n\ndata: {\"type\":\"content_block_stop\",\"index\":3}\n\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":3}}\n\ndata: {\"type\":\"message_stop\"}\n")
	f.Add("data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n")
	f.Add("data: {\"type\":\"content_block_delta\",\"index\":-1,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"x\"}}\n")
	f.Fuzz(func(t *testing.T, s string) {
		decodeStream("m", nil, strings.NewReader(s), func(*genai.GenerateContentResponse, error) bool { return true })
	})
}
