// Package netguard is Castor's one guard against server-side request
// forgery: it decides whether an address is on the public internet, for
// every place that connects where someone else chose the target (the
// web_fetch tool, which the model drives, and A2A push notifications,
// which a client configures).
//
// An address is classified once (Classify), IPv4 carried inside IPv6
// included: IPv4-mapped and -compatible, NAT64, 6to4 and Teredo addresses
// are judged by the IPv4 address they lead to, so 64:ff9b::7f00:1 is
// loopback like 127.0.0.1. Host names are judged where they are dialled
// (Control, a net.Dialer Control func): the check sees the address the
// connection goes to, after DNS, so a name that resolves differently the
// second time (DNS rebinding) cannot get round it. CheckHost is the early
// check of a URL's host, for an error before anything is dialled.
//
// A test of this package fails when a second guard appears elsewhere in
// the module (see TestOneGuard).
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"

	"github.com/castor-dev/castor/internal/lazy"
)

// Kind is what an address leads to, as far as a guard cares.
type Kind uint8

// The kinds of address. Only Public may be reached by a guarded client.
const (
	// Public is global unicast, reachable across the internet.
	Public Kind = iota
	// Loopback is this machine: 127.0.0.0/8, ::1.
	Loopback
	// Private is a private network: RFC 1918, unique local fc00::/7 and
	// the deprecated site-local fec0::/10.
	Private
	// LinkLocal is the local link: 169.254.0.0/16 (cloud metadata
	// services live there), fe80::/10.
	LinkLocal
	// Multicast is 224.0.0.0/4 and ff00::/8.
	Multicast
	// Unspecified is 0.0.0.0 and ::, which a connect treats as this
	// machine.
	Unspecified
	// SharedNAT is carrier-grade NAT space, 100.64.0.0/10 (RFC 6598):
	// the provider's network, not the internet.
	SharedNAT
	// Reserved is space that is not public unicast: "this network"
	// 0.0.0.0/8, documentation, benchmarking, protocol assignments,
	// 240.0.0.0/4 and broadcast, the IPv6 discard prefix, and IPv6
	// outside 2000::/3.
	Reserved
	// Invalid is the zero netip.Addr.
	Invalid
)

var kindNames = [...]string{
	Public: "public", Loopback: "loopback", Private: "private", LinkLocal: "link-local",
	Multicast: "multicast", Unspecified: "unspecified", SharedNAT: "carrier-grade NAT",
	Reserved: "reserved", Invalid: "invalid",
}

// String names the kind as error messages do.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Via is how an IPv6 address carries the IPv4 address it was judged by.
type Via uint8

// The ways IPv6 carries IPv4.
const (
	// Direct: the address was judged as itself.
	Direct Via = iota
	// Mapped is ::ffff:a.b.c.d, the IPv4 address itself on a dual
	// stack socket.
	Mapped
	// Compatible is the deprecated ::a.b.c.d.
	Compatible
	// NAT64 is the well-known prefix 64:ff9b::/96 (RFC 6052) and the
	// local-use 64:ff9b:1::/48 (RFC 8215): a translator connects to the
	// IPv4 address inside.
	NAT64
	// SixToFour is 2002::/16 (RFC 3056): the IPv4 address of the site's
	// relay in bits 16-47.
	SixToFour
	// Teredo is 2001::/32 (RFC 4380): the server's IPv4 address in bits
	// 32-63 and the client's, inverted, in the last 32 bits.
	Teredo
)

var viaNames = [...]string{Direct: "direct", Mapped: "IPv4-mapped", Compatible: "IPv4-compatible",
	NAT64: "NAT64", SixToFour: "6to4", Teredo: "Teredo"}

// String names the form.
func (v Via) String() string {
	if int(v) < len(viaNames) {
		return viaNames[v]
	}
	return "Via(" + strconv.Itoa(int(v)) + ")"
}

// Class is the verdict on one address.
type Class struct {
	// Kind is what the address leads to: for an IPv6 address carrying
	// IPv4, the kind of the worst IPv4 address inside.
	Kind Kind
	// Via is how the address carries IPv4, Direct if it does not.
	Via Via
	// IPv4 is the IPv4 address the kind comes from when Via is not
	// Direct.
	IPv4 netip.Addr
}

// Public reports whether a guarded client may connect to the address.
func (c Class) Public() bool { return c.Kind == Public }

