package httpguard

import (
	"io"
	"net/http"
	"sync"
	"time"
)

// HeaderTimeout is how long every Castor listener waits for a request's
// headers (http.Server.ReadHeaderTimeout).
const HeaderTimeout = 10 * time.Second

// BodyTimeout is how long every Castor listener waits for a request's body
// by default (see ReadBodyWithin).
const BodyTimeout = 30 * time.Second

// ReadBodyWithin returns h with each request's body due within d of the
// request's arrival: a client that sends half a body and stalls has its
// connection closed instead of holding it open for ever. The deadline is
// lifted as soon as the body has been read to its end, because the
// connection's read deadline also governs the server's watch for a client
// going away: left in place it would end a long-lived response such as an
// SSE stream, which writes and never reads. http.Server.ReadTimeout has
// that flaw, hence this. A request without a body gets no deadline.
// d ≤ 0 returns h.
func ReadBodyWithin(h http.Handler, d time.Duration) http.Handler {
	if d <= 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			h.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(d)); err != nil {
			// Not a connection of net/http's (a test recorder): nothing
			// to guard.
			h.ServeHTTP(w, r)
			return
		}
		r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
		h.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the connection's read deadline once its body ends.
// net/http (1.26) lifts it too when it starts watching the connection at
// the body's end; this does not depend on that.
// A body the handler closes early keeps the deadline: net/http then reads
// what is left of it, which a stalled client must not drag out.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	once sync.Once
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.lift()
	}
	return n, err
}

func (b *deadlineBody) lift() {
	b.once.Do(func() { b.rc.SetReadDeadline(time.Time{}) })
}
