package anthropic

import (
	"strings"
	"testing"

	"google.golang.org/genai"
)

// TestCutStream: a stream ending before message_delta's stop reason is
// an error the retrier retries, not a short answer; so is a stream
// whose block was never started.
func TestCutStream(t *testing.T) {
	const text = "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"par\"}}\n\n"
	for _, tt := range []struct{ name, in, want string }{
		{"nothing", "", "sent no response"},
		{"mid-text", text, "no finish reason after 1 chunks"},
		{"stop without delta", text + "data: {\"type\":\"message_stop\"}\n\n", "no finish reason"},
		{"delta of no block", "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n", "has not started"},
	} {
		var got []string
		decodeStream("m", nil, strings.NewReader(tt.in), func(_ *genai.GenerateContentResponse, err error) bool {
			if err != nil {
				got = append(got, err.Error())
			}
			return true
		})
		if len(got) != 1 || !strings.Contains(got[0], tt.want) {
			t.Errorf("%s: errors %q, want one saying %q", tt.name, got, tt.want)
		}
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
