package host

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/castor-dev/castor/a2a/internal/jsonrpc"
	"github.com/castor-dev/castor/internal/jsonerr"
)

// Token is the bearer token a face's clients must send ("Authorization:
// Bearer <token>"); the zero Token admits everyone.
type Token struct {
	sum [32]byte
	set bool
}

// NewToken returns the Token tok, or the zero Token for "".
func NewToken(tok string) Token {
	if tok == "" {
		return Token{}
	}
	return Token{sum: sha256.Sum256([]byte(tok)), set: true}
}

// Admits reports whether r carries the token.
func (t Token) Admits(r *http.Request) bool {
	if !t.set {
		return true
	}
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	// Comparing digests keeps the comparison constant-time whatever the
	// token's length.
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(sum[:], t.sum[:]) == 1
}

// ReadJSON reads a request body (ReadBody) holding one JSON value into
// v; an empty body leaves v as it was. It fails with the HTTP status to
// answer, and an error that names a value of the wrong kind in the
// JSON's terms (jsonerr), not the server's Go types.
func ReadJSON(r *http.Request, v any) (int, error) {
	b, status, err := ReadBody(r)
	if err != nil {
		return status, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return 0, nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return http.StatusBadRequest, fmt.Errorf("invalid JSON body: %s", jsonerr.Describe(err))
	}
	return 0, nil
}

// Guard lets requests carrying the token through to h, their bodies
// bounded to maxBody bytes (ReadBody reports a longer one), and answers
// others 401 with a Bearer challenge for realm and a JSON error.
func (t Token) Guard(h http.Handler, realm string, maxBody int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !t.Admits(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`"`)
			jsonrpc.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": "unauthorized: a valid bearer token is required"})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		h.ServeHTTP(w, r)
	})
}

// Loopback reports whether a listen host ("localhost", "127.0.0.1",
// "[::1]") only accepts connections from this machine, where a face may
// serve without a token.
func Loopback(host string) bool {
	h := strings.Trim(host, "[]")
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// ReadBody reads a request body, which http.MaxBytesReader bounds (the
// face's Limits.MaxBodyBytes). It fails with the HTTP status to answer:
// 413 past the limit, 400 for a body that could not be read.
func ReadBody(r *http.Request) ([]byte, int, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("request body larger than %d bytes", mb.Limit)
		}
		return nil, http.StatusBadRequest, err
	}
	return b, 0, nil
}
