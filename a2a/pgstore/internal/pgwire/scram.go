package pgwire

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"
)

// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL runs it: the user name
// in the messages is empty (the startup message named the user). Over
// TLS the exchange is bound to the server's certificate when the server
// offers SCRAM-SHA-256-PLUS (RFC 5929's tls-server-end-point, the only
// binding PostgreSQL has), so that a man in the middle holding another
// certificate cannot relay the login even where sslmode does not verify
// certificates; libpq and pgconn do the same by default.

const (
	scramSHA256     = "SCRAM-SHA-256"
	scramSHA256Plus = "SCRAM-SHA-256-PLUS"
)

// maxIterations bounds the server's iteration count, which a hostile
// server could otherwise set to keep the client hashing (pgconn's bound).
var maxIterations = 10_000_000

// scram is one client's side of an exchange.
type scram struct {
	// gs2 is the GS2 header: "n,," without TLS, "y,," over TLS to a
	// server that offered no binding (so that a server which does offer
	// one sees the downgrade), "p=tls-server-end-point,," when bound.
	gs2 string
	// cbind is the binding's data: the hash of the server's certificate.
	cbind       []byte
	user        string
	password    []byte
	nonce       string
	firstBare   string
	salted      []byte
	authMessage []byte
	verified    bool
}

// newSCRAM starts an exchange with a random nonce. gs2 and cbind are as
// in scram.
func newSCRAM(user, password, gs2 string, cbind []byte) (*scram, error) {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	s := newSCRAMNonce(user, password, base64.RawStdEncoding.EncodeToString(b))
	s.gs2, s.cbind = gs2, cbind
	return s, nil
}

func newSCRAMNonce(user, password, nonce string) *scram {
	return &scram{gs2: "n,,", user: user, password: []byte(saslprep(password)), nonce: nonce}
}

// bound reports whether the exchange is bound to the TLS channel.
func (s *scram) bound() bool { return s.cbind != nil }

// first is the client-first-message.
func (s *scram) first() []byte {
	s.firstBare = "n=" + s.user + ",r=" + s.nonce
	return []byte(s.gs2 + s.firstBare)
}

// endPointHash is RFC 5929's tls-server-end-point data for the server's
// certificate: its hash by the certificate's own signature hash, SHA-256
// where that is MD5 or SHA-1 (or has none, as Ed25519: PostgreSQL's
// server fails such a binding, and so does the login).
func endPointHash(cert *x509.Certificate) []byte {
	switch cert.SignatureAlgorithm {
	case x509.SHA384WithRSA, x509.ECDSAWithSHA384, x509.SHA384WithRSAPSS:
		h := sha512.Sum384(cert.Raw)
		return h[:]
	case x509.SHA512WithRSA, x509.ECDSAWithSHA512, x509.SHA512WithRSAPSS:
		h := sha512.Sum512(cert.Raw)
		return h[:]
	}
	h := sha256.Sum256(cert.Raw)
	return h[:]
}

// final reads the server-first-message (r=nonce,s=salt,i=iterations) and
// returns the client-final-message with the proof.
func (s *scram) final(serverFirst []byte) ([]byte, error) {
	attrs := bytes.Split(serverFirst, []byte(","))
	if len(attrs) < 3 || !bytes.HasPrefix(attrs[0], []byte("r=")) || !bytes.HasPrefix(attrs[1], []byte("s=")) || !bytes.HasPrefix(attrs[2], []byte("i=")) {
		return nil, errors.New("invalid SCRAM server-first-message")
	}
	nonce := attrs[0][2:]
	if !bytes.HasPrefix(nonce, []byte(s.nonce)) || len(nonce) == len(s.nonce) {
		return nil, errors.New("invalid SCRAM nonce from the server")
	}
	salt, err := base64.StdEncoding.DecodeString(string(attrs[1][2:]))
	if err != nil {
		return nil, fmt.Errorf("invalid SCRAM salt from the server: %v", err)
	}
	iter, err := strconv.Atoi(string(attrs[2][2:]))
	if err != nil || iter < 1 || iter > maxIterations {
		return nil, fmt.Errorf("invalid SCRAM iteration count from the server: %q", attrs[2][2:])
	}
	s.salted = hi(s.password, salt, iter)
	// c= is the GS2 header and the binding's data ("biws" is "n,,").
	withoutProof := "c=" + base64.StdEncoding.EncodeToString(append([]byte(s.gs2), s.cbind...)) + ",r=" + string(nonce)
	s.authMessage = []byte(s.firstBare + "," + string(serverFirst) + "," + withoutProof)
	clientKey := hmacSHA256(s.salted, []byte("Client Key"))
	storedKey := sha256.Sum256(clientKey)
	sig := hmacSHA256(storedKey[:], s.authMessage)
	for i := range sig {
		sig[i] ^= clientKey[i]
	}
	return []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(sig)), nil
}

