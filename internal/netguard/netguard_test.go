package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		addr string
		want Class
	}{
		// IPv4.
		{"8.8.8.8", Class{Kind: Public}},
		{"93.184.216.34", Class{Kind: Public}},
		{"0.0.0.0", Class{Kind: Unspecified}},
		{"0.1.2.3", Class{Kind: Reserved}},
		{"127.0.0.1", Class{Kind: Loopback}},
		{"127.8.9.10", Class{Kind: Loopback}},
		{"10.1.2.3", Class{Kind: Private}},
		{"172.16.0.1", Class{Kind: Private}},
		{"172.31.255.255", Class{Kind: Private}},
		{"172.32.0.1", Class{Kind: Public}},
		{"192.168.1.1", Class{Kind: Private}},
		{"169.254.169.254", Class{Kind: LinkLocal}},
		{"224.0.0.1", Class{Kind: Multicast}},
		{"239.255.255.250", Class{Kind: Multicast}},
		{"100.64.0.1", Class{Kind: SharedNAT}},
		{"100.127.255.254", Class{Kind: SharedNAT}},
		{"100.63.255.255", Class{Kind: Public}},
		{"100.128.0.1", Class{Kind: Public}},
		{"192.0.0.8", Class{Kind: Reserved}},
		{"192.0.2.1", Class{Kind: Reserved}},
		{"198.18.0.1", Class{Kind: Reserved}},
		{"198.51.100.7", Class{Kind: Reserved}},
		{"203.0.113.9", Class{Kind: Reserved}},
		{"240.0.0.1", Class{Kind: Reserved}},
		{"255.255.255.255", Class{Kind: Reserved}},

		// Native IPv6.
		{"2606:4700:4700::1111", Class{Kind: Public}},
		{"2001:4860:4860::8888", Class{Kind: Public}},
		{"::", Class{Kind: Unspecified}},
		{"::1", Class{Kind: Loopback}},
		{"fe80::1", Class{Kind: LinkLocal}},
		{"fe80::1%eth0", Class{Kind: LinkLocal}},
		{"fc00::1", Class{Kind: Private}},
		{"fd12:3456::1", Class{Kind: Private}},
		{"fec0::1", Class{Kind: Private}},
		{"ff02::1", Class{Kind: Multicast}},
		{"ff01::1", Class{Kind: Multicast}},
		{"ff05::2", Class{Kind: Multicast}},
		{"100::1", Class{Kind: Reserved}},
		{"2001:db8::1", Class{Kind: Reserved}},
		{"2001:2::1", Class{Kind: Reserved}},
		{"3fff::1", Class{Kind: Reserved}},
		{"4000::1", Class{Kind: Reserved}},
		{"::1:0:0:1", Class{Kind: Reserved}},

		// IPv4 inside IPv6.
		{"::ffff:127.0.0.1", Class{Loopback, Mapped, ip("127.0.0.1")}},
		{"::ffff:10.0.0.1", Class{Private, Mapped, ip("10.0.0.1")}},
		{"::ffff:100.100.100.100", Class{SharedNAT, Mapped, ip("100.100.100.100")}},
		{"::ffff:169.254.169.254", Class{LinkLocal, Mapped, ip("169.254.169.254")}},
		{"::ffff:8.8.8.8", Class{Public, Mapped, ip("8.8.8.8")}},
		{"::127.0.0.1", Class{Loopback, Compatible, ip("127.0.0.1")}},
		{"::8.8.8.8", Class{Public, Compatible, ip("8.8.8.8")}},
		{"64:ff9b::7f00:1", Class{Loopback, NAT64, ip("127.0.0.1")}},
		{"64:ff9b::a9fe:a9fe", Class{LinkLocal, NAT64, ip("169.254.169.254")}},
		{"64:ff9b::808:808", Class{Public, NAT64, ip("8.8.8.8")}},
		{"64:ff9b:1::7f00:1", Class{Loopback, NAT64, ip("127.0.0.1")}},      // local-use /96
		{"64:ff9b:1:7f00:0:100::", Class{Loopback, NAT64, ip("127.0.0.1")}}, // local-use /48
		{"64:ff9b:1:7f:0:1::", Class{Loopback, NAT64, ip("127.0.0.1")}},     // local-use /56
		{"64:ff9b:1:0:7f:0:100::", Class{Loopback, NAT64, ip("127.0.0.1")}}, // local-use /64
		{"64:ff9b:1:808:8:800::", Class{Public, NAT64, ip("8.8.0.0")}},      // local-use /48, read as /64
		{"64:ff9b:1::808:808", Class{Public, NAT64, ip("8.8.8.8")}},         // local-use /96
		{"64:ff9b:1::", Class{Unspecified, NAT64, ip("0.0.0.0")}},
		{"2002:7f00:1::1", Class{Loopback, SixToFour, ip("127.0.0.1")}},
		{"2002:c0a8:101::1", Class{Private, SixToFour, ip("192.168.1.1")}},
		{"2002:808:808::1", Class{Public, SixToFour, ip("8.8.8.8")}},
		// Teredo: server 65.54.227.120, client 127.0.0.1 inverted.
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", Class{Loopback, Teredo, ip("127.0.0.1")}},
		// Teredo: public client 8.8.8.8, private server 10.0.0.1.
		{"2001:0:a00:1::f7f7:f7f7", Class{Private, Teredo, ip("10.0.0.1")}},
		{"2001:0:4136:e378:8000:63bf:f7f7:f7f7", Class{Public, Teredo, ip("8.8.8.8")}},

		{"", Class{Kind: Invalid}},
	} {
		var a netip.Addr
		if tt.addr != "" {
			a = netip.MustParseAddr(tt.addr)
		}
		if got := Classify(a); got != tt.want {
			t.Errorf("Classify(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

func ip(s string) netip.Addr { return netip.MustParseAddr(s) }

func TestParseHost(t *testing.T) {
	for _, tt := range []struct {
		host string
		want string // "" for a name
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"127.0.0.1.", "127.0.0.1"},
		{"[::1]", "::1"},
		{"[fe80::1%eth0]", "fe80::1%eth0"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"0x7f.0.0.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"10.0x10203", "10.1.2.3"},
		{"4294967295", "255.255.255.255"},
		{"4294967296", ""},
		{"256.0.0.1", ""},
		{"1.2.3.4.5", ""},
		{"1..2", ""},
		{"08.0.0.1", ""},
		{"0b1.0.0.1", ""},
		{"1_0.0.0.1", ""},
		{"+1.0.0.1", ""},
		{"1.2.65536", ""},
		{"example.com", ""},
		{"localhost", ""},
		{"", ""},
	} {
		a, ok := ParseHost(tt.host)
		if tt.want == "" {
			if ok {
				t.Errorf("ParseHost(%q) = %v, want a name", tt.host, a)
			}
			continue
		}
		if !ok || a != netip.MustParseAddr(tt.want) {
			t.Errorf("ParseHost(%q) = %v, %v, want %s", tt.host, a, ok, tt.want)
		}
	}
}

func TestCheckHost(t *testing.T) {
	for _, tt := range []struct {
		host string
		want string // the error, "" for none
	}{
		{"example.com", ""},
		{"localhost.example", ""},
		{"8.8.8.8", ""},
		{"[2606:4700::1111]", ""},
		{"localhost", "address localhost is loopback, not a public internet address"},
		{"LocalHost.", "address LocalHost. is loopback, not a public internet address"},
		{"app.localhost", "address app.localhost is loopback, not a public internet address"},
		{"127.1", "address 127.1 is loopback, not a public internet address"},
		{"[::1]", "address [::1] is loopback, not a public internet address"},
		{"[64:ff9b::7f00:1]", "address [64:ff9b::7f00:1] is loopback (NAT64 of 127.0.0.1), not a public internet address"},
		{"2002:7f00:1::1", "address 2002:7f00:1::1 is loopback (6to4 of 127.0.0.1), not a public internet address"},
		{"169.254.169.254", "address 169.254.169.254 is link-local, not a public internet address"},
	} {
		err := CheckHost(tt.host)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckHost(%q) = %v", tt.host, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want || !errors.Is(err, ErrForbidden)):
			t.Errorf("CheckHost(%q) = %v, want %s", tt.host, err, tt.want)
		}
	}
}

// TestControlRefusesResolvedNames: a name is judged by the address it
// resolves to, at dial time, so "localhost" never reaches the server
// even when the URL check was skipped.
func TestControlRefusesResolvedNames(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ }))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	d := &net.Dialer{Control: Control}
	c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	t.Cleanup(c.CloseIdleConnections)
	for _, u := range []string{srv.URL, "http://localhost:" + port} {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, u, nil)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		var be *BlockedError
		if !errors.As(err, &be) || be.Class.Kind != Loopback || !errors.Is(err, ErrForbidden) {
			t.Errorf("GET %s: %v, want a loopback BlockedError", u, err)
		}
	}
	if hits != 0 {
		t.Errorf("the server was reached %d times", hits)
	}
	if err := Control("tcp", "8.8.8.8:443", nil); err != nil {
		t.Errorf("Control(8.8.8.8) = %v", err)
	}
	if err := Control("tcp", "not-an-address:80", nil); !errors.Is(err, ErrForbidden) {
		t.Errorf("Control(name) = %v, want refused", err)
	}
}

