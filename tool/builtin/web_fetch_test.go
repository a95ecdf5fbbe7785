package builtin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/tool"
)

const webTestPage = `<!doctype html>
<html><head><title>Test page</title><script>var secret = "do not show";</script><style>body{}</style></head>
<body>
<h1>Castor facts</h1>
<p>Castor is a <b>Go</b> port. See <a href="https://example.com/more">the docs</a>.</p>
<img src="logo.png" alt="logo">
<ul><li>fast</li><li>small</li></ul>
</body></html>`

// webTestServer serves a small site on 127.0.0.1 and counts requests.
func webTestServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, webTestPage)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "<b>not html</b> & plain")
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("a", 300000))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &hits
}

// webTestTool returns web_fetch allowed to reach loopback.
func webTestTool(env *Env) *WebFetchTool {
	t := NewWebFetch(env).(*WebFetchTool)
	t.HostBlocked = nil
	return t
}

func TestWebFetchPrimary(t *testing.T) {
	srv, hits := webTestServer(t)
	env, _ := auxTestEnv(t)
	gm := &genai.GroundingMetadata{
		GroundingChunks:   []*genai.GroundingChunk{{Web: &genai.GroundingChunkWeb{Title: "Castor facts", URI: srv.URL + "/page"}}, {}},
		GroundingSupports: []*genai.GroundingSupport{{Segment: &genai.Segment{EndIndex: 18}, GroundingChunkIndices: []int32{0, 1}}},
	}
	m := auxAnswer("Castor is a Go port. It is fast.", gm)
	env.Model = m
	prompt := "Summarize " + srv.URL + "/page & say <why>."
	r := fsRun(t, webTestTool(env), map[string]any{"prompt": prompt})
	want := "<untrusted_context>\nCastor is a Go por[1][2]t. It is fast.\n\nSources:\n[1] Castor facts (" + srv.URL + "/page)\n[2] Untitled (Unknown URI)\n</untrusted_context>"
	if r.Error != nil || r.LLMText != want {
		t.Errorf("LLMText = %q\nwant      %q", r.LLMText, want)
	}
	if r.Display != "Content processed from prompt." {
		t.Errorf("Display = %q", r.Display)
	}
	if hits.Load() != 0 {
		t.Errorf("primary path fetched the page itself")
	}
	reqs := m.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls", len(reqs))
	}
	req := reqs[0]
	if len(req.Config.Tools) != 1 || req.Config.Tools[0].URLContext == nil {
		t.Errorf("tools = %+v, want urlContext", req.Config.Tools)
	}
	text := auxRequestText(req)
	for _, s := range []string{"<user_instructions>\nSummarize " + srv.URL + "/page &amp; say &lt;why&gt;.\n</user_instructions>", "<authorized_urls>\n" + srv.URL + "/page\n</authorized_urls>"} {
		if !strings.Contains(text, s) {
			t.Errorf("prompt lacks %q:\n%s", s, text)
		}
	}
}

func TestWebFetchFallback(t *testing.T) {
	srv, _ := webTestServer(t)
	page := srv.URL + "/page"
	// answerSecond fails or empties the primary call and answers the
	// fallback call.
	answerSecond := func(first func() (*genai.GenerateContentResponse, error)) *auxFakeModel {
		return &auxFakeModel{respond: func(n int, req *model.Request) (*genai.GenerateContentResponse, error) {
			if n == 1 {
				return first()
			}
			return auxResponse("Castor is a fast, small Go port.", nil), nil
		}}
	}
	noneRetrieved := auxResponse("I could not open it.", nil)
	noneRetrieved.Candidates[0].URLContextMetadata = &genai.URLContextMetadata{URLMetadata: []*genai.URLMetadata{{RetrievedURL: page, URLRetrievalStatus: genai.URLRetrievalStatusError}}}
	tests := []struct {
		name  string
		model *auxFakeModel
	}{
		{"primary error", answerSecond(func() (*genai.GenerateContentResponse, error) { return nil, errors.New("urlContext unavailable") })},
		{"primary empty", answerSecond(func() (*genai.GenerateContentResponse, error) { return auxResponse("", nil), nil })},
		{"primary retrieved nothing", answerSecond(func() (*genai.GenerateContentResponse, error) { return noneRetrieved, nil })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _ := auxTestEnv(t)
			env.Model = tc.model
			r := fsRun(t, webTestTool(env), map[string]any{"prompt": "Summarize " + page})
			if r.Error != nil || r.LLMText != "<untrusted_context>\nCastor is a fast, small Go port.\n</untrusted_context>" {
				t.Fatalf("result = %+v", r)
			}
			if r.Display != "Content for 1 URL(s) processed using fallback fetch." {
				t.Errorf("Display = %q", r.Display)
			}
			reqs := tc.model.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls", len(reqs))
			}
			if reqs[1].Config != nil && len(reqs[1].Config.Tools) != 0 {
				t.Errorf("fallback call has tools")
			}
			prompt := auxRequestText(reqs[1])
			for _, s := range []string{
				"<user_instructions>\nSummarize " + page + "\n</user_instructions>",
				`<source url="` + page + "\">\n",
				"# Castor facts",
				"Castor is a **Go** port. See the docs.",
				"- fast",
			} {
				if !strings.Contains(prompt, s) {
					t.Errorf("fallback prompt lacks %q:\n%s", s, prompt)
				}
			}
			for _, s := range []string{"do not show", "example.com/more", "logo.png"} {
				if strings.Contains(prompt, s) {
					t.Errorf("fallback prompt contains %q", s)
				}
			}
		})
	}
}

