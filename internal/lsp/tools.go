package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/tool"
)

// maxListed bounds the locations, symbols and diagnostics a tool lists.
const maxListed = 100

// Tools are the model's language-server tools over m, bounded by ws.
// beforeWrite, when set, runs once before lsp_rename writes (checkpoints
// snapshot the workspace there), given the first file and the call's
// arguments.
func Tools(m *Manager, ws *tool.Workspace, beforeWrite func(ctx context.Context, path string, args map[string]any)) []tool.Tool {
	base := lspTool{m: m, ws: ws, beforeWrite: beforeWrite}
	mk := func(name, display, desc string, kind tool.Kind, schema map[string]any, build func(*lspTool, map[string]any) (tool.Call, error)) tool.Tool {
		t := base
		t.name, t.display, t.desc, t.kind, t.schema, t.build = name, display, desc, kind, schema, build
		return &t
	}
	return []tool.Tool{
		mk("lsp_diagnostics", "Diagnostics", "Lists the language server's errors and warnings for a file, or without file_path for all files reported so far.", tool.KindRead,
			object(map[string]any{"file_path": pathProp.Get()}), (*lspTool).buildDiagnostics),
		mk("lsp_definition", "GoToDefinition", "Finds where the symbol at a position is defined.", tool.KindSearch,
			object(positionProps(), "file_path", "line", "symbol"), positional("textDocument/definition")),
		mk("lsp_references", "FindReferences", "Finds the references to the symbol at a position, declaration included.", tool.KindSearch,
			object(positionProps(), "file_path", "line", "symbol"), positional("textDocument/references")),
		mk("lsp_hover", "Hover", "Shows the type and documentation of the symbol at a position.", tool.KindRead,
			object(positionProps(), "file_path", "line", "symbol"), positional("textDocument/hover")),
		mk("lsp_symbols", "Symbols", "Lists the symbols declared in a file (file_path), or searches the workspace's symbols by name (query).", tool.KindSearch,
			object(map[string]any{"file_path": pathProp.Get(), "query": map[string]any{"type": "string", "description": "Part of a symbol name to search the workspace for."}}), (*lspTool).buildSymbols),
		mk("lsp_rename", "Rename", "Renames the symbol at a position in every file that uses it, as one edit the user confirms.", tool.KindEdit,
			object(withNewName(positionProps()), "file_path", "line", "symbol", "new_name"), (*lspTool).buildRename),
	}
}

var pathProp = lazy.Value[map[string]any]{New: func() map[string]any {
	return map[string]any{"type": "string", "description": "The file's path."}
}}

func positionProps() map[string]any {
	return map[string]any{
		"file_path": pathProp.Get(),
		"line":      map[string]any{"type": "integer", "description": "1-based line.", "minimum": 1},
		"symbol":    map[string]any{"type": "string", "description": "The symbol's name on that line."},
		"column":    map[string]any{"type": "integer", "description": "1-based column, if the name occurs twice on the line.", "minimum": 1},
	}
}

func withNewName(p map[string]any) map[string]any {
	p["new_name"] = map[string]any{"type": "string", "description": "The new name."}
	return p
}

func object(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		r := make([]any, len(required))
		for i, n := range required {
			r[i] = n
		}
		s["required"] = r
	}
	return s
}

// lspTool is one of the language-server tools.
type lspTool struct {
	m                   *Manager
	ws                  *tool.Workspace
	name, display, desc string
	kind                tool.Kind
	schema              map[string]any
	build               func(*lspTool, map[string]any) (tool.Call, error)
	beforeWrite         func(ctx context.Context, path string, args map[string]any)
}

func (t *lspTool) Name() string                                 { return t.name }
func (t *lspTool) DisplayName() string                          { return t.display }
func (t *lspTool) Description() string                          { return t.desc }
func (t *lspTool) Kind() tool.Kind                              { return t.kind }
func (t *lspTool) Schema() map[string]any                       { return t.schema }
func (t *lspTool) Build(args map[string]any) (tool.Call, error) { return t.build(t, args) }

// funcCall is a read-only call: no confirmation, run does the work.
type funcCall struct {
	describe string
	run      func(ctx context.Context) *tool.Result
}

func (c *funcCall) Describe() string { return c.describe }
func (c *funcCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}
func (c *funcCall) Execute(ctx context.Context, _ func(string)) *tool.Result { return c.run(ctx) }

