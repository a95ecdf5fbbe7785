package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitation (elicitation/create) is an MCP server asking the user a
// question in the middle of a request, usually a tool call: either a small
// form described by a flat JSON schema, or a URL the user should open (to
// sign in somewhere, say). The manager advertises both modes to every
// server and hands each request to the face's Options.Elicit callback;
// without one, every request is declined (Gemini CLI 0.61 answers "Method
// not found" instead, which servers treat as an error).

// ElicitMode is how a server asks: with a form or with a URL.
type ElicitMode string

// The elicitation modes of the MCP 2025-11-25 specification.
const (
	ElicitForm ElicitMode = "form"
	ElicitURL  ElicitMode = "url"
)

// ElicitAction is the user's answer to an elicitation.
type ElicitAction string

// The answers a user can give.
const (
	// ElicitAccept: the user submitted the form (or agreed to open the
	// URL).
	ElicitAccept ElicitAction = "accept"
	// ElicitDecline: the user explicitly said no.
	ElicitDecline ElicitAction = "decline"
	// ElicitCancel: the user dismissed the question without choosing.
	ElicitCancel ElicitAction = "cancel"
)

// ElicitRequest is a question from an MCP server to the user.
type ElicitRequest struct {
	// Server is the name of the server asking (its mcpServers key).
	Server string
	// Mode is ElicitForm or ElicitURL.
	Mode ElicitMode
	// Message is the server's question or explanation, to show as is.
	Message string
	// Schema is the requested schema of a form: a JSON object schema
	// whose properties are strings, numbers, integers, booleans or
	// enums. Fields lists them in the order a form shows them.
	Schema map[string]any
	// URL is the page a URL-mode request asks the user to open, and
	// ElicitationID the server's id for it.
	URL           string
	ElicitationID string
}

// ElicitResult is the user's answer.
type ElicitResult struct {
	// Action is accept, decline or cancel.
	Action ElicitAction
	// Content holds the form's values when Action is ElicitAccept in
	// form mode; the manager fills in the schema's defaults and checks it
	// against the schema before it goes to the server.
	Content map[string]any
}

// ElicitFunc asks the user an MCP server's question and waits for the
// answer. ctx ends when the server gives up on the request (or the
// session ends); the callback should then return promptly.
type ElicitFunc func(ctx context.Context, req ElicitRequest) (ElicitResult, error)

// DeclineElicit returns an ElicitFunc for a face that cannot ask anybody
// (a headless run, a protocol without a way to ask its client): it
// declines every request and reports it through report, naming the server
// and the question, with why after it. report may be nil.
func DeclineElicit(why string, report func(string)) ElicitFunc {
	return func(_ context.Context, req ElicitRequest) (ElicitResult, error) {
		if report != nil {
			report(DescribeElicit(req) + " Declined: " + why)
		}
		return ElicitResult{Action: ElicitDecline}, nil
	}
}

// DescribeElicit is one line saying who asks what: the server, the
// message (quoted, so that control characters show as escapes), and the
// fields of a form or the URL.
func DescribeElicit(req ElicitRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "MCP server '%s' asked: %q", req.Server, oneLine(req.Message))
	switch req.Mode {
	case ElicitURL:
		fmt.Fprintf(&b, " (open %s)", printable(req.URL))
	default:
		var names []string
		for _, f := range ElicitFields(req.Schema) {
			names = append(names, printable(f.Name))
		}
		if len(names) > 0 {
			fmt.Fprintf(&b, " (fields: %s)", strings.Join(names, ", "))
		}
	}
	b.WriteString(".")
	return b.String()
}

