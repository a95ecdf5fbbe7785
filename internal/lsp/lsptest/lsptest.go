// Package lsptest is a small language server for tests: it serves words
// in plain text files, so that Castor's client, manager and tools are
// tested without gopls. Lines holding "ERROR: text" or "WARN: text" are
// diagnostics; "func name" declares a symbol; every occurrence of a word
// is a reference; a file holding "CRASH" makes the server exit once.
package lsptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Env makes a test binary this server (see Main): its value is the path
// of a marker file; CRASH exits only while the marker does not exist.
const Env = "CASTOR_LSPTEST_SERVER"

// FailEnv makes the server fail at start, saying so on stderr.
const FailEnv = "CASTOR_LSPTEST_FAIL"

// HangEnv makes the server write its process id to the file it names and
// then answer nothing until its input closes: a server still starting.
const HangEnv = "CASTOR_LSPTEST_HANG"

// Main serves and exits when the process was started as the test server
// (Env is set); a TestMain calls it first.
func Main() {
	mark, ok := os.LookupEnv(Env)
	if !ok {
		return
	}
	if os.Getenv(FailEnv) != "" {
		fmt.Fprintln(os.Stderr, "lsptest: refusing to start, as asked")
		os.Exit(2)
	}
	if f := os.Getenv(HangEnv); f != "" {
		if err := os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			os.Exit(2)
		}
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(Serve(os.Stdin, os.Stdout, mark))
}

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

type server struct {
	w    io.Writer
	mark string
	docs map[string]string
	keys []string
}

var word = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// Serve answers on r and w until exit; it returns the exit code.
func Serve(r io.Reader, w io.Writer, mark string) int {
	s := &server{w: w, mark: mark, docs: map[string]string{}}
	br := bufio.NewReader(r)
	for {
		n := -1
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return 1
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return 1
		}
		var m msg
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		if code, done := s.handle(m); done {
			return code
		}
	}
}

func (s *server) send(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n%s", len(b), b)
}

func (s *server) reply(id json.RawMessage, result any) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

type pos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type rng struct {
	Start pos `json:"start"`
	End   pos `json:"end"`
}

