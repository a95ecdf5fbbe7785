package lsp

import "encoding/json"

// The subset of the Language Server Protocol (3.17) Castor speaks, by
// hand: go.lsp.dev/protocol (v0.12.0, 2022, LSP 3.16) links zap and its
// own JSON encoder into every binary for the twenty types used here, and
// x/tools' protocol package is internal to gopls. Field names are the
// specification's.

// Position is a zero-based line and UTF-16 character offset.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a half-open span of positions.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// locationLink is the other shape textDocument/definition may answer.
type locationLink struct {
	TargetURI            string `json:"targetUri"`
	TargetRange          Range  `json:"targetRange"`
	TargetSelectionRange Range  `json:"targetSelectionRange"`
}

// Severity is a diagnostic's severity (1 error … 4 hint).
type Severity int

// Diagnostic severities.
const (
	SeverityError       Severity = 1
	SeverityWarning     Severity = 2
	SeverityInformation Severity = 3
	SeverityHint        Severity = 4
)

// String is the severity in a lower-case word.
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInformation:
		return "info"
	case SeverityHint:
		return "hint"
	}
	return "error" // the specification: a missing severity is the client's to decide
}

// Diagnostic is one problem a server reports.
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity Severity        `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

// publishDiagnosticsParams is textDocument/publishDiagnostics.
type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type versionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type contentChange struct {
	Text string `json:"text"`
}

type didChangeParams struct {
	TextDocument   versionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                 `json:"contentChanges"`
}

type positionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

type referenceParams struct {
	positionParams
	Context struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

type renameParams struct {
	positionParams
	NewName string `json:"newName"`
}

type workspaceSymbolParams struct {
	Query string `json:"query"`
}

type documentSymbolParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

// TextEdit replaces a range with new text.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// WorkspaceEdit is a rename's answer: edits per document, in either of
// the protocol's two shapes.
type WorkspaceEdit struct {
	Changes         map[string][]TextEdit `json:"changes,omitempty"`
	DocumentChanges []json.RawMessage     `json:"documentChanges,omitempty"`
}

type textDocumentEdit struct {
	TextDocument versionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []TextEdit                      `json:"edits"`
	Kind         string                          `json:"kind,omitempty"` // create, rename, delete: resource operations
}

// hover is textDocument/hover's answer; contents is MarkupContent, a
// MarkedString or a list of them.
type hover struct {
	Contents json.RawMessage `json:"contents"`
}

// symbol is a DocumentSymbol or a SymbolInformation (the two answers of
// textDocument/documentSymbol; workspace/symbol gives the second, or a
// WorkspaceSymbol whose location may lack a range).
type symbol struct {
	Name           string    `json:"name"`
	Detail         string    `json:"detail,omitempty"`
	Kind           int       `json:"kind"`
	ContainerName  string    `json:"containerName,omitempty"`
	Range          *Range    `json:"range,omitempty"`
	SelectionRange *Range    `json:"selectionRange,omitempty"`
	Location       *Location `json:"location,omitempty"`
	Children       []symbol  `json:"children,omitempty"`
}

// symbolKinds names SymbolKind values 1…26.
var symbolKinds = [...]string{"", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

func symbolKind(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "symbol"
}