func TestWebFetchFallbackOutcomes(t *testing.T) {
	srv, _ := webTestServer(t)
	tests := []struct {
		name    string
		prompt  string
		model   model.Model
		want    string // LLMText, "<SRV>" for the server URL
		wantErr tool.ErrorType
	}{
		{
			name:   "no model: the page text itself",
			prompt: "Read <SRV>/plain",
			want:   "<untrusted_context>\n<source url=\"<SRV>/plain\">\n&lt;b&gt;not html&lt;/b&gt; &amp; plain\n</source>\n</untrusted_context>",
		},
		{
			name:    "every fetch fails",
			prompt:  "Read <SRV>/missing and <SRV>/missing/",
			want:    "Error: All fallback fetch attempts failed: <SRV>/missing: Request failed with status code 404 Not Found",
			wantErr: tool.ErrWebFetchFallbackFailed,
		},
		{
			name:   "one of two fails",
			prompt: "Read <SRV>/missing and <SRV>/plain",
			want:   "<untrusted_context>\n<source url=\"<SRV>/missing\">\nError: Request failed with status code 404 Not Found\n</source>\n<source url=\"<SRV>/plain\">\n&lt;b&gt;not html&lt;/b&gt; &amp; plain\n</source>\n</untrusted_context>",
		},
		{
			name:    "fallback model fails",
			prompt:  "Read <SRV>/plain",
			model:   auxFailing(errors.New("overloaded")),
			want:    "Error: Error during fallback processing: overloaded",
			wantErr: tool.ErrWebFetchFallbackFailed,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _ := auxTestEnv(t)
			env.Model = tc.model
			r := fsRun(t, webTestTool(env), map[string]any{"prompt": strings.ReplaceAll(tc.prompt, "<SRV>", srv.URL)})
			want := strings.ReplaceAll(tc.want, "<SRV>", srv.URL)
			if r.LLMText != want {
				t.Errorf("LLMText = %q\nwant      %q", r.LLMText, want)
			}
			if tc.wantErr != "" {
				auxErrorIs(t, r, tc.wantErr, strings.TrimPrefix(want, "Error: "))
			} else if r.Error != nil {
				t.Errorf("error %v", r.Error)
			}
		})
	}
}

func TestWebFetchBudget(t *testing.T) {
	srv, _ := webTestServer(t)
	env, _ := auxTestEnv(t)
	r := fsRun(t, webTestTool(env), map[string]any{"prompt": "Read " + srv.URL + "/big"})
	if !strings.Contains(r.LLMText, strings.Repeat("a", webFetchBudget)+webFetchTruncated+"\n</source>") || strings.Contains(r.LLMText, strings.Repeat("a", webFetchBudget+1)) {
		t.Errorf("big page not cut to the budget (len %d)", len(r.LLMText))
	}

	pages := []*webPage{{content: strings.Repeat("c", 1000)}, {content: strings.Repeat("a", 10)}, {err: errors.New("x")}, {content: strings.Repeat("b", 100)}}
	webShareBudget(pages, 300)
	if pages[1].content != strings.Repeat("a", 10) || pages[3].content != strings.Repeat("b", 100) {
		t.Errorf("small pages cut: %d %d", len(pages[1].content), len(pages[3].content))
	}
	if pages[0].content != strings.Repeat("c", 190)+webFetchTruncated {
		t.Errorf("large page = %d chars", len(pages[0].content))
	}
}

