package gemini_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/gemini"
)

// cannedTransport answers every request with one short streamed answer
// without a network, after reading the body, so a benchmark measures
// what the client does: encoding the request and decoding the answer.
type cannedTransport struct{ sent int64 }

const cannedAnswer = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}]}\r\n\r\n"

func (c *cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	n, _ := io.Copy(io.Discard, r.Body)
	r.Body.Close()
	c.sent = n
	return &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(strings.NewReader(cannedAnswer)),
		Request:    r,
	}, nil
}

// history is a conversation of n contents shaped like an agent's: a
// prompt, a model turn calling a tool, the tool's answer, a model
// answer, over and over.
func history(n int) []*genai.Content {
	out := make([]*genai.Content, 0, n)
	for i := 0; len(out) < n; i++ {
		switch i % 4 {
		case 0:
			out = append(out, genai.NewContentFromText(strings.Repeat("please look at the code ", 10), genai.RoleUser))
		case 1:
			out = append(out, genai.NewContentFromFunctionCall("read_file", map[string]any{"file_path": fmt.Sprintf("/src/pkg/file%d.go", i)}, genai.RoleModel))
		case 2:
			out = append(out, genai.NewContentFromFunctionResponse("read_file", map[string]any{"output": strings.Repeat("func f() { return }\n", 100)}, genai.RoleUser))
		case 3:
			out = append(out, genai.NewContentFromText(strings.Repeat("the code does this and that. ", 30), genai.RoleModel))
		}
	}
	return out
}

// BenchmarkRequestEncoding is the client's cost of one streamed call as
// the history grows (the network is replaced by cannedTransport), next
// to encoding/json's cost of the contents alone.
func BenchmarkRequestEncoding(b *testing.B) {
	for _, n := range []int{10, 100, 500, 1000} {
		contents := history(n)
		tr := &cannedTransport{}
		m, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: "http://127.0.0.1:1", HTTPClient: &http.Client{Transport: tr}})
		if err != nil {
			b.Fatal(err)
		}
		req := &model.Request{Model: "gemini-2.5-pro", Contents: contents}
		b.Run(fmt.Sprintf("call/contents=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, err := range m.GenerateContentStream(context.Background(), req) {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(tr.sent), "body-bytes")
		})
		b.Run(fmt.Sprintf("json/contents=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(contents); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
