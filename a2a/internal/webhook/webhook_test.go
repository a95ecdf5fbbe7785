package webhook

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// errInvalid stands for the error of a malformed URL in TestCheckURL.
var errInvalid = errors.New("invalid URL")

func TestCheckURL(t *testing.T) {
	for _, tt := range []struct {
		url string
		// want is the error without allowPrivate; with it, only
		// errInvalid remains.
		want error
	}{
		{"https://example.com/hook", nil},
		{"http://93.184.216.34:8080/x", nil},
		{"http://[2606:4700::1111]/x", nil},
		{"http://100.63.255.255/", nil},    // just below CGNAT
		{"http://100.128.0.1/", nil},       // just above CGNAT
		{"http://localhost.example/", nil}, // only the localhost TLD is local

		{"http://127.0.0.1:9/x", ErrForbiddenTarget},
		{"http://127.8.9.10/", ErrForbiddenTarget},
		{"http://10.1.2.3/", ErrForbiddenTarget},
		{"http://172.16.0.1/", ErrForbiddenTarget},
		{"http://192.168.1.1/", ErrForbiddenTarget},
		{"http://169.254.169.254/latest/meta-data", ErrForbiddenTarget}, // cloud metadata
		{"http://100.64.0.1/", ErrForbiddenTarget},                      // CGNAT
		{"http://100.127.255.254/", ErrForbiddenTarget},
		{"http://0.0.0.0/", ErrForbiddenTarget},
		{"http://224.0.0.1/", ErrForbiddenTarget},
		{"http://[::1]/", ErrForbiddenTarget},
		{"http://[::]/", ErrForbiddenTarget},
		{"http://[fe80::1]/", ErrForbiddenTarget},
		{"http://[fd00::1]/", ErrForbiddenTarget},
		{"http://[ff02::1]/", ErrForbiddenTarget},
		{"http://[::ffff:127.0.0.1]/", ErrForbiddenTarget}, // IPv4-mapped
		{"http://[::ffff:10.0.0.1]/", ErrForbiddenTarget},
		{"http://[::ffff:100.64.1.1]/", ErrForbiddenTarget},
		{"http://[::ffff:169.254.169.254]/", ErrForbiddenTarget},
		{"http://[64:ff9b::7f00:1]/", ErrForbiddenTarget}, // NAT64 of 127.0.0.1
		{"http://[2002:7f00:1::1]/", ErrForbiddenTarget},  // 6to4 of 127.0.0.1
		{"http://127.1/", ErrForbiddenTarget},             // inet_aton's 127.0.0.1
		{"http://localhost:8080/", ErrForbiddenTarget},
		{"http://LocalHost./", ErrForbiddenTarget},
		{"http://app.localhost/", ErrForbiddenTarget},

		{"ftp://example.com/", errInvalid},
		{"/relative", errInvalid},
		{"https://", errInvalid},
		{"https://user:pw@example.com/", errInvalid},
		{"http://[::1", errInvalid},
	} {
		same := func(err, want error) bool {
			if want == errInvalid {
				return err != nil && err.Error() == "hook.url must be an absolute http(s) URL without credentials"
			}
			return err == want
		}
		if err := CheckURL("hook.url", tt.url, false); !same(err, tt.want) {
			t.Errorf("CheckURL(%q) = %v, want %v", tt.url, err, tt.want)
		}
		want := tt.want
		if want == ErrForbiddenTarget {
			want = nil
		}
		if err := CheckURL("hook.url", tt.url, true); !same(err, want) {
			t.Errorf("CheckURL(%q, allowPrivate) = %v, want %v", tt.url, err, want)
		}
	}
}

// hook is a webhook on 127.0.0.1 answering the statuses in order (the
// last one from then on) and recording what it got.
type hook struct {
	srv      *httptest.Server
	mu       sync.Mutex
	statuses []int
	got      []*http.Request
	bodies   []string
}

func newHook(t *testing.T, statuses ...int) *hook {
	h := &hook{statuses: statuses}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		status := h.statuses[min(len(h.got), len(h.statuses)-1)]
		h.got = append(h.got, r)
		h.bodies = append(h.bodies, string(b))
		h.mu.Unlock()
		if status == http.StatusFound {
			w.Header().Set("Location", "/elsewhere")
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) calls() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.got)
}

func TestSendRetries(t *testing.T) {
	for _, tt := range []struct {
		name     string
		statuses []int
		calls    int
		err      string
	}{
		{"ok", []int{200}, 1, ""},
		{"no content", []int{204}, 1, ""},
		{"5xx then ok", []int{503, 500, 202}, 3, ""},
		{"429 then ok", []int{429, 200}, 2, ""},
		{"always failing", []int{502}, 4, "webhook answered 502 Bad Gateway"},
		{"4xx is final", []int{404, 200}, 1, "webhook answered 404 Not Found"},
		{"redirect not followed", []int{302, 200}, 1, "webhook answered 302 Found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHook(t, tt.statuses...)
			s := NewSender(Options{AllowPrivate: true, Attempts: 4, Backoff: time.Millisecond, Timeout: time.Minute})
			hdr := http.Header{"X-Token": {"tok"}}
			err := s.Send(t.Context(), h.srv.URL+"/hook", hdr, []byte(`{"n":1}`))
			if (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
				t.Errorf("Send = %v, want %q", err, tt.err)
			}
			if h.calls() != tt.calls {
				t.Fatalf("%d calls, want %d", h.calls(), tt.calls)
			}
			for i, r := range h.got {
				if r.Method != http.MethodPost || r.URL.Path != "/hook" || r.Header.Get("Content-Type") != "application/json" ||
					r.Header.Get("X-Token") != "tok" || h.bodies[i] != `{"n":1}` {
					t.Errorf("call %d: %s %s %v %q", i, r.Method, r.URL, r.Header, h.bodies[i])
				}
			}
			if len(hdr) != 1 {
				t.Errorf("the caller's header changed: %v", hdr)
			}
		})
	}
}