// embeddings are the IPv6 forms that lead to an IPv4 address.
func embeddings(v4 [4]byte) map[string]netip.Addr {
	inv := [4]byte{^v4[0], ^v4[1], ^v4[2], ^v4[3]}
	public := [4]byte{8, 8, 8, 8}
	six := func(prefix []byte, at []int, v [4]byte) netip.Addr {
		var b [16]byte
		copy(b[:], prefix)
		for i, off := range at {
			b[off] = v[i]
		}
		return netip.AddrFrom16(b)
	}
	tb := six([]byte{0x20, 0x01, 0, 0}, []int{4, 5, 6, 7}, public).As16()
	copy(tb[12:], inv[:])
	sb := six([]byte{0x20, 0x01, 0, 0}, []int{4, 5, 6, 7}, v4).As16()
	copy(sb[12:], []byte{^byte(8), ^byte(8), ^byte(8), ^byte(8)})
	return map[string]netip.Addr{
		"mapped":     netip.AddrFrom16(netip.AddrFrom4(v4).As16()),
		"nat64":      six([]byte{0, 0x64, 0xff, 0x9b}, []int{12, 13, 14, 15}, v4),
		"nat64/48":   six([]byte{0, 0x64, 0xff, 0x9b, 0, 1}, []int{6, 7, 9, 10}, v4),
		"nat64/56":   six([]byte{0, 0x64, 0xff, 0x9b, 0, 1}, []int{7, 9, 10, 11}, v4),
		"nat64/64":   six([]byte{0, 0x64, 0xff, 0x9b, 0, 1}, []int{9, 10, 11, 12}, v4),
		"nat64/96":   six([]byte{0, 0x64, 0xff, 0x9b, 0, 1}, []int{12, 13, 14, 15}, v4),
		"6to4":       six([]byte{0x20, 0x02}, []int{2, 3, 4, 5}, v4),
		"teredo":     netip.AddrFrom16(tb),
		"teredo-srv": netip.AddrFrom16(sb),
	}
}

