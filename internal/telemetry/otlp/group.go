package otlp

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
)

// resGroup is the items of one resource, by scope.
type resGroup struct {
	res    *resource.Resource
	scopes []scopeGroup
}

// scopeGroup is the indexes of one scope's items.
type scopeGroup struct {
	scope instrumentation.Scope
	items []int
}

// group sorts n items into resources and scopes, each in the order it
// first appears, as ResourceSpans/ScopeSpans (and their log twins) nest
// them.
func group(n int, of func(int) (*resource.Resource, instrumentation.Scope)) []resGroup {
	var (
		out    []resGroup
		byRes  = map[attribute.Distinct]int{}
		byScop = map[scopeKey]int{}
	)
	for i := range n {
		res, sc := of(i)
		rk := res.Equivalent()
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
	scope instrumentation.Scope
}