func TestWebFetchBlockedHosts(t *testing.T) {
	srv, hits := webTestServer(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	port := host[strings.LastIndexByte(host, ':')+1:]

	t.Run("loopback blocked by default", func(t *testing.T) {
		env, _ := auxTestEnv(t)
		m := auxAnswer("should not be asked", nil)
		env.Model = m
		r := fsRun(t, NewWebFetch(env), map[string]any{"prompt": "Summarize " + srv.URL + "/page"})
		msg := "All requested URLs were skipped: [Blocked Host] " + srv.URL + "/page"
		if r.LLMText != "Error: "+msg {
			t.Errorf("LLMText = %q", r.LLMText)
		}
		auxErrorIs(t, r, tool.ErrWebFetchProcessingError, msg)
		if len(m.requests()) != 0 || hits.Load() != 0 {
			t.Error("blocked URL reached the model or the server")
		}
	})

	t.Run("skipped URLs are reported", func(t *testing.T) {
		env, _ := auxTestEnv(t)
		env.Model = auxAnswer("Answer.", nil)
		tl := webTestTool(env)
		tl.HostBlocked = func(h string) bool { return h == "localhost" }
		r := fsRun(t, tl, map[string]any{"prompt": "Compare http://localhost:" + port + "/page with " + srv.URL + "/page"})
		want := "<untrusted_context>\n[Warning] The following URLs were skipped:\n[Blocked Host] http://localhost:" + port + "/page\n\nAnswer.\n</untrusted_context>"
		if r.LLMText != want {
			t.Errorf("LLMText = %q\nwant      %q", r.LLMText, want)
		}
	})

	t.Run("names resolving to blocked addresses", func(t *testing.T) {
		env, _ := auxTestEnv(t)
		tl := webTestTool(env)
		tl.HostBlocked = func(h string) bool { return h == "127.0.0.1" || h == "::1" }
		before := hits.Load()
		r := fsRun(t, tl, map[string]any{"prompt": "Read http://localhost:" + port + "/page"})
		if r.Error == nil || r.Error.Type != tool.ErrWebFetchFallbackFailed || !strings.Contains(r.Error.Message, "blocked or private host") {
			t.Errorf("result = %+v", r.Error)
		}
		if hits.Load() != before {
			t.Error("the server was reached")
		}
	})

	t.Run("redirects to blocked hosts", func(t *testing.T) {
		redirect := httptest.NewServer(http.RedirectHandler("http://localhost:"+port+"/page", http.StatusFound))
		defer redirect.Close()
		env, _ := auxTestEnv(t)
		tl := webTestTool(env)
		tl.HostBlocked = func(h string) bool { return h == "localhost" }
		before := hits.Load()
		r := fsRun(t, tl, map[string]any{"prompt": "Read " + redirect.URL + "/start"})
		if r.Error == nil || !strings.Contains(r.Error.Message, "Access to blocked or private host http://localhost:"+port+"/page is not allowed.") {
			t.Errorf("result = %+v", r.Error)
		}
		if hits.Load() != before {
			t.Error("the redirect target was reached")
		}
	})
}

func TestWebFetchHostBlocked(t *testing.T) {
	tests := []struct {
		host    string
		blocked bool
	}{
		{"localhost", true}, {"LOCALHOST.", true}, {"app.localhost", true},
		{"127.0.0.1", true}, {"127.8.9.10", true}, {"::1", true}, {"[::1]", true},
		{"10.1.2.3", true}, {"172.16.0.1", true}, {"192.168.1.1", true}, {"169.254.169.254", true},
		{"100.64.0.1", true}, {"0.0.0.0", true}, {"198.18.0.1", true}, {"224.0.0.1", true},
		{"::ffff:127.0.0.1", true}, {"fc00::1", true}, {"fe80::1%eth0", true}, {"2001:db8::1", true},
		{"64:ff9b::7f00:1", true}, {"2002:7f00:1::1", true}, {"2001:0:4136:e378:8000:63bf:80ff:fffe", true}, {"127.1", true},
		{"8.8.8.8", false}, {"2606:4700:4700::1111", false}, {"example.com", false}, {"github.com", false},
		// NAT64 and 6to4 addresses of a public IPv4 address are public
		// (DNS64 networks give every IPv4-only site such an address).
		{"64:ff9b::808:808", false}, {"2002:808:808::1", false},
	}
	for _, tc := range tests {
		if got := WebFetchHostBlocked(tc.host); got != tc.blocked {
			t.Errorf("WebFetchHostBlocked(%q) = %v, want %v", tc.host, got, tc.blocked)
		}
	}
}

func TestWebParsePrompt(t *testing.T) {
	tests := []struct {
		prompt   string
		wantURLs []string
		wantErrs []string
	}{
		{"Summarize https://Example.COM and http://a.org/x?y=1#z", []string{"https://example.com/", "http://a.org/x?y=1#z"}, nil},
		{"See (https://en.wikipedia.org/wiki/Go_(programming_language)).", []string{"https://en.wikipedia.org/wiki/Go_(programming_language)"}, nil},
		{`Read "https://a.org/b", then https://c.org/d.`, []string{"https://a.org/b", "https://c.org/d"}, nil},
		{"Get ftp://files.org/x", nil, []string{`Unsupported protocol in URL: "ftp://files.org/x". Only http and https are supported.`}},
		{"Open http:// now", nil, []string{`Malformed URL detected: "http://".`}},
		{"Open ://nothing", nil, []string{`Malformed URL detected: "://nothing".`}},
		{"no urls here", nil, nil},
	}
	for _, tc := range tests {
		urls, errs := webParsePrompt(tc.prompt)
		if !reflect.DeepEqual(urls, tc.wantURLs) || !reflect.DeepEqual(errs, tc.wantErrs) {
			t.Errorf("webParsePrompt(%q) = %q, %q\nwant %q, %q", tc.prompt, urls, errs, tc.wantURLs, tc.wantErrs)
		}
	}
}

func TestWebFetchBuildAndConfirm(t *testing.T) {
	env, _ := auxTestEnv(t)
	tl := NewWebFetch(env)
	tests := []struct {
		prompt string
		want   string
	}{
		{"   ", "The 'prompt' parameter cannot be empty and must contain URL(s) and instructions."},
		{"summarize example.com", "The 'prompt' must contain at least one valid URL (starting with http:// or https://)."},
		{"get ftp://x.org and file:///etc/passwd", "Error(s) in prompt URLs:\n- Unsupported protocol in URL: \"ftp://x.org\". Only http and https are supported.\n- Unsupported protocol in URL: \"file:///etc/passwd\". Only http and https are supported."},
	}
	for _, tc := range tests {
		if _, err := fsPrepare(tl, "", map[string]any{"prompt": tc.prompt}); err == nil || err.Type != tool.ErrInvalidParams || err.Message != tc.want {
			t.Errorf("prompt %q: %v", tc.prompt, err)
		}
	}

	prompt := "Explain https://github.com/castor-dev/castor/blob/main/tool/tool.go and https://go.dev/doc " + strings.Repeat("x", 60)
	c, err := fsPrepare(tl, "", map[string]any{"prompt": prompt})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := c.Confirmation(context.Background())
	wantURLs := []string{"https://raw.githubusercontent.com/castor-dev/castor/main/tool/tool.go", "https://go.dev/doc"}
	if d == nil || d.Type != tool.ConfirmInfo || d.Title != "Confirm Web Fetch" || d.Prompt != prompt || !reflect.DeepEqual(d.URLs, wantURLs) {
		t.Errorf("details = %+v", d)
	}
	if got := c.Describe(); got != `Processing URLs and instructions from prompt: "`+prompt[:97]+`..."` {
		t.Errorf("Describe = %q", got)
	}
}

func TestWebFetchTooManyURLs(t *testing.T) {
	env, _ := auxTestEnv(t)
	m := auxAnswer("ok", nil)
	env.Model = m
	var b strings.Builder
	for i := range 22 {
		fmt.Fprintf(&b, "https://site%d.example/ ", i)
	}
	r := fsRun(t, NewWebFetch(env), map[string]any{"prompt": b.String()})
	if !strings.Contains(r.LLMText, "[Too many URLs] https://site20.example/\n[Too many URLs] https://site21.example/") {
		t.Errorf("LLMText = %q", r.LLMText)
	}
	_, list, _ := strings.Cut(auxRequestText(m.requests()[0]), "<authorized_urls>")
	if got := strings.Count(list, "https://site"); got != 20 {
		t.Errorf("the model was authorized %d URLs, want 20", got)
	}
}

func TestWebURLHelpers(t *testing.T) {
	raw := []struct{ in, want string }{
		{"https://github.com/o/r/blob/main/a/b.go", "https://raw.githubusercontent.com/o/r/main/a/b.go"},
		{"https://github.com/o/r/tree/main/a", "https://github.com/o/r/tree/main/a"},
		{"https://gitlab.com/o/r/blob/main/a", "https://gitlab.com/o/r/blob/main/a"},
	}
	for _, tc := range raw {
		if got := webGithubRaw(tc.in); got != tc.want {
			t.Errorf("webGithubRaw(%q) = %q", tc.in, got)
		}
	}
	norm := []struct{ in, want string }{
		{"https://Example.com:443/a/", "https://example.com/a"},
		{"http://example.com:80/", "http://example.com/"},
		{"http://example.com:8080/x", "http://example.com:8080/x"},
		{"http://[::1]:80/x/", "http://[::1]/x"},
	}
	for _, tc := range norm {
		if got := webNormalizeURL(tc.in); got != tc.want {
			t.Errorf("webNormalizeURL(%q) = %q", tc.in, got)
		}
	}
}

func TestWebFetchNoURL(t *testing.T) {
	env, _ := auxTestEnv(t)
	// Build never lets a prompt without URLs through; the call still
	// answers sensibly if one is made some other way.
	c := &webFetchCall{t: webTestTool(env), prompt: "nothing"}
	r := c.Execute(context.Background(), nil)
	if r.LLMText != "Error: No URL provided." {
		t.Errorf("LLMText = %q", r.LLMText)
	}
	auxErrorIs(t, r, tool.ErrWebFetchNoURLInPrompt, "No URL provided.")
}

// TestWebFetchSizeLimit: a body of exactly webFetchMaxBody bytes is read,
// one byte more is refused, whether the server declares its length or
// streams it.
func TestWebFetchSizeLimit(t *testing.T) {
	mux := http.NewServeMux()
	serve := func(n int, declared bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			if declared {
				w.Header().Set("Content-Length", fmt.Sprint(n))
			}
			chunk := []byte(strings.Repeat("a", 64*1024))
			for n > 0 {
				k := min(n, len(chunk))
				if _, err := w.Write(chunk[:k]); err != nil {
					return
				}
				if !declared {
					w.(http.Flusher).Flush() // no Content-Length: chunked
				}
				n -= k
			}
		}
	}
	mux.HandleFunc("/limit", serve(webFetchMaxBody, false))
	mux.HandleFunc("/over", serve(webFetchMaxBody+1, false))
	mux.HandleFunc("/over-declared", serve(webFetchMaxBody+1, true))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tooBig := fmt.Sprintf("Content exceeds size limit of %d bytes", webFetchMaxBody)
	for _, tc := range []struct {
		path    string
		refused bool
	}{
		{"/limit", false},
		{"/over", true},
		{"/over-declared", true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			env, _ := auxTestEnv(t)
			r := fsRun(t, webTestTool(env), map[string]any{"prompt": "Read " + srv.URL + tc.path})
			if tc.refused {
				want := "Error: All fallback fetch attempts failed: " + srv.URL + tc.path + ": " + tooBig
				if r.LLMText != want {
					t.Errorf("LLMText = %.200q, want %q", r.LLMText, want)
				}
				return
			}
			if r.Error != nil || !strings.Contains(r.LLMText, strings.Repeat("a", webFetchBudget)+webFetchTruncated) {
				t.Errorf("page at the limit not read: %v %.200q", r.Error, r.LLMText)
			}
		})
	}
}

