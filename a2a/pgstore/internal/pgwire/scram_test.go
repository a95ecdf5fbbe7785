package pgwire

import "testing"

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
