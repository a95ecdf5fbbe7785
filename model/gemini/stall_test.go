package gemini_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/gemini"
)

// A stream that falls silent is ended by the idle timeout with an error
// that says how long and after how many chunks; silence before the first
// chunk is retried (nothing reached the caller), silence after it is not
// (a retry would repeat the text already shown).
func TestSilentStreamEnds(t *testing.T) {
	const idle = 50 * time.Millisecond
	tests := []struct {
		name     string
		replies  []fakegemini.Reply
		wantText string
		wantErr  string
		requests int
	}{
		{
			name:     "silent after one chunk",
			replies:  []fakegemini.Reply{fakegemini.Text("one", "two").StallAfter(1)},
			wantText: "one",
			wantErr:  "the model stream went silent for 50ms after 1 chunk",
			requests: 1,
		},
		{
			name:     "silent after every chunk",
			replies:  []fakegemini.Reply{fakegemini.Text("one", "two").StallAfter(2)},
			wantText: "onetwo",
			wantErr:  "the model stream went silent for 50ms after 2 chunks",
			requests: 1,
		},
		{
			name:     "silent before the first chunk is retried",
			replies:  []fakegemini.Reply{fakegemini.Text("lost").StallAfter(0), fakegemini.Text("answer")},
			wantText: "answer",
			requests: 2,
		},
		{
			name:     "silent on every attempt",
			replies:  []fakegemini.Reply{fakegemini.Text("a").StallAfter(0), fakegemini.Text("b").StallAfter(0)},
			wantErr:  "the model stream went silent for 50ms before its first chunk",
			requests: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, tt.replies...)
			m, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			r := model.WithRetry(m, model.RetryOptions{
				MaxAttempts: 2, InitialDelay: time.Millisecond,
				FirstChunkTimeout: idle, StreamIdleTimeout: idle,
			})
			chunks, err := collect(t, r.GenerateContentStream(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: userText("hi")}))
			if got := text(chunks); got != tt.wantText {
				t.Errorf("text = %q, want %q", got, tt.wantText)
			}
			var ie *model.StreamIdleError
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr || !errors.As(err, &ie)):
				t.Errorf("err = %v, want a StreamIdleError %q", err, tt.wantErr)
			}
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
		})
	}
}

// Cancelling the caller's context ends a silent stream at once, with the
// caller's cancellation rather than an idle error.
func TestSilentStreamCancelled(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("one", "two").StallAfter(1))
	m, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	r := model.WithRetry(m, model.RetryOptions{StreamIdleTimeout: -1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var err2 error
	for _, e := range r.GenerateContentStream(ctx, &model.Request{Model: "gemini-2.5-pro", Contents: userText("hi")}) {
		if e != nil {
			err2 = e
			break
		}
		cancel() // after the first chunk: the read of the second must end
	}
	if !errors.Is(err2, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err2)
	}
}

// A call answering at once (the router's, compression's) whose server
// never answers ends within the first chunk's time, as a silent stream
// does, and is retried: it no longer waits forever.
func TestSilentUnaryCallEnds(t *testing.T) {
	const first = 50 * time.Millisecond
	for _, tt := range []struct {
		name     string
		replies  []fakegemini.Reply
		want     string
		wantErr  string
		requests int
	}{
		{"retried", []fakegemini.Reply{fakegemini.Hang(), fakegemini.Text("answer")}, "answer", "", 2},
		{"silent on every attempt", []fakegemini.Reply{fakegemini.Hang(), fakegemini.Hang()}, "", "the model stream went silent for 50ms before its first chunk", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, tt.replies...)
			m, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			r := model.WithRetry(m, model.RetryOptions{MaxAttempts: 2, InitialDelay: time.Millisecond, FirstChunkTimeout: first})
			resp, err := r.GenerateContent(context.Background(), &model.Request{Model: "gemini-2.5-flash", Contents: userText("hi")})
			var ie *model.StreamIdleError
			switch {
			case tt.wantErr == "" && (err != nil || resp.Text() != tt.want):
				t.Errorf("GenerateContent = %v, %v; want %q", resp, err, tt.want)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr || !errors.As(err, &ie)):
				t.Errorf("err = %v, want a StreamIdleError %q", err, tt.wantErr)
			}
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
		})
	}
}
