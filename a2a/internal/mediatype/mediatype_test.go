package mediatype

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const alias = "application/a2a+json"

func TestAsJSON(t *testing.T) {
	for _, tt := range []struct {
		name     string
		reqType  string // the request's Content-Type
		answer   string // the Content-Type the handler answers with
		sawType  string // what the handler saw
		wantType string // what the client gets
	}{
		{"alias, JSON answer", alias, "application/json", "application/json", alias},
		{"alias with parameters", alias + "; charset=utf-8", "application/json; charset=utf-8", "application/json", alias},
		{"alias, event stream", alias, "text/event-stream", "application/json", "text/event-stream"},
		{"plain JSON is left alone", "application/json", "application/json", "application/json", "application/json"},
		{"no type is left alone", "", "application/json", "", "application/json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
			if tt.reqType != "" {
				r.Header.Set("Content-Type", tt.reqType)
			}
			rec := httptest.NewRecorder()
			w := AsJSON(rec, r, alias)
			if got := r.Header.Get("Content-Type"); got != tt.sawType {
				t.Errorf("handler saw Content-Type %q, want %q", got, tt.sawType)
			}
			w.Header().Set("Content-Type", tt.answer)
			w.Write([]byte("{}"))
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			if got := rec.Header().Get("Content-Type"); got != tt.wantType {
				t.Errorf("client got Content-Type %q, want %q", got, tt.wantType)
			}
		})
	}
}

// The status written before any body is labelled too, and the wrapped
// writer stays reachable (http.ResponseController).
func TestAsJSONWriteHeaderAndUnwrap(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Content-Type", alias)
	rec := httptest.NewRecorder()
	w := AsJSON(rec, r, alias)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	if rec.Code != http.StatusBadRequest || rec.Header().Get("Content-Type") != alias {
		t.Errorf("got %d %q, want 400 %q", rec.Code, rec.Header().Get("Content-Type"), alias)
	}
	if err := http.NewResponseController(w).Flush(); err != nil {
		t.Errorf("Flush through ResponseController: %v", err)
	}
	if !rec.Flushed {
		t.Error("the recorder was not flushed")
	}
}