// TestSendRefusesPrivate: without AllowPrivate, a webhook on loopback is
// refused when dialled (the URL check may have been passed by a name),
// and not tried again.
func TestSendRefusesPrivate(t *testing.T) {
	h := newHook(t, 200)
	s := NewSender(Options{Attempts: 4, Backoff: time.Millisecond, Timeout: time.Minute})
	if err := s.Send(t.Context(), h.srv.URL, nil, []byte(`{}`)); !errors.Is(err, ErrForbiddenTarget) {
		t.Errorf("Send = %v, want ErrForbiddenTarget", err)
	}
	if h.calls() != 0 {
		t.Errorf("the webhook was called %d times", h.calls())
	}
}

// TestSendStopsOnCancel: a delivery waiting to try again ends with its
// context.
func TestSendStopsOnCancel(t *testing.T) {
	called := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		called <- struct{}{}
	}))
	defer srv.Close()
	s := NewSender(Options{AllowPrivate: true, Attempts: 3, Backoff: time.Hour})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- s.Send(ctx, srv.URL, nil, []byte(`{}`)) }()
	<-called // now waiting an hour to try again
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Send = %v, want context.Canceled", err)
	}
}

func TestCoalescer(t *testing.T) {
	var (
		c       Coalescer
		wg      sync.WaitGroup
		version atomic.Int64
		runs    []int64
		started = make(chan struct{})
		release = make(chan struct{})
	)
	run := func() {
		if len(runs) == 0 {
			close(started)
			<-release
		}
		runs = append(runs, version.Load())
	}
	c.Trigger(&wg, run)
	<-started
	if !c.Busy() {
		t.Error("not busy during a run")
	}
	const n = 50
	for i := 1; i <= n; i++ {
		version.Store(int64(i))
		c.Trigger(&wg, run)
	}
	close(release)
	wg.Wait()
	if len(runs) != 2 || runs[1] != n {
		t.Errorf("runs saw versions %v, want [_ %d]", runs, n)
	}
	if c.Busy() {
		t.Error("busy after the runs")
	}
	// Idle again: the next trigger runs at once.
	c.Trigger(&wg, run)
	wg.Wait()
	if len(runs) != 3 {
		t.Errorf("%d runs, want 3", len(runs))
	}
}

// TestCoalescedDeliveries: N rapid notifications of a changing state to a
// slow webhook arrive as at most two deliveries, the last one the newest.
func TestCoalescedDeliveries(t *testing.T) {
	var (
		mu       sync.Mutex
		bodies   []string
		arrived  = make(chan struct{}, 1)
		unblock  = make(chan struct{})
		state    atomic.Int64
		c        Coalescer
		wg       sync.WaitGroup
		sender   = NewSender(Options{AllowPrivate: true, Attempts: 1, Timeout: time.Minute})
		notified = 0
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		first := len(bodies) == 1
		mu.Unlock()
		if first {
			arrived <- struct{}{}
			<-unblock // a slow webhook
		}
	}))
	defer srv.Close()
	deliver := func() {
		body := `{"state":` + strconv.FormatInt(state.Load(), 10) + `}`
		if err := sender.Send(t.Context(), srv.URL, nil, []byte(body)); err != nil {
			t.Error(err)
		}
	}
	const n = 20
	for i := 1; i <= n; i++ {
		state.Store(int64(i))
		c.Trigger(&wg, deliver)
		notified++
		if i == 1 {
			<-arrived
		}
	}
	close(unblock)
	wg.Wait()
	if len(bodies) > 2 || bodies[len(bodies)-1] != `{"state":20}` {
		t.Errorf("%d notifications delivered as %q", notified, bodies)
	}
}

// FuzzCheckURL: a URL CheckURL accepts is an absolute http(s) URL
// without credentials, and not a forbidden address.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://example.com/x", "http://127.0.0.1/", "http://[::ffff:10.0.0.1]:80/",
		"http://u:p@h/", "http://localhost./", "http://%31%32%37.0.0.1/", "HTTP://EXAMPLE.COM"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if CheckURL("url", raw, false) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			t.Fatalf("accepted %q", raw)
		}
		// Judged independently of netguard, by the standard library.
		if a, err := netip.ParseAddr(u.Hostname()); err == nil && (a.IsLoopback() || a.IsPrivate() ||
			a.IsLinkLocalUnicast() || a.IsMulticast() || a.IsUnspecified() || !a.IsGlobalUnicast()) {
			t.Fatalf("accepted forbidden %q", raw)
		}
	})
}
