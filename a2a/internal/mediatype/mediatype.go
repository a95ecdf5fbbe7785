// Package mediatype lets an HTTP handler that knows only application/json
// serve a media type that is JSON by another name (A2A 1.0's
// application/a2a+json, say): a request sent with it is read as JSON, and
// the JSON answer to it is labelled with it.
package mediatype

import (
	"net/http"
	"strings"
)

// AsJSON prepares r, whose Content-Type may be alias (with any
// parameters), for a handler that knows only application/json: it
// relabels the request as application/json and returns the writer to hand
// that handler, which labels a JSON answer alias. Answers of other types
// (an event stream) keep their label. A request of any other type is left
// alone, and w is returned as it is.
func AsJSON(w http.ResponseWriter, r *http.Request, alias string) http.ResponseWriter {
	if !strings.HasPrefix(r.Header.Get("Content-Type"), alias) {
		return w
	}
	r.Header.Set("Content-Type", "application/json")
	return &writer{w, alias}
}

type writer struct {
	http.ResponseWriter
	alias string
}

func (w *writer) relabel() {
	if h := w.Header(); strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		h.Set("Content-Type", w.alias)
	}
}

func (w *writer) WriteHeader(code int) { w.relabel(); w.ResponseWriter.WriteHeader(code) }

func (w *writer) Write(b []byte) (int, error) { w.relabel(); return w.ResponseWriter.Write(b) }

// Flush flushes the underlying writer, for streamed answers.
func (w *writer) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
