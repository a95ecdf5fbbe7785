package codeassist_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/codeassist"
)

// A Code Assist request whose connection breaks while it is being
// written is sent again at once, without the retrier's backoff, as on
// the API-key path.
func TestRequestResentWhenCutWhileWriting(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("answer"))
	gw := fakegemini.CuttingGateway(t, srv.URL, func(n int32) bool { return n == 1 })
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	m := newModel(t, srv, func(c *codeassist.Config) {
		c.Endpoint = gw.URL
		c.HTTPClient = &http.Client{Transport: tr}
	})
	sleeps := 0
	r := model.WithRetry(m, model.RetryOptions{Sleep: func(context.Context, time.Duration) error { sleeps++; return nil }})
	req := request("gemini-2.5-pro")
	// Larger than loopback's socket buffers: the client is still writing
	// when the gateway resets the connection.
	req.Contents = []*genai.Content{genai.NewContentFromText(strings.Repeat("history ", 2<<20), genai.RoleUser)}
	chunks, err := collect(r.GenerateContentStream(context.Background(), req))
	if err != nil {
		t.Fatal(err)
	}
	if got := text(chunks); got != "answer" {
		t.Errorf("text = %q, want %q", got, "answer")
	}
	if sleeps != 0 {
		t.Errorf("the retrier waited its backoff %d times, want 0", sleeps)
	}
	if got := gw.Conns.Load(); got != 2 {
		t.Errorf("%d connections, want 2", got)
	}
}