// String describes the verdict: "loopback", "loopback (NAT64 of
// 127.0.0.1)".
func (c Class) String() string {
	if c.Via == Direct {
		return c.Kind.String()
	}
	return fmt.Sprintf("%s (%s of %s)", c.Kind, c.Via, c.IPv4)
}

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// ranges are the address ranges Classify knows, parsed on first use.
type ranges struct {
	v4Private, v4Reserved, v6Private, v6Reserved []netip.Prefix

	v4Shared, v6Global                  netip.Prefix
	v6Mapped, v6Compatible, v6NAT64     netip.Prefix
	v6NAT64Local, v6SixToFour, v6Teredo netip.Prefix
}

var nets = lazy.Value[*ranges]{New: func() *ranges {
	return &ranges{
		v4Private: prefixes("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"),
		v4Shared:  netip.MustParsePrefix("100.64.0.0/10"),
		// v4Reserved follows the IANA special-purpose registry: "this
		// network", IETF protocol assignments, documentation, the retired
		// 6to4 relay anycast, benchmarking, future use and broadcast.
		v4Reserved: prefixes("0.0.0.0/8", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24",
			"198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4"),

		v6Mapped:     netip.MustParsePrefix("::ffff:0:0/96"),
		v6Compatible: netip.MustParsePrefix("::/96"),
		v6NAT64:      netip.MustParsePrefix("64:ff9b::/96"),
		v6NAT64Local: netip.MustParsePrefix("64:ff9b:1::/48"),
		v6SixToFour:  netip.MustParsePrefix("2002::/16"),
		v6Teredo:     netip.MustParsePrefix("2001::/32"),
		v6Private:    prefixes("fc00::/7", "fec0::/10"),
		v6Global:     netip.MustParsePrefix("2000::/3"),
		// v6Reserved is what 2000::/3 holds that is not the internet:
		// IETF protocol assignments (Teredo, checked before, aside),
		// documentation (two ranges) and SRv6 segment identifiers. The
		// discard prefix 100::/64 is outside 2000::/3 anyway.
		v6Reserved: prefixes("2001::/23", "2001:db8::/32", "3fff::/20", "5f00::/16"),
	}
}}

// Classify judges an address. A zone (fe80::1%eth0) does not change the
// verdict.
func Classify(a netip.Addr) Class {
	switch {
	case !a.IsValid():
		return Class{Kind: Invalid}
	case a.Is4():
		return Class{Kind: classify4(a)}
	}
	n := nets.Get()
	a = a.WithZone("")
	b := a.As16()
	switch {
	case n.v6Mapped.Contains(a):
		return embedded(Mapped, a.Unmap())
	case a == netip.IPv6Unspecified():
		return Class{Kind: Unspecified}
	case a == netip.IPv6Loopback():
		return Class{Kind: Loopback}
	case n.v6Compatible.Contains(a):
		return embedded(Compatible, v4At(b, 12))
	case n.v6NAT64.Contains(a):
		return embedded(NAT64, v4At(b, 12))
	case n.v6NAT64Local.Contains(a):
		return nat64Local(b)
	case n.v6SixToFour.Contains(a):
		return embedded(SixToFour, v4At(b, 2))
	case n.v6Teredo.Contains(a):
		client := embedded(Teredo, netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}))
		if server := embedded(Teredo, v4At(b, 4)); client.Public() && !server.Public() {
			return server
		}
		return client
	case a.IsLinkLocalUnicast():
		return Class{Kind: LinkLocal}
	case a.IsMulticast():
		return Class{Kind: Multicast}
	case in(a, n.v6Private):
		return Class{Kind: Private}
	case !n.v6Global.Contains(a) || in(a, n.v6Reserved):
		return Class{Kind: Reserved}
	}
	return Class{Kind: Public}
}

// classify4 judges an IPv4 address.
func classify4(a netip.Addr) Kind {
	n := nets.Get()
	switch {
	case a.IsUnspecified():
		return Unspecified
	case a.IsLoopback():
		return Loopback
	case in(a, n.v4Private):
		return Private
	case a.IsLinkLocalUnicast():
		return LinkLocal
	case a.IsMulticast():
		return Multicast
	case n.v4Shared.Contains(a):
		return SharedNAT
	case in(a, n.v4Reserved):
		return Reserved
	}
	return Public
}

// embedded is the verdict on an IPv6 address that leads to v4.
func embedded(via Via, v4 netip.Addr) Class {
	return Class{Kind: classify4(v4), Via: via, IPv4: v4}
}

