package castor_test

import (
	"context"
	"testing"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/model/gemini"
)

// benchServer is a fake Gemini server with a client pointed at it. The
// server keeps every request it receives, so benchmarks replace it every
// benchRecycle iterations (outside the timing) to keep memory flat.
type benchServer struct {
	srv    *fakegemini.Server
	client *gemini.Model
	served int
}

const benchRecycle = 200

func (s *benchServer) next(b *testing.B) *gemini.Model {
	b.Helper()
	if s.srv != nil && s.served < benchRecycle {
		s.served++
		return s.client
	}
	s.close()
	s.srv = fakegemini.New()
	if err := s.srv.Listen("127.0.0.1:0"); err != nil {
		b.Fatal(err)
	}
	c, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: s.srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	s.client, s.served = c, 1
	return c
}

func (s *benchServer) close() {
	if s.srv != nil {
		s.srv.Close()
	}
}

func benchOptions(client *gemini.Model, home, ws string, extra ...castor.Option) []castor.Option {
	return append([]castor.Option{
		castor.WithClient(client),
		castor.WithoutSettings(),
		castor.WithHomeDir(home),
		castor.WithoutRecording(),
		castor.WithEnv(noEnv),
		castor.WithWorkDir(ws),
	}, extra...)
}

// BenchmarkSDKNew measures castor.New: workspace, built-in tools, policy,
// system prompt and session (settings and memory files ignored).
func BenchmarkSDKNew(b *testing.B) {
	var s benchServer
	defer s.close()
	home, ws := b.TempDir(), b.TempDir()
	client := s.next(b)
	b.ReportAllocs()
	for b.Loop() {
		a, err := castor.New(context.Background(), benchOptions(client, home, ws)...)
		if err != nil {
			b.Fatal(err)
		}
		a.Close()
	}
}

// BenchmarkSDKTurn measures one Agent.Send through the whole SDK (engine,
// genai client, HTTP over loopback, the fake server's JSON and SSE) on a
// new agent, whose construction is not timed: "text" is one model call;
// "tool" is a call of a custom tool and a text answer (two model calls).
func BenchmarkSDKTurn(b *testing.B) {
	echo := castor.MustTool("echo", "Echoes its input.", func(ctx context.Context, in struct {
		Text string `json:"text" jsonschema:"what to echo"`
	}) (string, error) {
		return in.Text, nil
	})
	cases := []struct {
		name    string
		replies []fakegemini.Reply
	}{
		{"text", []fakegemini.Reply{fakegemini.Text("Hello", " world.")}},
		{"tool", []fakegemini.Reply{fakegemini.Call("echo", map[string]any{"text": "hi"}), fakegemini.Text("It said hi.")}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			var s benchServer
			defer s.close()
			home, ws := b.TempDir(), b.TempDir()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				client := s.next(b)
				s.srv.Enqueue(tc.replies...)
				a, err := castor.New(context.Background(), benchOptions(client, home, ws, castor.WithTools(echo))...)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res, err := a.Send(ctx, "benchmark prompt")
				if err != nil {
					b.Fatal(err)
				}
				if res.Text == "" {
					b.Fatal("empty answer")
				}
				b.StopTimer()
				a.Close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkSDKNewSend measures what a program pays for a one-shot
// question: castor.New, one Send answered by a scripted model (package
// model/fake: no HTTP), and Close.
func BenchmarkSDKNewSend(b *testing.B) {
	home, ws := b.TempDir(), b.TempDir()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		a, err := castor.New(ctx,
			castor.WithClient(fake.Script(fake.Text("Hello", " world."))),
			castor.WithoutSettings(), castor.WithHomeDir(home), castor.WithoutRecording(),
			castor.WithEnv(noEnv), castor.WithWorkDir(ws))
		if err != nil {
			b.Fatal(err)
		}
		res, err := a.Send(ctx, "benchmark prompt")
		if err != nil || res.Text != "Hello world." {
			b.Fatalf("%q, %v", res.Text, err)
		}
		a.Close()
	}
}
