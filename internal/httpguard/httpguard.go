// Package httpguard is the door every HTTP listener Castor opens shares
// (the A2A server, the IDE companion, the OAuth loopback callbacks): it
// refuses what a web page in the user's browser can send to a server on
// this machine.
//
//   - Host: a page on a name the attacker controls can re-point that name
//     at 127.0.0.1 (DNS rebinding) and read the answers as its own; the
//     request then names the attacker's host. Only the names the listener
//     is reached by are accepted: loopback names and addresses, the listen
//     host, and the names the operator adds. Bound to every address
//     (0.0.0.0, ::), any IP address is accepted too, since a rebinding
//     page cannot make a browser send one, and the machine's host name.
//   - Origin: a browser names the page behind every cross-origin request
//     and every POST. Requests without an Origin (programs), from the
//     listener's own origin, or from an origin the operator allows pass;
//     the rest are refused, so that a page's "simple" POST (text/plain,
//     no preflight) never reaches a handler.
//   - Content-Type (Options.JSONBodies): a body a page can send without a
//     preflight is text/plain, a form or multipart; a JSON API refuses
//     them, so a page that slipped past the rest still cannot post.
//
// Ports are not compared: a browser connects to the port its URL names,
// so a Host naming another port cannot come from a page.
package httpguard

import (
	"encoding/json"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// Options say what a listener admits.
type Options struct {
	// ListenHost is the host the listener is bound to ("127.0.0.1",
	// "::", "my.host"); "" or an unspecified address means every one.
	ListenHost string
	// Hosts are more names (or name:port) clients reach the listener by,
	// such as a reverse proxy's; "*" accepts any Host.
	Hosts []string
	// Origins are the browser origins ("https://ui.example") allowed to
	// call the listener across origins, which are answered with CORS
	// headers; "*" allows any.
	Origins []string
	// JSONBodies refuses POST, PUT and PATCH bodies that are not JSON
	// (application/json, any +json type, with any parameters) with 415.
	JSONBodies bool
	// HostHint and OriginHint end the refusals' reasons: how the operator
	// admits a name or an origin ("--allowed-host adds names").
	HostHint, OriginHint string
}

// Guard checks requests against Options; its methods are safe for
// concurrent use.
type Guard struct {
	o       Options
	anyHost bool
	anyIP   bool
	hosts   map[string]bool
	anyOrig bool
	origins map[string]bool
}

// New returns the Guard for o.
func New(o Options) *Guard {
	g := &Guard{o: o, hosts: map[string]bool{"localhost": true}, origins: map[string]bool{}}
	lh := normHost(o.ListenHost)
	if ip := net.ParseIP(lh); lh == "" || ip != nil && ip.IsUnspecified() {
		g.anyIP = true
		if h, err := os.Hostname(); err == nil {
			g.hosts[normHost(h)] = true
		}
	} else {
		g.hosts[lh] = true
	}
	for _, h := range o.Hosts {
		if h = strings.TrimSpace(h); h == "*" {
			g.anyHost = true
		} else if h != "" {
			g.hosts[normHost(h)] = true
		}
	}
	for _, o := range o.Origins {
		if o = strings.TrimSpace(o); o == "*" {
			g.anyOrig = true
		} else if o != "" {
			g.origins[normOrigin(o)] = true
		}
	}
	return g
}

// Refusal is why a request was refused.
type Refusal struct {
	// Status is the HTTP status to answer: 421 for a Host, 403 for an
	// Origin, 415 for a Content-Type.
	Status int
	// What names what was refused: "host", "origin" or "content-type".
	What string
	// Reason says it in the client's terms.
	Reason string
}

func (r *Refusal) Error() string { return r.Reason }

// normHost lowers a host name and drops IPv6 brackets and a trailing dot;
// a port is kept.
func normHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if host, port, err := net.SplitHostPort(h); err == nil {
		return net.JoinHostPort(strings.TrimSuffix(strings.Trim(host, "[]"), "."), port)
	}
	return strings.TrimSuffix(strings.Trim(h, "[]"), ".")
}

// normOrigin is an origin as a browser sends it: scheme://host[:port],
// lowered, without a path or trailing slash.
func normOrigin(o string) string {
	o = strings.ToLower(strings.TrimSpace(o))
	if u, err := url.Parse(o); err == nil && u.Scheme != "" && u.Host != "" {
		return u.Scheme + "://" + u.Host
	}
	return strings.TrimSuffix(o, "/")
}

