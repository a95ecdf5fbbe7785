package otlp

import "go.opentelemetry.io/otel/attribute"

// resGroup is the items of one resource, by scope.
type resGroup struct {
	res    *Resource
	scopes []scopeGroup
}

// scopeGroup is the indexes of one scope's items.
type scopeGroup struct {
	scope Scope
	items []int
}

// group sorts n items into resources and scopes, each in the order it
// first appears, as ResourceSpans/ScopeSpans (and their log twins) nest
// them.
func group(n int, of func(int) (*Resource, Scope)) []resGroup {
	var (
		out    []resGroup
		byRes  = map[attribute.Distinct]int{}
		byScop = map[scopeKey]int{}
	)
	for i := range n {
		res, sc := of(i)
		rk := res.Set().Equivalent()
		ri, ok := byRes[rk]
		if !ok {
			ri = len(out)
			byRes[rk] = ri
			out = append(out, resGroup{res: res})
		}
		sk := scopeKey{rk, sc}
		si, ok := byScop[sk]
		if !ok {
			si = len(out[ri].scopes)
			byScop[sk] = si
			out[ri].scopes = append(out[ri].scopes, scopeGroup{scope: sc})
		}
		out[ri].scopes[si].items = append(out[ri].scopes[si].items, i)
	}
	return out
}

type scopeKey struct {
	res   attribute.Distinct
	scope Scope
}

// Field numbers shared by ExportTraceServiceRequest and
// ExportLogsServiceRequest: ResourceSpans and ResourceLogs, ScopeSpans and
// ScopeLogs have the same shape.
const (
	reqResources   = 1 // resource_spans, resource_logs
	resResource    = 1
	resScopes      = 2 // scope_spans, scope_logs
	resSchemaURL   = 3
	scopeScope     = 1
	scopeItems     = 2 // spans, log_records
	scopeSchemaURL = 3
)

// encodeGrouped writes n items (spans or log records) nested by resource
// and scope. withRes says whether a resource is written (the official
// trace exporter writes every one, its log exporter only one with
// attributes); an empty scope is left out. item writes the fields of one.
func encodeGrouped(e *enc, n int, of func(int) (*Resource, Scope), withRes func(*Resource) bool, item func(int)) {
	for _, rg := range group(n, of) {
		r := e.open(reqResources)
		if withRes(rg.res) {
			e.resource(resResource, rg.res)
		}
		for _, sg := range rg.scopes {
			s := e.open(resScopes)
			if sg.scope != (Scope{}) {
				e.scope(scopeScope, sg.scope)
			}
			for _, i := range sg.items {
				m := e.open(scopeItems)
				item(i)
				e.close(m)
			}
			e.stringNZ(scopeSchemaURL, sg.scope.SchemaURL)
			e.close(s)
		}
		e.stringNZ(resSchemaURL, rg.res.SchemaURL())
		e.close(r)
	}
}
