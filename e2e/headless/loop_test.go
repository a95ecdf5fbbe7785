package headless_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestTemplatedAnswerWhole: an answer of fourteen templated paragraphs is
// printed whole in -p, -o json and -o stream-json, with no loop warning,
// as Gemini CLI 0.61 prints it.
func TestTemplatedAnswerWhole(t *testing.T) {
	t.Parallel()
	answer := e2etest.TemplatedAnswer()
	for _, format := range []string{"text", "json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			e := e2etest.New(t)
			e.Srv.Enqueue(fakegemini.Text(e2etest.Pieces(answer, 61)...))
			r := e.Run("-o", format, "-p", "how do I test each package?")
			if r.Code != 0 || strings.Contains(strings.ToLower(r.Stdout+r.Stderr), "loop") {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
			}
			var got string
			switch format {
			case "text":
				got = strings.TrimSuffix(r.Stdout, "\n")
			case "json":
				got = parseJSONOut(t, r).Response
			case "stream-json":
				for l := range strings.SplitSeq(strings.TrimSpace(r.Stdout), "\n") {
					var ev struct{ Type, Role, Content string }
					if err := json.Unmarshal([]byte(l), &ev); err != nil {
						t.Fatalf("line %q: %v", l, err)
					}
					if ev.Type == "message" && ev.Role == "assistant" {
						got += ev.Content
					}
				}
			}
			if got != answer {
				t.Errorf("answer cut: got %d bytes of %d, ending %q", len(got), len(answer), got[max(0, len(got)-80):])
			}
		})
	}
}