// hostAllowed reports whether a request's Host names this listener.
func (g *Guard) hostAllowed(hostport string) bool {
	if hostport == "" || g.anyHost {
		// No Host: HTTP/1.0, which no browser sends.
		return true
	}
	full := normHost(hostport)
	name := full
	if h, _, err := net.SplitHostPort(full); err == nil {
		name = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	}
	if g.hosts[name] || g.hosts[full] {
		return true
	}
	if ip := net.ParseIP(name); ip != nil {
		return ip.IsLoopback() || g.anyIP
	}
	return false
}

// crossOrigin reports whether origin is another origin than the request's
// own (the page is not one this listener served).
func crossOrigin(r *http.Request, origin string) bool {
	u, err := url.Parse(origin)
	return err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host)
}

// Check refuses a request whose Host does not name the listener or whose
// Origin is a foreign page's, and with Options.JSONBodies one whose body
// is not JSON.
func (g *Guard) Check(r *http.Request) *Refusal {
	if !g.hostAllowed(r.Host) {
		return &Refusal{Status: http.StatusMisdirectedRequest, What: "host",
			Reason: hint(fmt.Sprintf("Host %q is not a name of this server, refused against DNS rebinding", r.Host), g.o.HostHint)}
	}
	if origin := r.Header.Get("Origin"); origin != "" && crossOrigin(r, origin) && !g.originAllowed(origin) {
		return &Refusal{Status: http.StatusForbidden, What: "origin",
			Reason: hint(fmt.Sprintf("Origin %q is not allowed: requests from web pages are refused", origin), g.o.OriginHint)}
	}
	if g.o.JSONBodies {
		return JSONBody(r)
	}
	return nil
}

func (g *Guard) originAllowed(origin string) bool {
	return g.anyOrig || g.origins[normOrigin(origin)]
}

func hint(reason, h string) string {
	if h == "" {
		return reason
	}
	return reason + " (" + h + ")"
}

// JSONBody refuses a POST, PUT or PATCH whose body is not JSON: its
// Content-Type must be application/json or a +json type (parameters such
// as charset allowed); a request without one passes only with an empty
// body.
func JSONBody(r *http.Request) *Refusal {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		if r.ContentLength == 0 {
			return nil
		}
		return &Refusal{Status: http.StatusUnsupportedMediaType, What: "content-type",
			Reason: "a request body needs Content-Type: application/json"}
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return &Refusal{Status: http.StatusUnsupportedMediaType, What: "content-type",
		Reason: fmt.Sprintf("Content-Type %q is not accepted: send application/json", ct)}
}

// RefuseFunc answers a refused request.
type RefuseFunc func(w http.ResponseWriter, r *http.Request, why *Refusal)

// WriteRefusal answers a refused request with its status and a JSON body
// {"error": reason}.
func WriteRefusal(w http.ResponseWriter, _ *http.Request, why *Refusal) {
	b, _ := json.Marshal(map[string]string{"error": why.Reason})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(why.Status)
	w.Write(append(b, '\n'))
}

// Handler serves requests that pass Check with next and answers the rest
// with refuse (nil: WriteRefusal). A cross-origin request from an allowed
// origin is answered with CORS headers, and its preflight (OPTIONS with
// Access-Control-Request-Method) here.
func (g *Guard) Handler(next http.Handler, refuse RefuseFunc) http.Handler {
	if refuse == nil {
		refuse = WriteRefusal
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		preflight := r.Method == http.MethodOptions && origin != "" && r.Header.Get("Access-Control-Request-Method") != ""
		check := r
		if preflight {
			// A preflight carries no body: its Host and Origin are checked.
			check = r.Clone(r.Context())
			check.Method = http.MethodGet
		}
		if why := g.Check(check); why != nil {
			refuse(w, r, why)
			return
		}
		if origin != "" && crossOrigin(r, origin) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			if preflight {
				h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE")
				if rh := r.Header.Get("Access-Control-Request-Headers"); rh != "" {
					h.Set("Access-Control-Allow-Headers", rh)
				}
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
			h.Set("Access-Control-Expose-Headers", "*")
		}
		next.ServeHTTP(w, r)
	})
}