// file resolves a path argument inside the workspace.
func (t *lspTool) file(args map[string]any) (string, *tool.Error) {
	p, _ := args["file_path"].(string)
	if p == "" {
		return "", tool.Errorf(tool.ErrInvalidParams, "The 'file_path' parameter must be non-empty.")
	}
	abs := t.ws.Resolve(p)
	if !t.ws.Contains(abs) {
		return "", tool.Errorf(tool.ErrPathNotInWorkspace, "File path must be within one of the workspace directories: %s", strings.Join(t.ws.Dirs(), ", "))
	}
	if !t.m.Handles(abs) {
		return "", tool.Errorf(tool.ErrInvalidParams, "No language server is configured for %s files.", filepath.Ext(abs))
	}
	return abs, nil
}

// open starts the file's server, gives it the file and waits for its
// diagnostics (which also means it has read the file), within the wait.
func (t *lspTool) open(ctx context.Context, abs string) (*Client, string, *tool.Result) {
	c, err := t.m.Client(ctx, abs)
	if err != nil {
		return nil, "", tool.Fail(tool.ErrExecutionFailed, err.Error())
	}
	uri, v, err := c.SyncFile(abs)
	if err != nil {
		return nil, "", tool.Fail(tool.ErrReadContentFailure, fmt.Sprintf("Error reading file %s: %v", abs, err))
	}
	wctx, cancel := context.WithTimeout(ctx, t.m.opts.Wait)
	defer cancel()
	c.WaitDiagnostics(wctx, uri, v)
	return c, uri, nil
}

func (t *lspTool) rel(p string) string { return filepath.ToSlash(t.ws.Rel(p)) }

// onFile is a read-only call on one file: the path resolved, the file
// given to its server, then run.
func (t *lspTool) onFile(args map[string]any, describe string, run func(ctx context.Context, c *Client, abs, uri string) *tool.Result) (tool.Call, error) {
	abs, terr := t.file(args)
	if terr != nil {
		return nil, terr
	}
	return &funcCall{describe: strings.TrimSpace(t.rel(abs) + " " + describe), run: func(ctx context.Context) *tool.Result {
		c, uri, fail := t.open(ctx, abs)
		if fail != nil {
			return fail
		}
		return run(ctx, c, abs, uri)
	}}, nil
}

func (t *lspTool) buildDiagnostics(args map[string]any) (tool.Call, error) {
	if p, _ := args["file_path"].(string); p == "" {
		return &funcCall{describe: "workspace", run: t.workspaceDiagnostics}, nil
	}
	return t.onFile(args, "", func(_ context.Context, c *Client, _, uri string) *tool.Result {
		return tool.Text(t.listDiagnostics(map[string][]Diagnostic{uri: c.Diagnostics()[normalizeURI(uri)]}))
	})
}

func (t *lspTool) workspaceDiagnostics(context.Context) *tool.Result {
	all := map[string][]Diagnostic{}
	t.m.mu.Lock()
	var clients []*Client
	for _, s := range t.m.running {
		if s.client != nil {
			clients = append(clients, s.client)
		}
	}
	t.m.mu.Unlock()
	for _, c := range clients {
		for uri, ds := range c.Diagnostics() {
			all[uri] = append(all[uri], ds...)
		}
	}
	if len(clients) == 0 {
		return tool.Text("No language server has started yet: they start on the first file of their type (read or edit one, or ask lsp_diagnostics for a file).")
	}
	return tool.Text(t.listDiagnostics(all))
}

// listDiagnostics lists errors then warnings, by file.
func (t *lspTool) listDiagnostics(byURI map[string][]Diagnostic) string {
	uris := make([]string, 0, len(byURI))
	for u := range byURI {
		uris = append(uris, u)
	}
	slices.Sort(uris)
	var lines []string
	n := 0
	for _, sev := range []Severity{SeverityError, SeverityWarning} {
		for _, u := range uris {
			for _, d := range byURI[u] {
				if d.Severity == sev || (sev == SeverityError && d.Severity == 0) {
					n++
					if len(lines) < maxListed {
						lines = append(lines, FormatDiagnostic(t.rel(URIPath(u)), d))
					}
				}
			}
		}
	}
	if n == 0 {
		return "No errors or warnings."
	}
	if n > len(lines) {
		lines = append(lines, fmt.Sprintf("… and %d more", n-len(lines)))
	}
	return strings.Join(lines, "\n")
}