// printable replaces control characters (a terminal's escape sequences)
// in what a server sent with '?': the line may go to a terminal.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// elicit answers one elicitation/create from server s: it hands the
// request to the face's callback (or declines) and checks the answer.
func (s *server) elicit(ctx context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	p := r.Params
	if p == nil {
		return nil, errors.New("elicitation/create without params")
	}
	req := ElicitRequest{Server: s.cfg.Name, Mode: ElicitMode(p.Mode), Message: p.Message, URL: p.URL, ElicitationID: p.ElicitationID}
	if req.Mode == "" {
		req.Mode = ElicitForm
		if p.URL != "" {
			req.Mode = ElicitURL
		}
	}
	if req.Mode == ElicitForm {
		schema, err := schemaMap(p.RequestedSchema)
		if err != nil {
			return nil, fmt.Errorf("requestedSchema: %w", err)
		}
		req.Schema = schema
	}
	ask := s.m.elicit
	if ask == nil {
		ask = DeclineElicit("no one can answer in this session.", s.m.debug)
	}
	res, err := ask(ctx, req)
	if err != nil {
		return nil, err
	}
	switch res.Action {
	case ElicitAccept:
	case ElicitDecline, ElicitCancel:
		return &sdk.ElicitResult{Action: string(res.Action)}, nil
	default:
		return nil, fmt.Errorf("elicitation answer %q is not accept, decline or cancel", res.Action)
	}
	if req.Mode != ElicitForm {
		return &sdk.ElicitResult{Action: string(ElicitAccept)}, nil
	}
	data, err := json.Marshal(res.Content)
	if err != nil {
		return nil, fmt.Errorf("elicitation content: %w", err)
	}
	content, err := DecodeElicitContent(req.Schema, data)
	if err != nil {
		s.m.debugf("MCP server '%s': the answer to its question does not fit its schema: %v", s.cfg.Name, err)
		return nil, err
	}
	return &sdk.ElicitResult{Action: string(ElicitAccept), Content: content}, nil
}

// schemaMap turns the SDK's decoded requestedSchema (a map, or raw JSON)
// into a JSON object.
func schemaMap(v any) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	return m, nil
}

// DecodeElicitContent decodes data, the JSON object a user's accepted
// form produced, fills in the defaults of properties left out, and checks
// the result against schema (the request's requested schema; nil accepts
// any object). The error names the offending property.
func DecodeElicitContent(schema map[string]any, data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var content map[string]any
	if err := dec.Decode(&content); err != nil {
		return nil, fmt.Errorf("elicitation content is not a JSON object: %v", err)
	}
	if dec.More() {
		return nil, errors.New("elicitation content has data after its JSON object")
	}
	if content == nil {
		content = map[string]any{}
	}
	if schema == nil {
		return content, nil
	}
	rs, err := resolveSchema(schema)
	if err != nil {
		return nil, err
	}
	if err := rs.ApplyDefaults(&content); err != nil {
		return nil, fmt.Errorf("applying the schema's defaults: %v", err)
	}
	if err := rs.Validate(content); err != nil {
		return nil, fmt.Errorf("elicitation content does not match the requested schema: %v", err)
	}
	return content, nil
}