// verify checks the server-final-message's signature (v=...), which
// proves the server knows the password too.
func (s *scram) verify(serverFinal []byte) error {
	v, ok := bytes.CutPrefix(serverFinal, []byte("v="))
	if !ok || s.salted == nil {
		return errors.New("invalid SCRAM server-final-message")
	}
	serverKey := hmacSHA256(s.salted, []byte("Server Key"))
	want := base64.StdEncoding.EncodeToString(hmacSHA256(serverKey, s.authMessage))
	if !hmac.Equal(v, []byte(want)) {
		return errors.New("invalid SCRAM server signature")
	}
	s.verified = true
	return nil
}

func hmacSHA256(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

// hi is RFC 5802's Hi(): PBKDF2 with HMAC-SHA-256 for one block.
func hi(password, salt []byte, iter int) []byte {
	m := hmac.New(sha256.New, password)
	m.Write(salt)
	m.Write([]byte{0, 0, 0, 1})
	u := m.Sum(nil)
	out := bytes.Clone(u)
	for range iter - 1 {
		m.Reset()
		m.Write(u)
		u = m.Sum(u[:0])
		for i := range out {
			out[i] ^= u[i]
		}
	}
	return out
}

// saslprep prepares a password as PostgreSQL's pg_saslprep does (RFC
// 4013), or returns it as it is where PostgreSQL would use it as it is.
// ASCII is unchanged (PostgreSQL's shortcut). Otherwise non-ASCII spaces
// become spaces, the characters mapped to nothing go, the rest is NFKC
// normalized; a result holding a prohibited character, or breaking the
// bidirectional rule, means the password is used as it is. Unlike
// PostgreSQL, code points unassigned in Unicode 3.2 are not looked for: a
// password mixing such a character (an emoji, say) with one NFKC changes
// is prepared here where PostgreSQL uses it raw, and does not log in.
func saslprep(p string) string {
	ascii := true
	for i := 0; i < len(p); i++ {
		if p[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || !utf8.ValidString(p) {
		return p
	}
	mapped := make([]rune, 0, len(p))
	for _, r := range p {
		switch {
		case isNonASCIISpace(r):
			mapped = append(mapped, ' ')
		case isMappedToNothing(r):
		default:
			mapped = append(mapped, r)
		}
	}
	out := norm.NFKC.String(string(mapped))
	if out == "" {
		return p
	}
	var randAL, l bool
	for _, r := range out {
		if isProhibited(r) {
			return p
		}
		props, _ := bidi.LookupRune(r)
		switch props.Class() {
		case bidi.R, bidi.AL:
			randAL = true
		case bidi.L:
			l = true
		}
	}
	if randAL {
		first, _ := utf8.DecodeRuneInString(out)
		last, _ := utf8.DecodeLastRuneInString(out)
		if l || !isRandAL(first) || !isRandAL(last) {
			return p
		}
	}
	return out
}

func isRandAL(r rune) bool {
	props, _ := bidi.LookupRune(r)
	return props.Class() == bidi.R || props.Class() == bidi.AL
}

// isNonASCIISpace is RFC 3454's table C.1.2.
func isNonASCIISpace(r rune) bool {
	return r == 0xA0 || r == 0x1680 || (r >= 0x2000 && r <= 0x200B) || r == 0x202F || r == 0x205F || r == 0x3000
}

// isMappedToNothing is RFC 3454's table B.1.
func isMappedToNothing(r rune) bool {
	switch {
	case r == 0xAD, r == 0x34F, r == 0x1806, r >= 0x180B && r <= 0x180D, r >= 0x200B && r <= 0x200D,
		r == 0x2060, r >= 0xFE00 && r <= 0xFE0F, r == 0xFEFF:
		return true
	}
	return false
}

// isProhibited is RFC 4013's prohibited output: RFC 3454's tables C.1.2,
// C.2.1, C.2.2, C.3, C.4, C.5, C.6, C.7, C.8 and C.9.
func isProhibited(r rune) bool {
	switch {
	case isNonASCIISpace(r),
		r < 0x20, r >= 0x7F && r <= 0x9F, // C.2.1, C.2.2
		r == 0x6DD, r == 0x70F, r == 0x180E, r == 0x200C, r == 0x200D, r == 0x2028, r == 0x2029,
		r >= 0x2060 && r <= 0x2063, r >= 0x206A && r <= 0x206F, r == 0xFEFF, r >= 0xFFF9 && r <= 0xFFFC,
		r >= 0x1D173 && r <= 0x1D17A,
		r >= 0xE000 && r <= 0xF8FF, r >= 0xF0000 && r <= 0xFFFFD, r >= 0x100000 && r <= 0x10FFFD, // C.3
		r >= 0xFDD0 && r <= 0xFDEF, r&0xFFFE == 0xFFFE, // C.4
		r >= 0xD800 && r <= 0xDFFF,                                                   // C.5
		r >= 0xFFF9 && r <= 0xFFFD,                                                   // C.6
		r >= 0x2FF0 && r <= 0x2FFB,                                                   // C.7
		r == 0x340, r == 0x341, r == 0x200E, r == 0x200F, r >= 0x202A && r <= 0x202E, // C.8
		r == 0xE0001, r >= 0xE0020 && r <= 0xE007F: // C.9
		return true
	}
	return false
}