// position is where the symbol named in args is in text.
func position(text string, args map[string]any) (Position, *tool.Error) {
	line := intArg(args, "line")
	sym, _ := args["symbol"].(string)
	col := intArg(args, "column")
	lines := strings.Split(text, "\n")
	if line < 1 || line > len(lines) {
		return Position{}, tool.Errorf(tool.ErrInvalidParams, "line %d is outside the file (%d lines).", line, len(lines))
	}
	l := strings.TrimSuffix(lines[line-1], "\r")
	var starts []int
	if sym != "" {
		re := regexp.MustCompile(`(^|[^\pL\pN_$])` + regexp.QuoteMeta(sym) + `($|[^\pL\pN_$])`)
		for off := 0; off <= len(l); {
			loc := re.FindStringSubmatchIndex(l[off:])
			if loc == nil {
				break
			}
			s := off + loc[3]
			starts = append(starts, s)
			off = s + len(sym)
		}
	}
	var at int
	switch {
	case sym != "" && len(starts) == 0:
		return Position{}, tool.Errorf(tool.ErrInvalidParams, "%q does not occur on line %d: %s", sym, line, strings.TrimSpace(l))
	case sym != "" && col > 0:
		// The occurrence that holds the column, else the nearest one.
		at = starts[0]
		for _, s := range starts {
			if abs(s+1-col) < abs(at+1-col) || (s < col && col <= s+len(sym)) {
				at = s
			}
		}
	case sym != "":
		at = starts[0]
	case col > 0:
		at = min(col-1, len(l))
	default:
		return Position{}, tool.Errorf(tool.ErrInvalidParams, "Name the symbol (or give a column) on line %d.", line)
	}
	return Position{Line: line - 1, Character: utf16Len(l[:at])}, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func intArg(args map[string]any, k string) int {
	switch v := args[k].(type) {
	case float64:
		return int(v)
	case int:
		return v
	case json.Number:
		n, _ := v.Int64()
		return int(n)
	}
	return 0
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

// byteOffset is the byte offset in line of a UTF-16 character offset.
func byteOffset(line string, char int) int {
	n := 0
	for i, r := range line {
		if n >= char {
			return i
		}
		n += utf16.RuneLen(r)
		if utf16.RuneLen(r) < 0 {
			n++
		}
	}
	return len(line)
}

// positional builds definition, references and hover calls.
func positional(method string) func(*lspTool, map[string]any) (tool.Call, error) {
	return func(t *lspTool, args map[string]any) (tool.Call, error) {
		sym, _ := args["symbol"].(string)
		return t.onFile(args, fmt.Sprintf(":%d %s", intArg(args, "line"), sym), func(ctx context.Context, c *Client, abs, uri string) *tool.Result {
			text, err := os.ReadFile(abs)
			if err != nil {
				return tool.Fail(tool.ErrFileNotFound, fmt.Sprintf("Error reading file %s: %v", abs, err))
			}
			pos, terr := position(string(text), args)
			if terr != nil {
				return &tool.Result{LLMText: terr.Message, Display: terr.Message, Error: terr}
			}
			params := positionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: pos}
			switch method {
			case "textDocument/hover":
				var h *hover
				if err := c.Call(ctx, method, params, &h); err != nil {
					return serverFailed(err)
				}
				if h == nil {
					return tool.Text("No information about " + sym + ".")
				}
				return tool.Text(hoverText(h.Contents))
			case "textDocument/references":
				rp := referenceParams{positionParams: params}
				rp.Context.IncludeDeclaration = true
				var locs []Location
				if err := c.Call(ctx, method, rp, &locs); err != nil {
					return serverFailed(err)
				}
				return tool.Text(t.listLocations(locs, "No references found."))
			default:
				var raw json.RawMessage
				if err := c.Call(ctx, method, params, &raw); err != nil {
					return serverFailed(err)
				}
				return tool.Text(t.listLocations(locations(raw), "No definition found."))
			}
		})
	}
}

func serverFailed(err error) *tool.Result {
	return tool.Fail(tool.ErrExecutionFailed, "The language server failed: "+err.Error())
}

// locations reads a definition answer: a Location, a list of them, or a
// list of LocationLinks.
func locations(raw json.RawMessage) []Location {
	var one Location
	if json.Unmarshal(raw, &one) == nil && one.URI != "" {
		return []Location{one}
	}
	var many []json.RawMessage
	_ = json.Unmarshal(raw, &many)
	var out []Location
	for _, r := range many {
		var l Location
		var link locationLink
		if json.Unmarshal(r, &l) == nil && l.URI != "" {
			out = append(out, l)
		} else if json.Unmarshal(r, &link) == nil && link.TargetURI != "" {
			out = append(out, Location{URI: link.TargetURI, Range: link.TargetSelectionRange})
		}
	}
	return out
}

// listLocations gives each location as path:line:column and the line's
// text.
func (t *lspTool) listLocations(locs []Location, none string) string {
	if len(locs) == 0 {
		return none
	}
	files := map[string][]string{}
	var lines []string
	for i, l := range locs {
		if i == maxListed {
			lines = append(lines, fmt.Sprintf("… and %d more", len(locs)-maxListed))
			break
		}
		p := URIPath(l.URI)
		if _, ok := files[p]; !ok {
			b, _ := os.ReadFile(p)
			files[p] = strings.Split(string(b), "\n")
		}
		text := ""
		if fl := files[p]; l.Range.Start.Line < len(fl) {
			text = strings.TrimSpace(fl[l.Range.Start.Line])
		}
		col := l.Range.Start.Character + 1
		if fl := files[p]; l.Range.Start.Line < len(fl) {
			col = utf8.RuneCountInString(fl[l.Range.Start.Line][:byteOffset(fl[l.Range.Start.Line], l.Range.Start.Character)]) + 1
		}
		lines = append(lines, fmt.Sprintf("%s:%d:%d: %s", t.rel(p), l.Range.Start.Line+1, col, text))
	}
	return strings.Join(lines, "\n")
}

// hoverText flattens hover contents to text.
func hoverText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Kind, Language, Value string
	}
	if json.Unmarshal(raw, &mc) == nil && mc.Value != "" {
		if mc.Language != "" {
			return "```" + mc.Language + "\n" + mc.Value + "\n```"
		}
		return mc.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, 0, len(list))
		for _, r := range list {
			parts = append(parts, hoverText(r))
		}
		return strings.Join(parts, "\n\n")
	}
	return string(raw)
}

