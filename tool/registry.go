package tool

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/textutil"
)

// Registry holds the tools of a session, by name.
type Registry struct {
	mu      sync.RWMutex
	tools   map[string]Tool
	aliases map[string]string
	order   []string
	// decls caches each tool's declaration: building schemas on every
	// model call cost more than the rest of a turn.
	decls map[string]*genai.FunctionDeclaration
	// params caches each tool's parameter schema resolved for
	// validation, on its first call: resolving costs far more than
	// validating.
	params map[string]*paramSchema
}

// NewRegistry returns a registry holding tools, in order.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{tools: map[string]Tool{}, aliases: map[string]string{}, decls: map[string]*genai.FunctionDeclaration{}, params: map[string]*paramSchema{}}
	for _, t := range tools {
		r.Register(t)
	}
	return r
}

// Register adds t, replacing any tool of the same name.
func (r *Registry) Register(t Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := t.Name()
	if _, ok := r.tools[name]; !ok {
		r.order = append(r.order, name)
	}
	r.tools[name] = t
	r.decls[name] = Declaration(t)
	delete(r.params, name)
	if a, ok := t.(Aliased); ok {
		for _, alias := range a.Aliases() {
			r.aliases[alias] = name
		}
	}
}

// Unregister removes the tool called name.
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.tools, name)
	delete(r.decls, name)
	delete(r.params, name)
	for i, n := range r.order {
		if n == name {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
	for a, n := range r.aliases {
		if n == name {
			delete(r.aliases, a)
		}
	}
}

// Get returns the tool called name, or answering to name as an alias.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if t, ok := r.tools[name]; ok {
		return t, true
	}
	if n, ok := r.aliases[name]; ok {
		t, ok := r.tools[n]
		return t, ok
	}
	return nil, false
}

// Tools returns the registered tools in registration order.
func (r *Registry) Tools() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tools[n])
	}
	return out
}

// Names returns the registered tool names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]string(nil), r.order...)
}

// Declarations returns the declarations of the tools keep accepts (all
// when keep is nil), in registration order.
func (r *Registry) Declarations(keep func(Tool) bool) []*genai.FunctionDeclaration {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*genai.FunctionDeclaration
	for _, n := range r.order {
		if t := r.tools[n]; keep == nil || keep(t) {
			out = append(out, r.decls[n])
		}
	}
	return out
}

// paramSchema returns t's parameter schema resolved for validation,
// from the cache or resolved now and cached while t's declaration is
// still the registered one.
func (r *Registry) paramSchema(t Tool) *paramSchema {
	name := t.Name()
	r.mu.RLock()
	p, d := r.params[name], r.decls[name]
	r.mu.RUnlock()
	if p != nil {
		return p
	}
	var schema map[string]any
	if d != nil {
		schema, _ = d.ParametersJsonSchema.(map[string]any)
	}
	if schema == nil {
		return newParamSchema(t.Schema())
	}
	p = newParamSchema(schema)
	r.mu.Lock()
	if r.decls[name] == d {
		r.params[name] = p
	}
	r.mu.Unlock()
	return p
}

// NotFound returns the error for a call to an unknown tool, suggesting the
// three closest names among candidates, as Gemini CLI does.
func NotFound(name string, candidates []string) *Error {
	type scored struct {
		name string
		dist int
		idx  int
	}
	s := make([]scored, len(candidates))
	for i, c := range candidates {
		s[i] = scored{c, textutil.EditDistance(name, c), i}
	}
	sort.SliceStable(s, func(i, j int) bool { return s[i].dist < s[j].dist })
	msg := fmt.Sprintf("Tool %q not found.", name)
	if len(s) > 0 {
		n := min(3, len(s))
		quoted := make([]string, n)
		for i := range n {
			quoted[i] = fmt.Sprintf("%q", s[i].name)
		}
		msg += " Did you mean one of: " + strings.Join(quoted, ", ") + "?"
	}
	return &Error{Type: ErrToolNotRegistered, Message: msg}
}

// Prepare resolves name, normalizes and validates args and builds the call.
// Every failure is a typed *Error meant for the model.
func (r *Registry) Prepare(name string, args map[string]any, visible []string) (Tool, Call, *Error) {
	t, ok := r.Get(name)
	if !ok {
		if visible == nil {
			visible = r.Names()
		}
		return nil, nil, NotFound(name, visible)
	}
	if args == nil {
		args = map[string]any{}
	}
	if n, ok := t.(ArgNormalizer); ok {
		args = n.NormalizeArgs(args)
	}
	if msg := r.paramSchema(t).check(args); msg != "" {
		return t, nil, &Error{Type: ErrInvalidParams, Message: msg}
	}
	c, err := t.Build(args)
	if err != nil {
		if te, ok := err.(*Error); ok {
			return t, nil, te
		}
		return t, nil, &Error{Type: ErrInvalidParams, Message: err.Error()}
	}
	return t, c, nil
}
