package discovered

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Prefix starts the name of every discovered tool, as in Gemini CLI, so
// that policy rules can name them all (discovered_tool_*) and they never
// clash with built-in or MCP tools.
const Prefix = "discovered_tool_"

// maxNameLength is the longest function name the Gemini API accepts; a
// longer one would make every model request of the session fail.
const maxNameLength = 64

// Declaration is one function a discovery command declared.
type Declaration struct {
	// Name is the name the command gave, which the call command receives;
	// the model sees it with Prefix before it.
	Name        string
	Description string
	// Schema is parametersJsonSchema, the JSON Schema of the arguments
	// ({} when the declaration has none).
	Schema map[string]any
}

// ParseDeclarations reads what a discovery command printed: a JSON array
// whose items are function declarations ({"name", "description",
// "parametersJsonSchema"}) or tools holding them under
// "function_declarations" or "functionDeclarations", the shapes Gemini
// CLI accepts. Output that is not such an array is an error. A malformed
// item or declaration is skipped and described in notes, one line each,
// as is anything of a declaration that is ignored; a name declared twice
// keeps its last declaration, as Gemini CLI's registry does.
func ParseDeclarations(out []byte) (decls []Declaration, notes []string, err error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return nil, nil, errors.New("printed nothing; want a JSON array of function declarations")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(out, &items); err != nil || items == nil {
		var v any
		if json.Unmarshal(out, &v) == nil {
			return nil, nil, fmt.Errorf("printed JSON %s, not an array of function declarations", jsonKind(v))
		}
		return nil, nil, fmt.Errorf("printed invalid JSON: %v", err)
	}
	index := map[string]int{}
	add := func(d Declaration, where string) {
		if i, ok := index[d.Name]; ok {
			notes = append(notes, fmt.Sprintf("tool %q is declared again (%s): the later declaration is used", d.Name, where))
			decls[i] = d
			return
		}
		index[d.Name] = len(decls)
		decls = append(decls, d)
	}
	use := func(obj map[string]json.RawMessage, where string) (Declaration, bool) {
		d, problem, note := declaration(obj)
		if problem != "" {
			notes = append(notes, fmt.Sprintf("%s skipped: %s", describe(where, d.Name), problem))
			return d, false
		}
		if note != "" {
			notes = append(notes, fmt.Sprintf("%s: %s", describe(where, d.Name), note))
		}
		return d, true
	}
	for i, raw := range items {
		where := fmt.Sprintf("item %d", i+1)
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil || obj == nil {
			notes = append(notes, fmt.Sprintf("%s skipped: it is not a JSON object", where))
			continue
		}
		list, key, ok := declarationList(obj)
		if !ok {
			if d, ok := use(obj, where); ok {
				add(d, where)
			}
			continue
		}
		if list == nil {
			notes = append(notes, fmt.Sprintf("%s skipped: %s is not an array", where, key))
			continue
		}
		for j, raw := range list {
			where := fmt.Sprintf("item %d, %s[%d]", i+1, key, j)
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil || obj == nil {
				notes = append(notes, fmt.Sprintf("%s skipped: it is not a JSON object", where))
				continue
			}
			if d, ok := use(obj, where); ok {
				add(d, where)
			}
		}
	}
	return decls, notes, nil
}

// declarationList finds a tool's list of declarations, under
// "function_declarations" or else "functionDeclarations". ok is false when
// obj holds no array under either key and has a name (it is then a
// declaration itself, as Gemini CLI takes it); list is nil when it holds
// neither an array nor a name, key then naming what it holds instead.
func declarationList(obj map[string]json.RawMessage) (list []json.RawMessage, key string, ok bool) {
	keys := []string{"function_declarations", "functionDeclarations"}
	for _, k := range keys {
		if raw, found := obj[k]; found && json.Unmarshal(raw, &list) == nil && list != nil {
			return list, k, true
		}
	}
	if _, named := obj["name"]; named {
		return nil, "", false
	}
	for _, k := range keys {
		if _, found := obj[k]; found {
			return nil, k, true
		}
	}
	return nil, "", false
}

// declaration reads one function declaration; problem says why it cannot
// be used (d.Name is filled in when known, for the message), note what
// of it is ignored.
func declaration(obj map[string]json.RawMessage) (d Declaration, problem, note string) {
	raw, ok := obj["name"]
	if !ok || isNull(raw) {
		return d, "it has no name", ""
	}
	if json.Unmarshal(raw, &d.Name) != nil {
		return d, "its name is not a string", ""
	}
	if d.Name == "" {
		return d, "it has no name", ""
	}
	if p := nameProblem(d.Name); p != "" {
		return d, p, ""
	}
	if raw, ok := obj["description"]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &d.Description) != nil {
			return d, "its description is not a string", ""
		}
	}
	d.Schema = map[string]any{}
	if raw, ok := obj["parametersJsonSchema"]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &d.Schema) != nil || d.Schema == nil {
			return d, "its parametersJsonSchema is not a JSON object", ""
		}
	} else if raw, ok := obj["parameters"]; ok && !isNull(raw) {
		// Gemini CLI reads parametersJsonSchema only: an older
		// declaration's OpenAPI "parameters" are dropped without a word
		// there.
		return d, "", "its parameters are ignored: only parametersJsonSchema is read, so the tool takes no declared arguments"
	}
	return d, "", ""
}

// nameProblem checks that Prefix+name is a function name the Gemini API
// accepts: letters, digits, "_", ".", ":" and "-", 64 characters at most
// (the prefix supplies the leading letter the API wants).
func nameProblem(name string) string {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':' || c == '-') {
			return "its name may only hold letters, digits, '_', '.', ':' and '-'"
		}
	}
	if n := len(Prefix) + len(name); n > maxNameLength {
		return fmt.Sprintf("its name is too long (%s%s has %d characters; the Gemini API allows %d)", Prefix, name, n, maxNameLength)
	}
	return ""
}

// describe names a declaration in a message: by its name when it has a
// printable one, else by where it is.
func describe(where, name string) string {
	if name == "" {
		return where
	}
	return fmt.Sprintf("tool %q (%s)", name, where)
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// jsonKind names the type of a decoded JSON value, for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return strings.TrimSpace(fmt.Sprintf("%T", v))
}