func (t *lspTool) buildSymbols(args map[string]any) (tool.Call, error) {
	query, _ := args["query"].(string)
	if p, _ := args["file_path"].(string); p != "" {
		return t.onFile(args, "", func(ctx context.Context, c *Client, abs, uri string) *tool.Result {
			var syms []symbol
			if err := c.Call(ctx, "textDocument/documentSymbol", documentSymbolParams{TextDocument: textDocumentIdentifier{URI: uri}}, &syms); err != nil {
				return serverFailed(err)
			}
			var lines []string
			listSymbols(&lines, syms, t.rel(abs), "")
			if len(lines) == 0 {
				return tool.Text("No symbols found.")
			}
			return tool.Text(strings.Join(lines, "\n"))
		})
	}
	if query == "" {
		return nil, tool.Errorf(tool.ErrInvalidParams, "Give file_path (a file's symbols) or query (the workspace's).")
	}
	return &funcCall{describe: query, run: func(ctx context.Context) *tool.Result {
		var lines []string
		for _, cfg := range t.m.servers {
			c, err := t.m.Client(ctx, filepath.Join(t.m.opts.Workspace, "_"+cfg.Extensions[0]))
			if err != nil {
				continue
			}
			var syms []symbol
			if c.Call(ctx, "workspace/symbol", workspaceSymbolParams{Query: query}, &syms) != nil {
				continue
			}
			for _, s := range syms {
				if s.Location == nil {
					continue
				}
				lines = append(lines, fmt.Sprintf("%s:%d: %s %s", t.rel(URIPath(s.Location.URI)), s.Location.Range.Start.Line+1, symbolKind(s.Kind), qualified(s)))
			}
		}
		if len(lines) == 0 {
			return tool.Text("No symbols match " + query + ".")
		}
		if len(lines) > maxListed {
			lines = append(lines[:maxListed], fmt.Sprintf("… and %d more", len(lines)-maxListed))
		}
		return tool.Text(strings.Join(lines, "\n"))
	}}, nil
}