// nat64Local judges an address under the local-use NAT64 prefix, whose
// length the operator picks from /48 to /96 (RFC 6052 section 2.2): each
// length puts the IPv4 address elsewhere, so every placement is judged
// and the worst wins. A placement reading 0.0.0.0/8 is the zero padding
// of another length (a translator does not forward to "this network"),
// so it counts only when every placement reads so.
func nat64Local(b [16]byte) Class {
	// Octet 8 (bits 64-71) is always skipped; the IPv4 octets are
	// those after the prefix.
	placements := [][4]int{
		{12, 13, 14, 15}, // /96
		{9, 10, 11, 12},  // /64
		{7, 9, 10, 11},   // /56
		{6, 7, 9, 10},    // /48
	}
	var verdict, zero Class
	for _, p := range placements {
		c := embedded(NAT64, netip.AddrFrom4([4]byte{b[p[0]], b[p[1]], b[p[2]], b[p[3]]}))
		switch {
		case b[p[0]] == 0:
			if !zero.IPv4.IsValid() {
				zero = c
			}
		case !c.Public():
			return c
		case !verdict.IPv4.IsValid():
			verdict = c
		}
	}
	if !verdict.IPv4.IsValid() {
		return zero
	}
	return verdict
}

// v4At reads the IPv4 address at offset off of b.
func v4At(b [16]byte, off int) netip.Addr {
	return netip.AddrFrom4([4]byte(b[off : off+4]))
}

func in(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ParseHost reads the host part of a URL or dial address as an IP
// address: brackets, a zone and a trailing dot are allowed, and so are
// the legacy IPv4 forms inet_aton accepts and a system resolver may
// honour ("127.1", "0x7f.0.0.1", "2130706433"). ok is false for a name.
func ParseHost(host string) (a netip.Addr, ok bool) {
	h := host
	for _, trim := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimSuffix(strings.TrimPrefix(s, "["), "]") },
		func(s string) string { return strings.TrimSuffix(s, ".") },
	} {
		h = trim(h)
		if a, err := netip.ParseAddr(h); err == nil {
			return a, true
		}
	}
	return parseLegacy4(h)
}

// parseLegacy4 parses the inet_aton forms: one to four parts, each
// decimal, octal (leading 0) or hexadecimal (0x), the last filling the
// remaining bytes.
func parseLegacy4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var out [4]byte
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 0, 32)
		if err != nil || p == "" || p[0] == '+' || strings.ContainsRune(p, '_') || strings.HasPrefix(p, "0b") ||
			strings.HasPrefix(p, "0o") || strings.HasPrefix(p, "0B") || strings.HasPrefix(p, "0O") {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 0xff {
				return netip.Addr{}, false
			}
			out[i] = byte(n)
			continue
		}
		rest := 4 - i
		if rest < 4 && n>>(8*rest) != 0 {
			return netip.Addr{}, false
		}
		for j := 3; j >= i; j-- {
			out[j] = byte(n)
			n >>= 8
		}
	}
	return netip.AddrFrom4(out), true
}

// ErrForbidden is what every refusal of this package matches with
// errors.Is.
var ErrForbidden = errors.New("not a public internet address")

// BlockedError is a refused host, with the verdict.
type BlockedError struct {
	// Host is the host as given.
	Host string
	// Class is the verdict; Kind is Loopback for a localhost name.
	Class Class
}

// Error names the host and why it was refused.
func (e *BlockedError) Error() string {
	return fmt.Sprintf("address %s is %s, not a public internet address", e.Host, e.Class)
}

// Is makes a BlockedError match ErrForbidden.
func (e *BlockedError) Is(target error) bool { return target == ErrForbidden }

// CheckHost refuses a URL host that names a non-public address or a
// localhost name ("localhost", "*.localhost", which resolvers answer
// locally). Other names pass: the address they resolve to is judged when
// dialled (Control).
func CheckHost(host string) error {
	h := strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return &BlockedError{Host: host, Class: Class{Kind: Loopback}}
	}
	a, ok := ParseHost(host)
	if !ok {
		return nil
	}
	if c := Classify(a); !c.Public() {
		return &BlockedError{Host: host, Class: c}
	}
	return nil
}

// Control is a net.Dialer Control func that refuses connections to
// non-public addresses. It runs after name resolution, once per address
// tried, so the address judged is the one connected to.
func Control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return &BlockedError{Host: host, Class: Class{Kind: Invalid}}
	}
	if c := Classify(a); !c.Public() {
		return &BlockedError{Host: host, Class: c}
	}
	return nil
}
