package httpguard_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/httpguard"
)

func TestCheck(t *testing.T) {
	loopback := httpguard.Options{ListenHost: "127.0.0.1", Hosts: []string{"proxy.example", "pinned.example:8443"}, Origins: []string{"https://UI.example/"}, JSONBodies: true, HostHint: "add it"}
	every := httpguard.Options{ListenHost: "0.0.0.0"}
	for _, tt := range []struct {
		name   string
		o      httpguard.Options
		method string
		host   string
		origin string
		ctype  string
		body   string
		status int
		inWhy  string
	}{
		{"loopback IP", loopback, "GET", "127.0.0.1:4000", "", "", "", 0, ""},
		{"localhost", loopback, "GET", "LOCALHOST.:4000", "", "", "", 0, ""},
		{"IPv6 loopback", loopback, "GET", "[::1]:4000", "", "", "", 0, ""},
		{"no Host", loopback, "GET", "", "", "", "", 0, ""},
		{"operator's name", loopback, "GET", "proxy.example", "", "", "", 0, ""},
		{"operator's name and port", loopback, "GET", "pinned.example:8443", "", "", "", 0, ""},
		{"operator's name, other port", loopback, "GET", "pinned.example:9000", "", "", "", 421, "pinned.example:9000"},
		{"rebinding", loopback, "GET", "evil.example:4000", "", "", "", 421, "(add it)"},
		{"other IP on loopback", loopback, "GET", "10.0.0.5:4000", "", "", "", 421, "10.0.0.5"},
		{"any IP on 0.0.0.0", every, "GET", "10.0.0.5:4000", "", "", "", 0, ""},
		{"name on 0.0.0.0", every, "GET", "evil.example", "", "", "", 421, "evil.example"},
		{"same origin", loopback, "POST", "127.0.0.1:4000", "http://127.0.0.1:4000", "application/json", "{}", 0, ""},
		{"operator's origin", loopback, "POST", "127.0.0.1:4000", "https://ui.example", "application/json", "{}", 0, ""},
		{"foreign origin", loopback, "POST", "127.0.0.1:4000", "https://evil.example", "application/json", "{}", 403, "https://evil.example"},
		{"other local port", loopback, "POST", "127.0.0.1:4000", "http://127.0.0.1:3000", "application/json", "{}", 403, "3000"},
		{"null origin", loopback, "POST", "127.0.0.1:4000", "null", "application/json", "{}", 403, "null"},
		{"text/plain", loopback, "POST", "127.0.0.1:4000", "", "text/plain", "{}", 415, "text/plain"},
		{"multipart", loopback, "POST", "127.0.0.1:4000", "", "multipart/form-data; boundary=x", "{}", 415, "multipart"},
		{"bad media type", loopback, "POST", "127.0.0.1:4000", "", "json;;", "{}", 415, "json;;"},
		{"no type, body", loopback, "POST", "127.0.0.1:4000", "", "", "{}", 415, "Content-Type"},
		{"no type, no body", loopback, "POST", "127.0.0.1:4000", "", "", "", 0, ""},
		{"charset", loopback, "POST", "127.0.0.1:4000", "", "application/json; charset=utf-8", "{}", 0, ""},
		{"+json", loopback, "PUT", "127.0.0.1:4000", "", "application/a2a+json", "{}", 0, ""},
		{"GET body not checked", loopback, "GET", "127.0.0.1:4000", "", "text/plain", "x", 0, ""},
		{"bodies not checked", every, "POST", "127.0.0.1:4000", "", "text/plain", "x", 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/", strings.NewReader(tt.body))
			r.Host = tt.host
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			if tt.ctype != "" {
				r.Header.Set("Content-Type", tt.ctype)
			}
			why := httpguard.New(tt.o).Check(r)
			switch {
			case tt.status == 0 && why != nil:
				t.Errorf("refused: %v", why)
			case tt.status != 0 && (why == nil || why.Status != tt.status || !strings.Contains(why.Reason, tt.inWhy)):
				t.Errorf("got %+v, want %d with %q", why, tt.status, tt.inWhy)
			}
		})
	}
}

// TestHandlerCORS: an allowed cross-origin caller gets CORS headers and
// its preflight is answered; a foreign one's preflight is refused.
func TestHandlerCORS(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	h := httpguard.New(httpguard.Options{ListenHost: "127.0.0.1", Origins: []string{"https://ui.example"}, JSONBodies: true}).Handler(next, nil)
	do := func(method, origin string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "http://127.0.0.1:4000/", nil)
		r.Header.Set("Origin", origin)
		if method == http.MethodOptions {
			r.Header.Set("Access-Control-Request-Method", "POST")
			r.Header.Set("Access-Control-Request-Headers", "content-type, authorization")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := do("OPTIONS", "https://ui.example"); w.Code != 204 || w.Header().Get("Access-Control-Allow-Origin") != "https://ui.example" || w.Header().Get("Access-Control-Allow-Headers") != "content-type, authorization" {
		t.Errorf("allowed preflight: %d %v", w.Code, w.Header())
	}
	if w := do("GET", "https://ui.example"); w.Code != 200 || w.Body.String() != "ok" || w.Header().Get("Access-Control-Allow-Origin") != "https://ui.example" {
		t.Errorf("allowed GET: %d %v", w.Code, w.Header())
	}
	if w := do("OPTIONS", "https://evil.example"); w.Code != 403 || w.Header().Get("Access-Control-Allow-Origin") != "" || !strings.Contains(w.Body.String(), `"error"`) {
		t.Errorf("foreign preflight: %d %v %s", w.Code, w.Header(), w.Body)
	}
}

// FuzzCheck: any Host, Origin and Content-Type a client sends is judged
// without a panic, and a refusal names a status and a reason.
func FuzzCheck(f *testing.F) {
	f.Add("127.0.0.1:80", "http://127.0.0.1:80", "application/json")
	f.Add("[::1", "http://[::1", "text/plain;charset")
	f.Add("evil.example.", "null", "")
	g := httpguard.New(httpguard.Options{ListenHost: "::", Hosts: []string{"a.example"}, Origins: []string{"https://ui.example"}, JSONBodies: true})
	f.Fuzz(func(t *testing.T, host, origin, ctype string) {
		r := httptest.NewRequest("POST", "/", strings.NewReader("{}"))
		r.Host = host
		r.Header.Set("Origin", origin)
		r.Header.Set("Content-Type", ctype)
		if why := g.Check(r); why != nil && (why.Status < 400 || why.Reason == "" || why.What == "") {
			t.Errorf("refusal %+v", why)
		}
	})
}