func qualified(s symbol) string {
	if s.ContainerName != "" {
		return s.ContainerName + "." + s.Name
	}
	return s.Name
}

// listSymbols flattens document symbols, children indented.
func listSymbols(lines *[]string, syms []symbol, rel, indent string) {
	for _, s := range syms {
		if len(*lines) >= maxListed {
			return
		}
		line := 0
		switch {
		case s.SelectionRange != nil:
			line = s.SelectionRange.Start.Line
		case s.Range != nil:
			line = s.Range.Start.Line
		case s.Location != nil:
			line = s.Location.Range.Start.Line
		}
		name := s.Name
		if s.Detail != "" {
			name += " " + s.Detail
		}
		*lines = append(*lines, fmt.Sprintf("%s%s:%d: %s %s", indent, rel, line+1, symbolKind(s.Kind), name))
		listSymbols(lines, s.Children, rel, indent+"  ")
	}
}

func (t *lspTool) buildRename(args map[string]any) (tool.Call, error) {
	abs, terr := t.file(args)
	if terr != nil {
		return nil, terr
	}
	newName, _ := args["new_name"].(string)
	if strings.TrimSpace(newName) == "" {
		return nil, tool.Errorf(tool.ErrInvalidParams, "The 'new_name' parameter must be non-empty.")
	}
	return &renameCall{t: t, abs: abs, args: args, newName: newName}, nil
}

// renameCall is lsp_rename: the server's workspace edit, confirmed as a
// diff of every file it changes, then written.
type renameCall struct {
	t       *lspTool
	abs     string
	args    map[string]any
	newName string

	mu      sync.Mutex
	planned []fileChange
	err     *tool.Error
}

// fileChange is one file of a rename.
type fileChange struct {
	path      string
	old, text string
}

func (c *renameCall) Describe() string {
	sym, _ := c.args["symbol"].(string)
	return fmt.Sprintf("%s → %s in %s", sym, c.newName, c.t.rel(c.abs))
}

// plan asks the server for the rename, once.
func (c *renameCall) plan(ctx context.Context) ([]fileChange, *tool.Error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.planned != nil || c.err != nil {
		return c.planned, c.err
	}
	c.planned, c.err = c.ask(ctx)
	return c.planned, c.err
}