func (s *server) handle(m msg) (int, bool) {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Text    string `json:"text"`
			Version int    `json:"version"`
		} `json:"textDocument"`
		ContentChanges []struct {
			Text string `json:"text"`
		} `json:"contentChanges"`
		Position pos    `json:"position"`
		NewName  string `json:"newName"`
		Query    string `json:"query"`
	}
	_ = json.Unmarshal(m.Params, &p)
	uri := p.TextDocument.URI
	switch m.Method {
	case "initialize":
		s.reply(m.ID, map[string]any{
			"capabilities": map[string]any{"textDocumentSync": 1, "definitionProvider": true, "referencesProvider": true, "hoverProvider": true, "renameProvider": true, "documentSymbolProvider": true, "workspaceSymbolProvider": true},
			"serverInfo":   map[string]any{"name": "lsptest", "version": "1"},
		})
	case "textDocument/didOpen", "textDocument/didChange":
		text := p.TextDocument.Text
		if len(p.ContentChanges) > 0 {
			text = p.ContentChanges[len(p.ContentChanges)-1].Text
		}
		if _, seen := s.docs[uri]; !seen {
			s.keys = append(s.keys, uri)
		}
		s.docs[uri] = text
		if strings.Contains(text, "CRASH") && s.mark != "" {
			if _, err := os.Stat(s.mark); err != nil {
				_ = os.WriteFile(s.mark, nil, 0o644)
				fmt.Fprintln(os.Stderr, "lsptest: crashing on purpose")
				return 3, true
			}
		}
		s.publish(uri, p.TextDocument.Version)
	case "textDocument/definition":
		w := s.wordAt(uri, p.Position)
		for _, u := range s.keys {
			for i, line := range strings.Split(s.docs[u], "\n") {
				if c := strings.Index(line, "func "+w); w != "" && c >= 0 {
					s.reply(m.ID, []any{map[string]any{"uri": u, "range": span(i, c+5, len(w))}})
					return 0, false
				}
			}
		}
		s.reply(m.ID, nil)
	case "textDocument/references":
		s.reply(m.ID, s.occurrences(s.wordAt(uri, p.Position)))
	case "textDocument/hover":
		w := s.wordAt(uri, p.Position)
		if w == "" {
			s.reply(m.ID, nil)
			break
		}
		s.reply(m.ID, map[string]any{"contents": map[string]any{"kind": "markdown", "value": "```\nfunc " + w + "()\n```\n" + w + " is a test word."}})
	case "textDocument/rename":
		changes := map[string][]any{}
		for _, l := range s.occurrences(s.wordAt(uri, p.Position)) {
			changes[l["uri"].(string)] = append(changes[l["uri"].(string)], map[string]any{"range": l["range"], "newText": p.NewName})
		}
		s.reply(m.ID, map[string]any{"changes": changes})
	case "textDocument/documentSymbol":
		var syms []any
		for i, line := range strings.Split(s.docs[uri], "\n") {
			if name, ok := strings.CutPrefix(line, "func "); ok {
				name = word.FindString(name)
				r := span(i, 5, len(name))
				syms = append(syms, map[string]any{"name": name, "kind": 12, "range": r, "selectionRange": r})
			}
		}
		s.reply(m.ID, syms)
	case "workspace/symbol":
		var syms []any
		for _, u := range s.keys {
			for i, line := range strings.Split(s.docs[u], "\n") {
				if name, ok := strings.CutPrefix(line, "func "); ok {
					name = word.FindString(name)
					if strings.Contains(name, p.Query) {
						syms = append(syms, map[string]any{"name": name, "kind": 12, "location": map[string]any{"uri": u, "range": span(i, 5, len(name))}})
					}
				}
			}
		}
		s.reply(m.ID, syms)
	case "shutdown":
		s.reply(m.ID, nil)
	case "exit":
		return 0, true
	default:
		if len(m.ID) > 0 {
			s.reply(m.ID, nil)
		}
	}
	return 0, false
}

func span(line, col, n int) rng {
	return rng{Start: pos{line, col}, End: pos{line, col + n}}
}

// publish sends the diagnostics of uri's ERROR: and WARN: lines.
func (s *server) publish(uri string, version int) {
	diags := []any{}
	for i, line := range strings.Split(s.docs[uri], "\n") {
		for sev, tag := range map[int]string{1: "ERROR:", 2: "WARN:"} {
			if c := strings.Index(line, tag); c >= 0 {
				diags = append(diags, map[string]any{"range": span(i, c, len(tag)), "severity": sev, "source": "lsptest", "message": strings.TrimSpace(line[c+len(tag):])})
			}
		}
	}
	s.send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": map[string]any{"uri": uri, "version": version, "diagnostics": diags}})
}

// wordAt is the word under a position.
func (s *server) wordAt(uri string, p pos) string {
	lines := strings.Split(s.docs[uri], "\n")
	if p.Line >= len(lines) {
		return ""
	}
	for _, loc := range word.FindAllStringIndex(lines[p.Line], -1) {
		if loc[0] <= p.Character && p.Character <= loc[1] {
			return lines[p.Line][loc[0]:loc[1]]
		}
	}
	return ""
}

// occurrences are the locations of w as a whole word in every open file.
func (s *server) occurrences(w string) []map[string]any {
	var out []map[string]any
	if w == "" {
		return out
	}
	for _, u := range s.keys {
		for i, line := range strings.Split(s.docs[u], "\n") {
			for _, loc := range word.FindAllStringIndex(line, -1) {
				if line[loc[0]:loc[1]] == w {
					out = append(out, map[string]any{"uri": u, "range": span(i, loc[0], len(w))})
				}
			}
		}
	}
	return out
}