// TestWebNoneRetrieved: only metadata listing URLs, none of them
// retrieved, says the primary fetch got nothing.
func TestWebNoneRetrieved(t *testing.T) {
	withStatus := func(st ...genai.URLRetrievalStatus) *genai.GenerateContentResponse {
		md := &genai.URLContextMetadata{}
		for _, s := range st {
			md.URLMetadata = append(md.URLMetadata, &genai.URLMetadata{RetrievedURL: "https://example.com/" + string(s), URLRetrievalStatus: s})
		}
		return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{URLContextMetadata: md}}}
	}
	withNil := withStatus(genai.URLRetrievalStatusError)
	withNil.Candidates[0].URLContextMetadata.URLMetadata = append(withNil.Candidates[0].URLContextMetadata.URLMetadata, nil)
	tests := []struct {
		name string
		resp *genai.GenerateContentResponse
		want bool
	}{
		{"no response", nil, false},
		{"no candidates", &genai.GenerateContentResponse{}, false},
		{"no metadata", &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{}}}, false},
		{"no URLs listed", withStatus(), false},
		{"every URL failed", withStatus(genai.URLRetrievalStatusError, genai.URLRetrievalStatusPaywall), true},
		{"one URL retrieved", withStatus(genai.URLRetrievalStatusError, genai.URLRetrievalStatusSuccess), false},
		{"a failure and an empty entry", withNil, true},
	}
	for _, tt := range tests {
		if got := webNoneRetrieved(tt.resp); got != tt.want {
			t.Errorf("%s: webNoneRetrieved = %v, want %v", tt.name, got, tt.want)
		}
	}
}
