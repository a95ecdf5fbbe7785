package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/internal/netguard"
	"github.com/castor-dev/castor/internal/textutil"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/tool"
)

// Limits of web_fetch, Gemini CLI's.
const (
	// webFetchTimeout bounds each direct fetch.
	webFetchTimeout = 10 * time.Second
	// webFetchBudget is the total number of characters (UTF-16 units) of
	// page text given to the model, shared fairly between the pages.
	webFetchBudget = 250000
	// webFetchMaxBody is the largest response body read.
	webFetchMaxBody = 10 * 1024 * 1024
	// webFetchParallel is how many pages are fetched at once: enough that
	// twenty slow pages do not take twenty timeouts, few enough not to
	// hammer one host.
	webFetchParallel = 4
	// webFetchMaxURLs is how many URLs one call may name.
	webFetchMaxURLs = 20
	// webFetchTruncated marks page text cut to fit the budget.
	webFetchTruncated = "\n\n... [Content truncated due to size limit] ..."
	// webFetchUserAgent identifies direct fetches.
	webFetchUserAgent = "Mozilla/5.0 (compatible; Castor/1.0; +https://github.com/castor-dev/castor)"
)

// WebFetchTool is web_fetch: the model reads the URLs named in the prompt
// with its urlContext tool; when that yields nothing, the pages are fetched
// directly and the model answers from their text.
//
// Like Gemini CLI, it refuses loopback, private and otherwise non-public
// addresses, both as written in the URL and, for direct fetches, as the
// name resolves when connecting (so DNS cannot be used to reach them).
type WebFetchTool struct {
	env *Env
	// HostBlocked reports whether a host, a name or an IP literal without
	// port or brackets, must not be fetched. Tests replace it to reach
	// servers on 127.0.0.1; nil blocks nothing.
	HostBlocked func(host string) bool
	// Client makes the direct fetches. The default one refuses to connect
	// to blocked addresses and follows at most 10 redirects, none to a
	// blocked host.
	Client *http.Client
}

var _ tool.Tool = (*WebFetchTool)(nil)

// NewWebFetch returns the web_fetch tool, blocking non-public hosts unless
// env.AllowPrivateHosts is set.
func NewWebFetch(env *Env) tool.Tool {
	t := &WebFetchTool{env: env, HostBlocked: WebFetchHostBlocked}
	if env != nil && env.AllowPrivateHosts {
		t.HostBlocked = nil
	}
	t.Client = t.defaultClient()
	return t
}

// Name is "web_fetch".
func (t *WebFetchTool) Name() string { return "web_fetch" }

// DisplayName is "WebFetch".
func (t *WebFetchTool) DisplayName() string { return "WebFetch" }

// Kind is fetch.
func (t *WebFetchTool) Kind() tool.Kind { return tool.KindFetch }

// Description is Gemini CLI's.
func (t *WebFetchTool) Description() string {
	return "Processes content from URL(s), including local and private network addresses (e.g., localhost), embedded in a prompt. Include up to 20 URLs and instructions (e.g., summarize, extract specific data) directly in the 'prompt' parameter."
}

// Schema is Gemini CLI's.
func (t *WebFetchTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"prompt": map[string]any{
				"type":        "string",
				"description": `A comprehensive prompt that includes the URL(s) (up to 20) to fetch and specific instructions on how to process their content (e.g., "Summarize https://example.com/article and extract key points from https://another.com/data"). All URLs to be fetched must be valid and complete, starting with "http://" or "https://", and be fully-formed with a valid hostname (e.g., a domain name like "example.com" or an IP address). For example, "https://example.com" is valid, but "example.com" is not.`,
			},
		},
		"required": []any{"prompt"},
	}
}

// Build checks that the prompt names at least one well-formed http(s) URL.
func (t *WebFetchTool) Build(args map[string]any) (tool.Call, error) {
	invalid := func(msg string) error { return &tool.Error{Type: tool.ErrInvalidParams, Message: msg} }
	prompt, _ := args["prompt"].(string)
	if strings.TrimSpace(prompt) == "" {
		return nil, invalid("The 'prompt' parameter cannot be empty and must contain URL(s) and instructions.")
	}
	urls, errs := webParsePrompt(prompt)
	if len(errs) > 0 {
		return nil, invalid("Error(s) in prompt URLs:\n- " + strings.Join(errs, "\n- "))
	}
	if len(urls) == 0 {
		return nil, invalid("The 'prompt' must contain at least one valid URL (starting with http:// or https://).")
	}
	return &webFetchCall{t: t, prompt: prompt, urls: urls}, nil
}

