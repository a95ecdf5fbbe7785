package gemini_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/gemini"
)

// A model request whose connection breaks while it is being written (a
// proxy's idle timeout firing under a long request) is sent again at
// once on a new connection, without the retrier's backoff: the server
// never received it. A server error still waits the backoff.
func TestRequestResentWhenCutWhileWriting(t *testing.T) {
	// Larger than loopback's socket buffers: the client is still writing
	// when the gateway resets the connection.
	long := strings.Repeat("history ", 2<<20)
	tests := []struct {
		name    string
		replies []fakegemini.Reply
		cut     func(int32) bool
		conns   int32
		sleeps  int
		want    string
	}{
		{"cut once", []fakegemini.Reply{fakegemini.Text("answer")}, func(n int32) bool { return n == 1 }, 2, 0, "answer"},
		{"server error", []fakegemini.Reply{fakegemini.Error(503, "overloaded"), fakegemini.Text("answer")}, func(int32) bool { return false }, 1, 1, "answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, tt.replies...)
			gw := fakegemini.CuttingGateway(t, srv.URL, tt.cut)
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			m, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: gw.URL, HTTPClient: &http.Client{Transport: tr}})
			if err != nil {
				t.Fatal(err)
			}
			sleeps := 0
			r := model.WithRetry(m, model.RetryOptions{Sleep: func(context.Context, time.Duration) error { sleeps++; return nil }})
			chunks, err := collect(t, r.GenerateContentStream(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: userText(long)}))
			if err != nil {
				t.Fatal(err)
			}
			if got := text(chunks); got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
			if sleeps != tt.sleeps {
				t.Errorf("the retrier waited its backoff %d times, want %d", sleeps, tt.sleeps)
			}
			if got := gw.Conns.Load(); got != tt.conns {
				t.Errorf("%d connections, want %d", got, tt.conns)
			}
		})
	}
}
