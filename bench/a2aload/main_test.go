package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

func TestTurnOf(t *testing.T) {
	body := []byte(`{"contents":[{"parts":[{"text":"Answer ok. [a2aload#7]"}]},{"parts":[{"text":"Answer ok. [a2aload#42]"}]}]}`)
	if n, ok := turnOf(body); !ok || n != 42 {
		t.Errorf("turnOf = %d, %v; want 42, true", n, ok)
	}
	for _, b := range []string{`{}`, `[a2aload#]`, `[a2aload#x]`, `[a2aload#12`} {
		if n, ok := turnOf([]byte(b)); ok {
			t.Errorf("turnOf(%s) = %d, want none", b, n)
		}
	}
}

func TestStats(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	if got := percentile(xs, 50); got != 3 {
		t.Errorf("p50 = %v", got)
	}
	if got := percentile(xs, 99); got != 5 {
		t.Errorf("p99 = %v", got)
	}
	if !math.IsNaN(percentile(nil, 50)) {
		t.Error("p50 of nothing is not NaN")
	}
	if got := median([]float64{4, math.NaN(), 1, 3, 2}); got != 2.5 {
		t.Errorf("median = %v", got)
	}
	if b := best([]float64{3, math.NaN(), 1}, true); b != 1 {
		t.Errorf("best lower = %v", b)
	}
	if b := best([]float64{3, math.NaN(), 1}, false); b != 3 {
		t.Errorf("best higher = %v", b)
	}
}

// The script must load in fakegemini, and its chunks must read replyText.
func TestWriteScript(t *testing.T) {
	for _, chunks := range []int{1, 3} {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		if err := writeScript(path, 4, chunks); err != nil {
			t.Fatal(err)
		}
		replies, err := fakegemini.LoadScript(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(replies) != 4 {
			t.Fatalf("%d replies", len(replies))
		}
		b, _ := os.ReadFile(path)
		line, _, _ := strings.Cut(string(b), "\n")
		if got := strings.Count(line, `"text"`); got != chunks {
			t.Errorf("chunks=%d: %d text parts", chunks, got)
		}
	}
}

// The proxy forwards a model call and charges it to the turn in its body.
func TestProxyChargesTurn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := writeScript(path, 2, 2); err != nil {
		t.Fatal(err)
	}
	replies, err := fakegemini.LoadScript(path)
	if err != nil {
		t.Fatal(err)
	}
	fake := fakegemini.Start(t, replies...)
	p, err := newModelProxy(fake.URL, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.capture(9)
	body := `{"contents":[{"role":"user","parts":[{"text":"Answer ok. [a2aload#9]"}]}]}`
	resp, err := http.Post(p.URL+"/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(out, []byte("a2aload")) {
		t.Fatalf("HTTP %d: %s", resp.StatusCode, out)
	}
	if mt := p.take(9); mt.calls != 1 || mt.d <= 0 {
		t.Errorf("turn 9: %+v", mt)
	}
	cr := p.capturedRequest()
	if cr == nil || string(cr.body) != body {
		t.Fatalf("captured %+v", cr)
	}
	// The replay of the captured request reaches the fake directly.
	d, err := replay(context.Background(), http.DefaultClient, fake.URL, cr, false)
	if err != nil || d <= 0 {
		t.Errorf("replay: %v, %v", d, err)
	}
	if un, fails := p.counts(); un != 0 || fails != 0 {
		t.Errorf("unassigned %d, failures %d", un, fails)
	}
}
