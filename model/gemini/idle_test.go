package gemini_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/gemini"
)

// A model request that meets a kept-alive connection as the server closes
// it (a gateway's idle timeout) is sent again on a new connection, at
// once: under a burst of A2A turns over an HTTP/1.1 proxy, such turns
// ended without the model's answer ("server closed idle connection").
// The gateway here forwards to the fake, but drops the connection of the
// second request after reading it, without a word.
func TestRequestResentOnClosedConnection(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("one"), fakegemini.Text("two"))
	gw := srv.DroppingGateway(t, 2)

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	m, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: gw.URL, HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"one", "two"} {
		chunks, err := collect(t, m.GenerateContentStream(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: userText("hi")}))
		if err != nil {
			t.Fatalf("call for %q: %v", want, err)
		}
		if got := text(chunks); got != want {
			t.Errorf("text = %q, want %q", got, want)
		}
	}
	if n, d := gw.Requests.Load(), gw.Conns.Load(); n != 3 || d != 2 {
		t.Errorf("the gateway saw %d requests on %d connections, want 3 on 2", n, d)
	}
	// The mark that makes net/http resend the request is not sent.
	if h := srv.LastRequest().Header; h.Get("Idempotency-Key") != "" || len(h.Values("Idempotency-Key")) > 0 {
		t.Errorf("Idempotency-Key sent: %q", h.Values("Idempotency-Key"))
	}
}
