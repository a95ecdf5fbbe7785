package config

import (
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// mergeStrategy says how a later settings layer combines with an earlier one
// at one key. The zero value replaces: objects are merged key by key, every
// other value (arrays included) is replaced.
type mergeStrategy int

const (
	mergeReplace mergeStrategy = iota
	// mergeConcat appends the later array to the earlier one.
	mergeConcat
	// mergeUnion appends, dropping values already present.
	mergeUnion
	// mergeShallow replaces the object's members one by one without merging
	// inside them (an MCP server defined in a workspace replaces the user's
	// server of the same name as a whole).
	mergeShallow
)

// mergeStrategies lists the keys of Gemini CLI's settings schema that do not
// simply replace. "hooks.*" stands for every member of hooks.
var mergeStrategies = lazy.Value[map[string]mergeStrategy]{New: func() map[string]mergeStrategy {
	return map[string]mergeStrategy{
		"mcpServers":                 mergeShallow,
		"providers":                  mergeShallow,
		"context.includeDirectories": mergeConcat,
		"context.fileFiltering.customIgnoreFilePaths": mergeUnion,
		"tools.exclude":                           mergeUnion,
		"advanced.excludedEnvVars":                mergeUnion,
		"extensions.disabled":                     mergeUnion,
		"extensions.workspacesWithMigrationNudge": mergeUnion,
		"skills.disabled":                         mergeUnion,
		"hooksConfig.disabled":                    mergeUnion,
		"hooks.*":                                 mergeConcat,
		"policyPaths":                             mergeUnion,
		"adminPolicyPaths":                        mergeUnion,
	}
}}

// strategyFor returns the merge strategy at path.
func strategyFor(path []string) mergeStrategy {
	if s, ok := mergeStrategies.Get()[strings.Join(path, ".")]; ok {
		return s
	}
	if len(path) == 2 && path[0] == "hooks" {
		return mergeStrategies.Get()["hooks.*"]
	}
	return mergeReplace
}

// mergeInto merges src into target (which it modifies and returns), the way
// Gemini CLI's customDeepMerge does; path is where target sits in the whole
// settings tree. Values taken from src are deep-copied so that the merged
// tree never aliases a layer.
func mergeInto(target, src map[string]any, path []string) map[string]any {
	for k, sv := range src {
		if k == "__proto__" || k == "constructor" || k == "prototype" {
			continue
		}
		kp := append(path[:len(path):len(path)], k)
		strategy := strategyFor(kp)
		tv, exists := target[k]

		if strategy == mergeShallow && truthy(tv) && truthy(sv) {
			merged := map[string]any{}
			if tm, ok := tv.(map[string]any); ok {
				for mk, mv := range tm {
					merged[mk] = mv
				}
			}
			if sm, ok := sv.(map[string]any); ok {
				for mk, mv := range sm {
					merged[mk] = deepCopy(mv)
				}
			}
			target[k] = merged
			continue
		}
		if ta, ok := tv.([]any); ok && exists && (strategy == mergeConcat || strategy == mergeUnion) {
			sa, ok := sv.([]any)
			if !ok {
				sa = []any{sv}
			}
			out := append(ta[:len(ta):len(ta)], deepCopy(sa).([]any)...)
			if strategy == mergeUnion {
				out = uniqueValues(out)
			}
			target[k] = out
			continue
		}
		sm, srcObj := sv.(map[string]any)
		tm, tgtObj := tv.(map[string]any)
		switch {
		case srcObj && tgtObj:
			mergeInto(tm, sm, kp)
		case srcObj:
			target[k] = mergeInto(map[string]any{}, sm, kp)
		default:
			target[k] = deepCopy(sv)
		}
	}
	return target
}

// truthy mirrors JavaScript truthiness for decoded JSON values.
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case float64:
		return t != 0 && t == t
	default:
		return true
	}
}

// uniqueValues drops repeated scalar values, keeping the first; objects and
// arrays are never equal to each other (JavaScript's Set compares them by
// identity).
func uniqueValues(in []any) []any {
	seen := map[any]bool{}
	out := in[:0:0]
	for _, v := range in {
		switch v.(type) {
		case string, float64, bool, nil:
			if seen[v] {
				continue
			}
			seen[v] = true
		}
		out = append(out, v)
	}
	return out
}

// deepCopy copies a decoded JSON tree.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(t))
		for i, e := range t {
			a[i] = deepCopy(e)
		}
		return a
	default:
		return v
	}
}