// hostBlocked applies HostBlocked nil-safely.
func (t *WebFetchTool) hostBlocked(host string) bool {
	return t.HostBlocked != nil && t.HostBlocked(strings.Trim(host, "[]"))
}

// defaultClient builds the direct-fetch client. Its dialer checks the
// address actually connected to, which catches names that resolve to
// private addresses and redirects to them; connections to a configured
// proxy are exempt, since the proxy, not we, reaches the page.
func (t *WebFetchTool) defaultClient() *http.Client {
	proxies := webProxyAddrs()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := &net.Dialer{Timeout: webFetchTimeout}
		if !proxies[strings.ToLower(addr)] {
			d.Control = func(_, address string, _ syscall.RawConn) error {
				host, _, err := net.SplitHostPort(address)
				if err != nil {
					host = address
				}
				if t.hostBlocked(host) {
					return fmt.Errorf("address %s is a blocked or private host", host)
				}
				return nil
			}
		}
		return d.DialContext(ctx, network, addr)
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			if t.hostBlocked(req.URL.Hostname()) {
				return fmt.Errorf("Access to blocked or private host %s is not allowed.", req.URL.String())
			}
			return nil
		},
	}
}

// webProxyAddrs returns the host:port of the proxies configured in the
// environment.
func webProxyAddrs() map[string]bool {
	out := map[string]bool{}
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"} {
		v := strings.TrimSpace(os.Getenv(k))
		if v == "" {
			continue
		}
		if !strings.Contains(v, "://") {
			v = "http://" + v
		}
		u, err := url.Parse(v)
		if err != nil || u.Hostname() == "" {
			continue
		}
		port := u.Port()
		if port == "" {
			port = map[string]string{"https": "443", "socks5": "1080"}[u.Scheme]
			if port == "" {
				port = "80"
			}
		}
		out[strings.ToLower(net.JoinHostPort(u.Hostname(), port))] = true
	}
	return out
}

// WebFetchHostBlocked is web_fetch's default host check: localhost names
// and IP literals outside the public unicast space (loopback, private,
// link-local, carrier-grade NAT, multicast, reserved, and IPv4 of those
// kinds inside NAT64, 6to4 or Teredo addresses), as netguard judges.
// Other names pass here; the default client checks what they resolve to.
func WebFetchHostBlocked(host string) bool {
	return netguard.CheckHost(host) != nil
}

// webParsePrompt finds the URLs in a prompt: every whitespace-separated
// token containing "://". Well-formed http(s) URLs are returned in their
// normal form; other tokens produce Gemini CLI's error texts. Punctuation
// that ends a sentence or closes a bracket around the URL is not part of
// it (beyond Gemini CLI, which would fetch "https://x.org/a." verbatim).
func webParsePrompt(text string) (urls, errs []string) {
	for _, tok := range strings.Fields(text) {
		if !strings.Contains(tok, "://") {
			continue
		}
		tok = webTrimURLToken(tok)
		u, err := url.Parse(tok)
		switch {
		case err != nil:
			errs = append(errs, `Malformed URL detected: "`+tok+`".`)
		case !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https"):
			errs = append(errs, `Unsupported protocol in URL: "`+tok+`". Only http and https are supported.`)
		case u.Hostname() == "" || u.Opaque != "":
			errs = append(errs, `Malformed URL detected: "`+tok+`".`)
		default:
			u.Scheme = strings.ToLower(u.Scheme)
			u.Host = strings.ToLower(u.Host)
			if u.Path == "" {
				u.Path = "/"
			}
			urls = append(urls, u.String())
		}
	}
	return urls, errs
}