// resolveSchema compiles a requested schema for validation.
func resolveSchema(schema map[string]any) (*jsonschema.Resolved, error) {
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("requested schema: %v", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("requested schema: %v", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("requested schema: %v", err)
	}
	return rs, nil
}

// ElicitField is one property of a requested form, as a face shows it.
type ElicitField struct {
	// Name is the property's key in the content.
	Name string
	// Title and Description are the schema's words for it (Title falls
	// back to Name).
	Title, Description string
	// Type is "string", "number", "integer", "boolean", "enum" (a string
	// with a list of choices; also the newer oneOf/const form) or "multi"
	// (an array of choices: a multiple-select enum).
	Type string
	// Choices are the enum's values and ChoiceTitles their labels.
	Choices, ChoiceTitles []string
	// Default is the schema's default, or nil.
	Default any
	// Required says the form cannot be accepted without it.
	Required bool
	// Format is a string's format (email, uri, date, date-time), if any.
	Format string
}

// ElicitFields lists the properties of a requested schema in the order a
// form shows them: required ones first in the order "required" names them,
// then the others by name (a decoded JSON object keeps no order).
func ElicitFields(schema map[string]any) []ElicitField {
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		return nil
	}
	required := map[string]bool{}
	var order []string
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if n, ok := r.(string); ok && props[n] != nil && !required[n] {
				required[n] = true
				order = append(order, n)
			}
		}
	}
	var rest []string
	for n := range props {
		if !required[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	order = append(order, rest...)
	out := make([]ElicitField, 0, len(order))
	for _, n := range order {
		p, _ := props[n].(map[string]any)
		f := ElicitField{Name: n, Required: required[n], Default: p["default"]}
		f.Title, _ = p["title"].(string)
		if f.Title == "" {
			f.Title = n
		}
		f.Description, _ = p["description"].(string)
		f.Format, _ = p["format"].(string)
		f.Type, _ = p["type"].(string)
		if f.Type == "array" {
			items, _ := p["items"].(map[string]any)
			if f.Choices, f.ChoiceTitles = choicesOf(items); f.Choices != nil {
				f.Type = "multi"
			}
		} else if f.Choices, f.ChoiceTitles = choicesOf(p); f.Choices != nil {
			f.Type = "enum"
		}
		if f.Type == "" {
			f.Type = "string"
		}
		out = append(out, f)
	}
	return out
}

// choicesOf reads the choices of an enum schema: enum (with the legacy
// enumNames as titles), or oneOf/anyOf entries with a const and a title.
func choicesOf(p map[string]any) (values, titles []string) {
	if enum, ok := p["enum"].([]any); ok {
		names, _ := p["enumNames"].([]any)
		for i, e := range enum {
			v := fmt.Sprint(e)
			t := v
			if i < len(names) {
				if s, ok := names[i].(string); ok {
					t = s
				}
			}
			values, titles = append(values, v), append(titles, t)
		}
		return values, titles
	}
	one, ok := p["oneOf"].([]any)
	if !ok {
		one, _ = p["anyOf"].([]any)
	}
	for _, o := range one {
		om, _ := o.(map[string]any)
		c, ok := om["const"]
		if !ok {
			continue
		}
		v := fmt.Sprint(c)
		t, _ := om["title"].(string)
		if t == "" {
			t = v
		}
		values, titles = append(values, v), append(titles, t)
	}
	return values, titles
}

// ParseValue turns what the user typed into the field's JSON value: a
// number for number and integer fields, true or false for booleans (also
// yes/no, y/n, 1/0), one of the choices for enums (its value or its
// title), a list of choices for multiple-select fields (separated by
// commas), the text itself for strings. Empty text is (nil, nil): the
// field is left out, and its default applies.
func (f ElicitField) ParseValue(text string) (any, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, nil
	}
	switch f.Type {
	case "number":
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("%s: %q is not a number", f.Name, t)
		}
		return v, nil
	case "integer":
		v, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a whole number", f.Name, t)
		}
		return v, nil
	case "boolean":
		switch strings.ToLower(t) {
		case "true", "yes", "y", "1", "on":
			return true, nil
		case "false", "no", "n", "0", "off":
			return false, nil
		}
		return nil, fmt.Errorf("%s: %q is not yes or no", f.Name, t)
	case "enum":
		return f.choice(t)
	case "multi":
		list := []any{}
		for _, item := range strings.Split(t, ",") {
			if item = strings.TrimSpace(item); item == "" {
				continue
			}
			c, err := f.choice(item)
			if err != nil {
				return nil, err
			}
			list = append(list, c)
		}
		return list, nil
	}
	return text, nil
}

// choice is the choice t names, by value or title.
func (f ElicitField) choice(t string) (any, error) {
	for i, c := range f.Choices {
		if t == c || strings.EqualFold(t, f.ChoiceTitles[i]) {
			return c, nil
		}
	}
	return nil, fmt.Errorf("%s: %q is not one of %s", f.Name, t, strings.Join(f.Choices, ", "))
}

// FormatValue is the text a form shows for v, the field's value or
// default (the inverse of ParseValue).
func (f ElicitField) FormatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []any:
		var items []string
		for _, e := range v {
			items = append(items, f.FormatValue(e))
		}
		return strings.Join(items, ", ")
	}
	return fmt.Sprint(v)
}