// FuzzClassify: whichever way IPv6 carries an IPv4 address, a non-public
// IPv4 address stays non-public, and a public one is public (unless an
// embedding's other half, a Teredo server or another NAT64 placement,
// is not; and a local-use NAT64 placement reading 0.0.0.0/8 is taken
// for another placement's padding).
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "10.0.0.1", "8.8.8.8", "100.64.0.1", "0.0.0.0", "169.254.169.254", "224.0.0.1"} {
		f.Add(netip.MustParseAddr(s).AsSlice())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) != 4 {
			return
		}
		v4 := [4]byte(b)
		want := Classify(netip.AddrFrom4(v4))
		if want.Via != Direct {
			t.Fatalf("Classify(%v) = %v", v4, want)
		}
		for name, a := range embeddings(v4) {
			got := Classify(a)
			if !want.Public() && got.Public() && !(strings.HasPrefix(name, "nat64/") && v4[0] == 0) {
				t.Errorf("%s %s of %v: %v, want %v", name, a, netip.AddrFrom4(v4), got, want.Kind)
			}
			if !want.Public() && (name == "mapped" || name == "nat64" || name == "6to4" || name == "teredo") && got.Kind != want.Kind {
				t.Errorf("%s %s of %v: %v, want %v", name, a, netip.AddrFrom4(v4), got, want.Kind)
			}
		}
		for _, name := range []string{"mapped", "nat64", "6to4", "teredo"} {
			a := embeddings(v4)[name]
			if got := Classify(a); want.Public() && !got.Public() {
				t.Errorf("%s %s of public %v: %v", name, a, netip.AddrFrom4(v4), got)
			}
		}
	})
}

// FuzzParseHost: ParseHost never panics, agrees with netip where that
// parses, and CheckHost refuses every host that parses to a non-public
// address.
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"127.1", "0x7f.0.0.1", "2130706433", "[::1]", "fe80::1%eth0", "example.com", "1.2.3.4.", "64:ff9b::7f00:1", "0177.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		a, ok := ParseHost(host)
		if std, err := netip.ParseAddr(host); err == nil && (!ok || a != std) {
			t.Fatalf("ParseHost(%q) = %v, %v; netip says %v", host, a, ok, std)
		}
		if !ok {
			return
		}
		if !a.IsValid() {
			t.Fatalf("ParseHost(%q) = invalid address, ok", host)
		}
		c := Classify(a)
		if err := CheckHost(host); (err == nil) != c.Public() {
			t.Fatalf("CheckHost(%q) = %v, but %v classifies %v", host, err, a, c)
		}
		if c.Public() && (a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsMulticast() || a.IsUnspecified() || !a.IsGlobalUnicast()) {
			t.Fatalf("%v is public, but net/netip says otherwise", a)
		}
	})
}

func BenchmarkClassify(b *testing.B) {
	addrs := []netip.Addr{ip("8.8.8.8"), ip("2606:4700:4700::1111"), ip("64:ff9b::7f00:1"), ip("2001:0:4136:e378:8000:63bf:80ff:fffe"), ip("64:ff9b:1::808:808")}
	for i := 0; b.Loop(); i++ {
		Classify(addrs[i%len(addrs)])
	}
}