// webTrimURLToken strips quotes and brackets around a URL and sentence
// punctuation after it, keeping a closing bracket the URL itself opened
// (as in https://en.wikipedia.org/wiki/Go_(programming_language)).
func webTrimURLToken(tok string) string {
	tok = strings.TrimLeft(tok, `("'<[`)
	for tok != "" {
		last := tok[len(tok)-1]
		switch last {
		case '.', ',', ';', ':', '!', '?', '"', '\'', '>':
			tok = tok[:len(tok)-1]
			continue
		case ')', ']':
			open := map[byte]string{')': "(", ']': "["}[last]
			if strings.Count(tok, open) < strings.Count(tok, string(last)) {
				tok = tok[:len(tok)-1]
				continue
			}
		}
		break
	}
	return tok
}

// webNormalizeURL gives the form used to de-duplicate URLs: lower-case
// host, no default port, no trailing slash except the root's.
func webNormalizeURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	if len(u.Path) > 1 && strings.HasSuffix(u.Path, "/") {
		u.Path = strings.TrimSuffix(u.Path, "/")
		u.RawPath = ""
	}
	return u.String()
}

// webGithubBlob matches the owner/repo part of a GitHub blob URL path.
var webGithubBlob = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^/([^/]+/[^/]+)/blob/`) }}

// webGithubRaw turns a github.com blob URL into the raw file's URL, so the
// fetch gets the file rather than GitHub's page around it.
func webGithubRaw(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Hostname() != "github.com" || !strings.Contains(u.Path, "/blob/") {
		return s
	}
	u.Host = "raw.githubusercontent.com"
	u.Path = webGithubBlob.Get().ReplaceAllString(u.Path, "/$1/")
	u.RawPath = ""
	return u.String()
}

// webEscapeXML makes text safe inside the XML-like tags of the prompts.
var webEscapeXML = lazy.Value[*strings.Replacer]{New: func() *strings.Replacer {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")
}}

type webFetchCall struct {
	t      *WebFetchTool
	prompt string
	urls   []string
}

// Describe quotes the prompt, cut to 100 characters.
func (c *webFetchCall) Describe() string {
	p := c.prompt
	if r := []rune(p); len(r) > 100 {
		p = string(r[:97]) + "..."
	}
	return `Processing URLs and instructions from prompt: "` + p + `"`
}

// Confirmation lists the URLs that will be fetched (GitHub blobs as their
// raw URLs).
func (c *webFetchCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	urls := make([]string, len(c.urls))
	for i, u := range c.urls {
		urls[i] = webGithubRaw(u)
	}
	return &tool.ConfirmationDetails{Type: tool.ConfirmInfo, Title: "Confirm Web Fetch", Prompt: c.prompt, URLs: urls}, nil
}

// selectURLs de-duplicates the URLs and sets aside the blocked ones and those
// beyond the limit, with the reasons the model is told.
func (c *webFetchCall) selectURLs() (toFetch, skipped []string) {
	seen := map[string]bool{}
	for _, raw := range c.urls {
		u := webNormalizeURL(raw)
		if seen[u] {
			continue
		}
		seen[u] = true
		pu, err := url.Parse(u)
		switch {
		case err != nil || c.t.hostBlocked(pu.Hostname()):
			skipped = append(skipped, "[Blocked Host] "+u)
		case len(toFetch) >= webFetchMaxURLs:
			skipped = append(skipped, "[Too many URLs] "+u)
		default:
			toFetch = append(toFetch, u)
		}
	}
	return toFetch, skipped
}

// Execute tries the model's urlContext tool first and falls back to
// fetching the pages directly.
func (c *webFetchCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	toFetch, skipped := c.selectURLs()
	if len(toFetch) == 0 {
		if len(skipped) == 0 {
			return &tool.Result{
				LLMText: "Error: No URL provided.",
				Display: "Error: No URL provided.",
				Error:   &tool.Error{Type: tool.ErrWebFetchNoURLInPrompt, Message: "No URL provided."},
			}
		}
		msg := "All requested URLs were skipped: " + strings.Join(skipped, ", ")
		return &tool.Result{
			LLMText: "Error: " + msg,
			Display: "Error: " + msg,
			Error:   &tool.Error{Type: tool.ErrWebFetchProcessingError, Message: msg},
		}
	}
	env := c.t.env
	if env != nil && env.Model != nil {
		if r := c.primary(ctx, toFetch, skipped); r != nil {
			return r
		}
	}
	if ctx.Err() != nil {
		return tool.Fail(tool.ErrCancelled, "Web fetch was cancelled.")
	}
	return c.fallback(ctx, toFetch)
}

// primary asks the model to read the URLs itself. It returns nil when the
// model fails or gives nothing usable, which sends the call to the
// fallback.
func (c *webFetchCall) primary(ctx context.Context, urls, skipped []string) *tool.Result {
	var b strings.Builder
	b.WriteString("Carry out the user's instructions below on the listed URLs, which the user has authorized you to access.\n\n<user_instructions>\n")
	b.WriteString(webEscapeXML.Get().Replace(c.prompt))
	b.WriteString("\n</user_instructions>\n\n<authorized_urls>\n")
	b.WriteString(strings.Join(urls, "\n"))
	b.WriteString("\n</authorized_urls>\n")
	env := c.t.env
	resp, err := env.Model.GenerateContent(ctx, &model.Request{
		Model:    auxModelName(env),
		Contents: []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{Text: b.String()}}}},
		Config:   &genai.GenerateContentConfig{Tools: []*genai.Tool{{URLContext: &genai.URLContext{}}}},
	})
	if err != nil {
		return nil
	}
	text := auxResponseText(resp)
	gm := auxGrounding(resp)
	hasSources := gm != nil && len(gm.GroundingChunks) > 0
	if strings.TrimSpace(text) == "" && !hasSources {
		return nil
	}
	// When the model reports that it retrieved none of the pages, its
	// answer can only be an apology; the direct fetch may do better.
	if webNoneRetrieved(resp) {
		return nil
	}
	if gm != nil {
		text = auxInsertCitations(text, gm.GroundingSupports)
	}
	if hasSources {
		text += "\n\nSources:\n" + auxSourceList(gm.GroundingChunks, "Unknown URI")
	}
	if len(skipped) > 0 {
		text = "[Warning] The following URLs were skipped:\n" + strings.Join(skipped, "\n") + "\n\n" + text
	}
	return &tool.Result{LLMText: textutil.WrapUntrusted(text), Display: "Content processed from prompt."}
}

// webNoneRetrieved reports whether urlContext metadata lists URLs and says
// every retrieval failed.
func webNoneRetrieved(resp *genai.GenerateContentResponse) bool {
	if resp == nil || len(resp.Candidates) == 0 || resp.Candidates[0] == nil || resp.Candidates[0].URLContextMetadata == nil {
		return false
	}
	md := resp.Candidates[0].URLContextMetadata.URLMetadata
	if len(md) == 0 {
		return false
	}
	for _, m := range md {
		if m != nil && m.URLRetrievalStatus == genai.URLRetrievalStatusSuccess {
			return false
		}
	}
	return true
}

// webPage is the outcome of fetching one URL directly.
type webPage struct {
	url     string
	content string
	err     error
}

// fallback fetches every URL, shares the character budget between the
// pages and asks the model to answer from them. Without a model the page
// text itself is the answer.
func (c *webFetchCall) fallback(ctx context.Context, urls []string) *tool.Result {
	pages := make([]*webPage, len(urls))
	var wg sync.WaitGroup
	sem := make(chan struct{}, webFetchParallel)
	for i, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			text, err := c.fetch(ctx, u)
			pages[i] = &webPage{url: u, content: text, err: err}
		}()
	}
	wg.Wait()
	ok := 0
	var failures []string
	for _, p := range pages {
		if p.err != nil {
			failures = append(failures, p.url+": "+p.err.Error())
		} else {
			ok++
		}
	}
	if ok == 0 {
		msg := "All fallback fetch attempts failed: " + strings.Join(failures, ", ")
		return &tool.Result{
			LLMText: "Error: " + msg,
			Display: "Error: " + msg,
			Error:   &tool.Error{Type: tool.ErrWebFetchFallbackFailed, Message: msg},
		}
	}
	webShareBudget(pages, webFetchBudget)

	sources := make([]string, len(pages))
	for i, p := range pages {
		body := webEscapeXML.Get().Replace(p.content)
		if p.err != nil {
			body = "Error: " + webEscapeXML.Get().Replace(p.err.Error())
		}
		sources[i] = `<source url="` + webEscapeXML.Get().Replace(p.url) + "\">\n" + body + "\n</source>"
	}
	content := strings.Join(sources, "\n")

	env := c.t.env
	if env == nil || env.Model == nil {
		return &tool.Result{
			LLMText: textutil.WrapUntrusted(content),
			Display: fmt.Sprintf("Content for %d URL(s) fetched directly.", len(urls)),
		}
	}
	var b strings.Builder
	b.WriteString("Answer the user's request below from the web page content provided.\n\n<user_instructions>\n")
	b.WriteString(webEscapeXML.Get().Replace(c.prompt))
	b.WriteString("\n</user_instructions>\n\nThe pages could not be read through the URL tool, so their raw content was fetched directly and is given below. Answer from this content and do not try to open the URLs again.\n\n<content>\n")
	b.WriteString(content)
	b.WriteString("\n</content>\n")
	resp, err := env.Model.GenerateContent(ctx, &model.Request{
		Model:    auxModelName(env),
		Contents: []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{Text: b.String()}}}},
	})
	if err != nil {
		msg := "Error during fallback processing: " + err.Error()
		return &tool.Result{
			LLMText: "Error: " + msg,
			Display: "Error: " + msg,
			Error:   &tool.Error{Type: tool.ErrWebFetchFallbackFailed, Message: msg},
		}
	}
	return &tool.Result{
		LLMText: textutil.WrapUntrusted(auxResponseText(resp)),
		Display: fmt.Sprintf("Content for %d URL(s) processed using fallback fetch.", len(urls)),
	}
}

