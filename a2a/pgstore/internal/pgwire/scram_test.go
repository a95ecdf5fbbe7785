package pgwire

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"strings"
	"testing"
)

// The exchange of RFC 7677, section 3: user "user", password "pencil".
func TestSCRAMVector(t *testing.T) {
	s := newSCRAMNonce("user", "pencil", "rOprNGfwEbeRWgbNEkqO")
	if got := string(s.first()); got != "n,,n=user,r=rOprNGfwEbeRWgbNEkqO" {
		t.Fatalf("client-first %q", got)
	}
	final, err := s.final([]byte("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="; string(final) != want {
		t.Fatalf("client-final\n%s\nwant\n%s", final, want)
	}
	if err := s.verify([]byte("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")); err != nil || !s.verified {
		t.Fatal(err)
	}
	if err := s.verify([]byte("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G5=")); err == nil {
		t.Fatal("a wrong server signature was accepted")
	}
}

func TestSCRAMServerFirstRefused(t *testing.T) {
	for _, bad := range []string{
		"",
		"r=other,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", // not our nonce
		"r=abc,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",   // no server part
		"r=abcd,s=!!,i=4096",
		"r=abcd,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0",
		"r=abcd,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=100000000", // too many
		"s=W22ZaJ0SNY7soEsUEjb6gQ==,r=abcd,i=4096",
	} {
		s := newSCRAMNonce("", "pencil", "abc")
		s.first()
		if _, err := s.final([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSASLprep(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"pencil", "pencil"},
		{"with space\t\x01", "with space\t\x01"}, // ASCII: as it is, controls too
		{"I\u00ADX", "IX"},                       // RFC 4013's examples: soft hyphen mapped to nothing,
		{"\u00AA", "a"},                          // NFKC,
		{"\u2168", "IX"},                         // NFKC,
		{"a\u00A0b", "a b"},                      // a non-ASCII space is a space
		{"\u0627\u0031", "\u0627\u0031"},         // prohibited by the bidi rule: as it is
		{"\u0627\u0031\u0628", "\u0627\u0031\u0628"},
		{"x\uE000\u00AA", "x\uE000\u00AA"}, // private use: prohibited, as it is
		{"caf\u00E9", "caf\u00E9"},
		{"cafe\u0301", "caf\u00E9"},
		{"\xff\u00AA", "\xff\u00AA"}, // not UTF-8: as it is
	} {
		if got := saslprep(c.in); got != c.want {
			t.Errorf("saslprep(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Bound to the TLS channel, the GS2 header names tls-server-end-point and
// the client-final message carries the header and the certificate's hash
// (c=), which the proof covers: a relay holding another certificate
// cannot reuse it.
func TestSCRAMChannelBinding(t *testing.T) {
	cbind := []byte("0123456789abcdef0123456789abcdef")
	for _, c := range []struct {
		gs2   string
		cbind []byte
	}{
		{"p=tls-server-end-point,,", cbind},
		{"y,,", nil},
		{"n,,", nil},
	} {
		s := newSCRAMNonce("", "pencil", "abc")
		s.gs2, s.cbind = c.gs2, c.cbind
		if got := string(s.first()); got != c.gs2+"n=,r=abc" {
			t.Errorf("%s: client-first %q", c.gs2, got)
		}
		final, err := s.final([]byte("r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
		if err != nil {
			t.Fatal(err)
		}
		want := "c=" + base64.StdEncoding.EncodeToString(append([]byte(c.gs2), c.cbind...)) + ",r=abcdef,p="
		if !strings.HasPrefix(string(final), want) {
			t.Errorf("%s: client-final %q, want it to start %q", c.gs2, final, want)
		}
		if s.bound() != (c.cbind != nil) {
			t.Errorf("%s: bound() = %v", c.gs2, s.bound())
		}
		other := newSCRAMNonce("", "pencil", "abc")
		other.first()
		plain, _ := other.final([]byte("r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
		if (string(plain) == string(final)) != (c.gs2 == "n,,") {
			t.Errorf("%s: the proof does not depend on the binding", c.gs2)
		}
	}
}

// RFC 5929: the certificate's hash by its signature's hash, SHA-256 for
// MD5, SHA-1 and SHA-256.
func TestEndPointHash(t *testing.T) {
	raw := []byte("a certificate")
	s256, s384, s512 := sha256.Sum256(raw), sha512.Sum384(raw), sha512.Sum512(raw)
	for _, c := range []struct {
		alg  x509.SignatureAlgorithm
		want []byte
	}{
		{x509.SHA1WithRSA, s256[:]},
		{x509.MD5WithRSA, s256[:]},
		{x509.ECDSAWithSHA256, s256[:]},
		{x509.SHA256WithRSAPSS, s256[:]},
		{x509.ECDSAWithSHA384, s384[:]},
		{x509.SHA384WithRSA, s384[:]},
		{x509.SHA512WithRSA, s512[:]},
		{x509.ECDSAWithSHA512, s512[:]},
	} {
		if got := endPointHash(&x509.Certificate{Raw: raw, SignatureAlgorithm: c.alg}); string(got) != string(c.want) {
			t.Errorf("%v: wrong hash", c.alg)
		}
	}
}