func (c *renameCall) ask(ctx context.Context) ([]fileChange, *tool.Error) {
	text, err := os.ReadFile(c.abs)
	if err != nil {
		return nil, tool.Errorf(tool.ErrFileNotFound, "Error reading file %s: %v", c.abs, err)
	}
	pos, terr := position(string(text), c.args)
	if terr != nil {
		return nil, terr
	}
	cl, uri, fail := c.t.open(ctx, c.abs)
	if fail != nil {
		return nil, fail.Error
	}
	var we *WorkspaceEdit
	if err := cl.Call(ctx, "textDocument/rename", renameParams{positionParams: positionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: pos}, NewName: c.newName}, &we); err != nil {
		return nil, tool.Errorf(tool.ErrExecutionFailed, "The language server cannot rename this: %v", err)
	}
	edits := map[string][]TextEdit{}
	if we != nil {
		for u, es := range we.Changes {
			edits[URIPath(u)] = append(edits[URIPath(u)], es...)
		}
		for _, raw := range we.DocumentChanges {
			var de textDocumentEdit
			if json.Unmarshal(raw, &de) != nil || de.Kind != "" {
				return nil, tool.Errorf(tool.ErrExecutionFailed, "The language server's rename creates, renames or deletes files, which lsp_rename does not do.")
			}
			edits[URIPath(de.TextDocument.URI)] = append(edits[URIPath(de.TextDocument.URI)], de.Edits...)
		}
	}
	if len(edits) == 0 {
		return nil, tool.Errorf(tool.ErrExecutionFailed, "The language server found nothing to rename at that position.")
	}
	paths := make([]string, 0, len(edits))
	for p := range edits {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var out []fileChange
	for _, p := range paths {
		if p == "" || !c.t.ws.Contains(p) {
			return nil, tool.Errorf(tool.ErrPathNotInWorkspace, "The rename would change %s, outside the workspace.", p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, tool.Errorf(tool.ErrReadContentFailure, "Error reading file %s: %v", p, err)
		}
		newText, err := applyEdits(string(b), edits[p])
		if err != nil {
			return nil, tool.Errorf(tool.ErrExecutionFailed, "The language server's edit of %s does not apply: %v", p, err)
		}
		out = append(out, fileChange{path: p, old: string(b), text: newText})
	}
	return out, nil
}

// applyEdits applies non-overlapping text edits (positions in UTF-16).
func applyEdits(text string, edits []TextEdit) (string, error) {
	lineStarts := []int{0}
	for i, ch := range text {
		if ch == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	offset := func(p Position) (int, error) {
		if p.Line >= len(lineStarts) {
			if p.Line == len(lineStarts) && p.Character == 0 {
				return len(text), nil
			}
			return 0, fmt.Errorf("line %d is past the end", p.Line+1)
		}
		start := lineStarts[p.Line]
		end := len(text)
		if p.Line+1 < len(lineStarts) {
			end = lineStarts[p.Line+1]
		}
		return start + byteOffset(text[start:end], p.Character), nil
	}
	type span struct {
		s, e int
		text string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		s, err := offset(e.Range.Start)
		if err != nil {
			return "", err
		}
		en, err := offset(e.Range.End)
		if err != nil {
			return "", err
		}
		if en < s {
			return "", errors.New("an edit ends before it starts")
		}
		spans = append(spans, span{s, en, e.NewText})
	}
	slices.SortStableFunc(spans, func(a, b span) int { return a.s - b.s })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.s < last {
			return "", errors.New("two edits overlap")
		}
		b.WriteString(text[last:sp.s])
		b.WriteString(sp.text)
		last = sp.e
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

// diff is the unified diff of every file, one after the other.
func (c *renameCall) diff(changes []fileChange) string {
	var b strings.Builder
	for _, ch := range changes {
		b.WriteString(tool.UnifiedDiff(c.t.rel(ch.path), ch.old, ch.text))
	}
	return b.String()
}

// Confirmation shows the rename as an edit: the diff of every file.
func (c *renameCall) Confirmation(ctx context.Context) (*tool.ConfirmationDetails, error) {
	changes, terr := c.plan(ctx)
	if terr != nil {
		return nil, nil // Execute reports it; nothing is written
	}
	first := changes[0]
	old := first.old
	return &tool.ConfirmationDetails{
		Type:            tool.ConfirmEdit,
		Title:           fmt.Sprintf("Confirm Rename: %s", c.Describe()),
		FileName:        filepath.Base(first.path),
		FilePath:        first.path,
		FileDiff:        c.diff(changes),
		OriginalContent: &old,
		NewContent:      first.text,
	}, nil
}

// Execute writes every file of the rename, after checking none changed
// since the diff was shown.
func (c *renameCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	changes, terr := c.plan(ctx)
	if terr != nil {
		return &tool.Result{LLMText: terr.Message, Display: terr.Message, Error: terr}
	}
	for _, ch := range changes {
		if b, err := os.ReadFile(ch.path); err != nil || string(b) != ch.old {
			return tool.Fail(tool.ErrFileWriteFailure, fmt.Sprintf("%s changed since the rename was planned; nothing was written. Ask again.", ch.path))
		}
	}
	if c.t.beforeWrite != nil {
		c.t.beforeWrite(ctx, changes[0].path, c.args)
	}
	var names []string
	for _, ch := range changes {
		if err := fsutil.WriteFileAtomic(ch.path, []byte(ch.text), 0o644); err != nil {
			return tool.Fail(tool.ErrFileWriteFailure, fmt.Sprintf("Error writing to file %s: %v (files before it in %v were written)", ch.path, err, names))
		}
		names = append(names, c.t.rel(ch.path))
		if cl, err := c.t.m.Client(ctx, ch.path); err == nil {
			_, _, _ = cl.Sync(ch.path, ch.text)
		}
	}
	sym, _ := c.args["symbol"].(string)
	msg := fmt.Sprintf("Renamed %s to %s in %d file(s): %s.", sym, c.newName, len(names), strings.Join(names, ", "))
	first := changes[0]
	old := first.old
	d := tool.NewFileDiff(first.path, &old, first.text, first.text)
	d.FileDiff = c.diff(changes)
	return &tool.Result{LLMText: msg, Display: msg, Diff: d}
}