// webShareBudget cuts the successful pages so that together they fit in
// budget characters: pages are served smallest first, each taking at most
// an equal share of what is left, so short pages stay whole and long ones
// split the rest.
func webShareBudget(pages []*webPage, budget int) {
	var okPages []*webPage
	for _, p := range pages {
		if p.err == nil {
			okPages = append(okPages, p)
		}
	}
	sort.SliceStable(okPages, func(i, j int) bool { return utf16Len(okPages[i].content) < utf16Len(okPages[j].content) })
	left := budget
	for i, p := range okPages {
		share := left / (len(okPages) - i)
		p.content = webTruncate(p.content, min(utf16Len(p.content), share))
		left -= utf16Len(p.content)
	}
}

// webTruncate cuts s to n characters and marks the cut.
func webTruncate(s string, n int) string {
	cut, truncated := truncateUTF16(s, max(n, 0))
	if !truncated {
		return s
	}
	return cut + webFetchTruncated
}

// fetch gets one URL directly and returns its text: HTML converted to
// Markdown without link targets or images (as Gemini CLI's html-to-text
// settings drop them), anything else as it came, cut to the budget.
func (c *webFetchCall) fetch(ctx context.Context, raw string) (string, error) {
	target := webGithubRaw(raw)
	u, err := url.Parse(target)
	if err != nil || c.t.hostBlocked(u.Hostname()) {
		return "", fmt.Errorf("Access to blocked or private host %s is not allowed.", target)
	}
	ctx, cancel := context.WithTimeout(ctx, webFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", webFetchUserAgent)
	client := c.t.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("Request timed out after %dms", webFetchTimeout.Milliseconds())
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			return "", ue.Err
		}
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		reason := strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)))
		return "", fmt.Errorf("Request failed with status code %d %s", resp.StatusCode, reason)
	}
	tooBig := fmt.Errorf("Content exceeds size limit of %d bytes", webFetchMaxBody)
	if resp.ContentLength > webFetchMaxBody {
		return "", tooBig
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, webFetchMaxBody+1))
	if err != nil {
		return "", err
	}
	if len(body) > webFetchMaxBody {
		return "", tooBig
	}
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	text := string(body)
	if ct == "" || strings.Contains(ct, "text/html") {
		text = webHTMLToText(text)
	}
	return webTruncate(text, webFetchBudget), nil
}
