package tool

import (
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// This file words a rejected call the way Gemini CLI shows it: Ajv 8
// (allErrors off) run through errorsText with dataVar "params". It is
// wording only: jsonschema-go has already decided the call is invalid,
// and each keyword below tests what jsonschema-go tests (its equality,
// its code-point string lengths, its draft rules), so the walker finds
// the failure jsonschema-go found; the order in which keywords are tried
// and what each says are Ajv's.

// ajvError is one entry of Ajv's error list.
type ajvError struct {
	path string // instance path, "" or a JSON pointer such as "/todos/0"
	msg  string
}

// errorsText joins errors as Ajv's errorsText does with dataVar "params".
func errorsText(errs []ajvError) string {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = "params" + e.path + " " + e.msg
	}
	return strings.Join(parts, ", ")
}

// walker finds Ajv's errors in a resolved schema tree.
type walker struct {
	root   *jsonschema.Schema
	draft7 bool // jsonschema-go's draft-07 rules, else 2020-12's
}

// errs returns the errors Ajv reports for v under s at path, or nil when
// v conforms. composite is Ajv's compositeRule: under anyOf, oneOf, not,
// if, contains and propertyNames, failed subschemas' errors pile up
// instead of ending validation, and some keywords add their own after.
//
// Ajv's order for one schema (its RULES table; the first failure ends):
//
//	type      unless the schema has rules for its single type (hasRulesFor)
//	any value $ref const enum not anyOf oneOf allOf if/then/else
//	number    maximum minimum exclusiveMaximum exclusiveMinimum multipleOf
//	string    maxLength minLength pattern
//	array     maxItems minItems additionalItems|prefixItems items contains uniqueItems
//	object    maxProperties minProperties required propertyNames
//	          additionalProperties dependencies properties patternProperties
//	          (2020-12: then dependentRequired dependentSchemas
//	          unevaluatedProperties; unevaluatedItems ends the array group)
func (w *walker) errs(s *jsonschema.Schema, v any, path string, composite bool) []ajvError {
	if s == nil {
		return nil
	}
	one := func(msg string) []ajvError { return []ajvError{{path, msg}} }
	if isFalse(s) {
		return one("boolean schema is false")
	}
	if s.Ref != "" && w.draft7 {
		// Draft-07: jsonschema-go ignores the keywords beside $ref.
		return w.errs(w.deref(s.Ref), v, path, composite)
	}
	types := schemaTypes(s)
	deferred := len(types) == 1 && w.hasRulesFor(s, types[0])
	if len(types) > 0 && !deferred && !hasType(types, v) {
		if !composite {
			return one("must be " + strings.Join(types, ","))
		}
		// In a composite rule Ajv goes on to the keywords for any
		// value, and the first of those to fail adds its errors too.
		return append(one("must be "+strings.Join(types, ",")), w.anyKeywords(s, v, path, composite)...)
	}
	if e := w.anyKeywords(s, v, path, composite); e != nil {
		return e
	}
	// A deferred "type" fails in its own type's rule group, so the
	// value's own group comes first when it is earlier in Ajv's order
	// ("minLength" fails before "must be array").
	kind := kindOf(v)
	for _, g := range []string{"number", "string", "array", "object"} {
		if deferred && g == types[0] && !hasType(types, v) {
			return one("must be " + types[0])
		}
		if g == kind {
			if e := w.kindKeywords(s, v, path, composite); e != nil {
				return e
			}
		}
	}
	return nil
}

// kindOf names the rule group of v's kind ("" for booleans and null).
func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	if _, ok := number(v); ok {
		return "number"
	}
	return ""
}

// kindKeywords checks the keywords of the rule group of v's kind.
func (w *walker) kindKeywords(s *jsonschema.Schema, v any, path string, composite bool) []ajvError {
	switch x := v.(type) {
	case string:
		return w.stringKeywords(s, x, path)
	case []any:
		return w.arrayKeywords(s, x, path, composite)
	case map[string]any:
		return w.objectKeywords(s, x, path, composite)
	}
	f, _ := number(v)
	return numberKeywords(s, f, path)
}

// valid reports whether v conforms to s, as a subschema of a composite
// keyword sees it.
func (w *walker) valid(s *jsonschema.Schema, v any) bool {
	return w.errs(s, v, "", true) == nil
}

func (w *walker) anyKeywords(s *jsonschema.Schema, v any, path string, composite bool) []ajvError {
	one := func(msg string) []ajvError { return []ajvError{{path, msg}} }
	if s.Ref != "" {
		if e := w.errs(w.deref(s.Ref), v, path, composite); e != nil {
			return e
		}
	}
	if s.Const != nil && !jsonschema.Equal(*s.Const, v) {
		return one("must be equal to constant")
	}
	if s.Enum != nil && !slices.ContainsFunc(s.Enum, func(e any) bool { return jsonschema.Equal(e, v) }) {
		return one("must be equal to one of the allowed values")
	}
	if s.Not != nil && w.valid(s.Not, v) {
		return one("must NOT be valid")
	}
	if s.AnyOf != nil {
		var all []ajvError
		for _, b := range s.AnyOf {
			e := w.errs(b, v, path, true)
			if e == nil {
				all = nil
				break
			}
			all = append(all, e...)
		}
		if all != nil {
			return append(all, ajvError{path, "must match a schema in anyOf"})
		}
	}
	if s.OneOf != nil {
		var failed []ajvError
		n := 0
		for _, b := range s.OneOf {
			if e := w.errs(b, v, path, true); e != nil {
				failed = append(failed, e...)
			} else {
				n++
			}
		}
		if n != 1 {
			return append(failed, ajvError{path, "must match exactly one schema in oneOf"})
		}
	}
	for _, b := range s.AllOf {
		if e := w.errs(b, v, path, composite); e != nil {
			return e
		}
	}
	if s.If != nil {
		branch, name := s.Else, "else"
		if w.valid(s.If, v) {
			branch, name = s.Then, "then"
		}
		if e := w.errs(branch, v, path, composite); e != nil {
			if !composite {
				// Outside a composite rule Ajv returns the branch's
				// own error before adding its "must match" one.
				return e
			}
			return append(e, ajvError{path, `must match "` + name + `" schema`})
		}
	}
	return nil
}

func numberKeywords(s *jsonschema.Schema, f float64, path string) []ajvError {
	one := func(msg string) []ajvError { return []ajvError{{path, msg}} }
	switch {
	case s.Maximum != nil && f > *s.Maximum:
		return one("must be <= " + jsNum(*s.Maximum))
	case s.Minimum != nil && f < *s.Minimum:
		return one("must be >= " + jsNum(*s.Minimum))
	case s.ExclusiveMaximum != nil && f >= *s.ExclusiveMaximum:
		return one("must be < " + jsNum(*s.ExclusiveMaximum))
	case s.ExclusiveMinimum != nil && f <= *s.ExclusiveMinimum:
		return one("must be > " + jsNum(*s.ExclusiveMinimum))
	}
	if s.MultipleOf != nil {
		// jsonschema-go's test, so both agree on what is a multiple.
		if _, frac := math.Modf(f / *s.MultipleOf); frac != 0 {
			return one("must be multiple of " + jsNum(*s.MultipleOf))
		}
	}
	return nil
}

func (w *walker) stringKeywords(s *jsonschema.Schema, x, path string) []ajvError {
	one := func(msg string) []ajvError { return []ajvError{{path, msg}} }
	// Code points, as jsonschema-go and Ajv (option unicode, on by
	// default) both count them: "😀" is one character, not two.
	n := utf8.RuneCountInString(x)
	switch {
	case s.MaxLength != nil && n > *s.MaxLength:
		return one("must NOT have more than " + strconv.Itoa(*s.MaxLength) + " characters")
	case s.MinLength != nil && n < *s.MinLength:
		return one("must NOT have fewer than " + strconv.Itoa(*s.MinLength) + " characters")
	case s.Pattern != "" && !matches(s.Pattern, x):
		return one(`must match pattern "` + s.Pattern + `"`)
	}
	return nil
}

func (w *walker) arrayKeywords(s *jsonschema.Schema, x []any, path string, composite bool) []ajvError {
	one := func(msg string) []ajvError { return []ajvError{{path, msg}} }
	switch {
	case s.MaxItems != nil && len(x) > *s.MaxItems:
		return one("must NOT have more than " + strconv.Itoa(*s.MaxItems) + " items")
	case s.MinItems != nil && len(x) < *s.MinItems:
		return one("must NOT have fewer than " + strconv.Itoa(*s.MinItems) + " items")
	}
	item := func(sub *jsonschema.Schema, i int) []ajvError {
		return w.errs(sub, x[i], path+"/"+strconv.Itoa(i), composite)
	}
	// rest checks the items after a tuple of n: "additionalItems" in
	// draft-07, "items" beside "prefixItems" in 2020-12.
	rest := func(sub *jsonschema.Schema, n int) []ajvError {
		if sub == nil || len(x) <= n {
			return nil
		}
		if isFalse(sub) {
			return one("must NOT have more than " + strconv.Itoa(n) + " items")
		}
		for i := n; i < len(x); i++ {
			if e := item(sub, i); e != nil {
				return e
			}
		}
		return nil
	}
	tuple := func(subs []*jsonschema.Schema) []ajvError {
		for i, sub := range subs {
			if i >= len(x) {
				break
			}
			if e := item(sub, i); e != nil {
				return e
			}
		}
		return nil
	}
	if w.draft7 {
		if s.ItemsArray != nil {
			if e := rest(s.AdditionalItems, len(s.ItemsArray)); e != nil {
				return e
			}
			if e := tuple(s.ItemsArray); e != nil {
				return e
			}
		} else if e := w.eachItem(s.Items, x, path, composite); e != nil {
			return e
		}
	} else {
		if e := tuple(s.PrefixItems); e != nil {
			return e
		}
		if len(s.PrefixItems) > 0 {
			if e := rest(s.Items, len(s.PrefixItems)); e != nil {
				return e
			}
		} else if e := w.eachItem(s.Items, x, path, composite); e != nil {
			return e
		}
	}
	if e := w.contains(s, x, path, composite); e != nil {
		return e
	}
	if s.UniqueItems {
		if i, j, ok := duplicate(s, x); ok {
			return one("must NOT have duplicate items (items ## " + strconv.Itoa(j) + " and " + strconv.Itoa(i) + " are identical)")
		}
	}
	if ui := s.UnevaluatedItems; ui != nil && !w.draft7 {
		ev := w.evaluate(s, x, true)
		for i := ev.end; i < len(x) && !ev.allItems; i++ {
			if ev.items[i] {
				continue
			}
			if isFalse(ui) {
				return one("must NOT have more than " + strconv.Itoa(ev.end) + " items")
			}
			if e := item(ui, i); e != nil {
				return e
			}
		}
	}
	return nil
}

// eachItem checks every item against sub ("items" with no tuple).
func (w *walker) eachItem(sub *jsonschema.Schema, x []any, path string, composite bool) []ajvError {
	if sub == nil {
		return nil
	}
	for i, it := range x {
		if e := w.errs(sub, it, path+"/"+strconv.Itoa(i), composite); e != nil {
			return e
		}
	}
	return nil
}

func (w *walker) contains(s *jsonschema.Schema, x []any, path string, composite bool) []ajvError {
	if s.Contains == nil {
		return nil
	}
	lo := 1
	if s.MinContains != nil {
		lo = *s.MinContains
	}
	var failed []ajvError
	n := 0
	for i, it := range x {
		if e := w.errs(s.Contains, it, path+"/"+strconv.Itoa(i), true); e != nil {
			failed = append(failed, e...)
		} else {
			n++
		}
	}
	if n >= lo && (s.MaxContains == nil || n <= *s.MaxContains) {
		return nil
	}
	msg := "must contain at least " + strconv.Itoa(lo) + " valid item(s)"
	if s.MaxContains != nil {
		msg = "must contain at least " + strconv.Itoa(lo) + " and no more than " + strconv.Itoa(*s.MaxContains) + " valid item(s)"
	}
	if !composite {
		// Ajv's plain error replaces what the items piled up.
		failed = nil
	}
	return append(failed, ajvError{path, msg})
}

func (w *walker) objectKeywords(s *jsonschema.Schema, x map[string]any, path string, composite bool) []ajvError {
	one := func(msg string) []ajvError { return []ajvError{{path, msg}} }
	switch {
	case s.MaxProperties != nil && len(x) > *s.MaxProperties:
		return one("must NOT have more than " + strconv.Itoa(*s.MaxProperties) + " properties")
	case s.MinProperties != nil && len(x) < *s.MinProperties:
		return one("must NOT have fewer than " + strconv.Itoa(*s.MinProperties) + " properties")
	}
	for _, r := range s.Required {
		if _, ok := x[r]; !ok {
			return one("must have required property '" + r + "'")
		}
	}
	// Go maps keep no order: properties are tried in sorted order where
	// Ajv follows the schema's (for "properties") or the call's (for
	// additional ones); it matters only when several are wrong.
	keys := slices.Sorted(maps.Keys(x))
	if s.PropertyNames != nil {
		for _, k := range keys {
			if e := w.errs(s.PropertyNames, k, path, true); e != nil {
				return append(e, ajvError{path, "property name must be valid"})
			}
		}
	}
	if ap := s.AdditionalProperties; ap != nil {
		for _, k := range keys {
			if _, declared := s.Properties[k]; declared || matchesAny(s.PatternProperties, k) {
				continue
			}
			if isFalse(ap) {
				return one("must NOT have additional properties")
			}
			if e := w.errs(ap, x[k], path+"/"+escapePointer(k), composite); e != nil {
				return e
			}
		}
	}
	deps := func(required map[string][]string, schemas map[string]*jsonschema.Schema) []ajvError {
		for _, k := range slices.Sorted(maps.Keys(required)) {
			if _, ok := x[k]; !ok {
				continue
			}
			ds := required[k]
			for _, d := range ds {
				if _, ok := x[d]; !ok {
					word := "properties"
					if len(ds) == 1 {
						word = "property"
					}
					return one("must have " + word + " " + strings.Join(ds, ", ") + " when property " + k + " is present")
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(schemas)) {
			if _, ok := x[k]; ok {
				if e := w.errs(schemas[k], x, path, composite); e != nil {
					return e
				}
			}
		}
		return nil
	}
	if w.draft7 {
		if e := deps(s.DependencyStrings, s.DependencySchemas); e != nil {
			return e
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		if v, ok := x[k]; ok {
			if e := w.errs(s.Properties[k], v, path+"/"+escapePointer(k), composite); e != nil {
				return e
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(s.PatternProperties)) {
		for _, k := range keys {
			if matches(p, k) {
				if e := w.errs(s.PatternProperties[p], x[k], path+"/"+escapePointer(k), composite); e != nil {
					return e
				}
			}
		}
	}
	if w.draft7 {
		return nil
	}
	if e := deps(s.DependentRequired, s.DependentSchemas); e != nil {
		return e
	}
	if up := s.UnevaluatedProperties; up != nil {
		ev := w.evaluate(s, x, true)
		for _, k := range keys {
			if ev.allProps || ev.props[k] {
				continue
			}
			if isFalse(up) {
				return one("must NOT have unevaluated properties")
			}
			if e := w.errs(up, x[k], path+"/"+escapePointer(k), composite); e != nil {
				return e
			}
		}
	}
	return nil
}

// evaluation is what a schema and its in-place subschemas have evaluated
// of a value, as jsonschema-go notes it for unevaluatedItems and
// unevaluatedProperties (2020-12).
type evaluation struct {
	allItems, allProps bool
	end                int // items before end were evaluated (prefixItems)
	items              map[int]bool
	props              map[string]bool
}

// evaluate returns what s evaluates of v, which s is taken to accept up
// to its own unevaluated keywords (top) or whole.
func (w *walker) evaluate(s *jsonschema.Schema, v any, top bool) *evaluation {
	ev := &evaluation{items: map[int]bool{}, props: map[string]bool{}}
	var visit func(s *jsonschema.Schema, top bool)
	visit = func(s *jsonschema.Schema, top bool) {
		if s == nil {
			return
		}
		switch x := v.(type) {
		case []any:
			ev.end = max(ev.end, min(len(s.PrefixItems), len(x)))
			ev.allItems = ev.allItems || s.Items != nil || (!top && s.UnevaluatedItems != nil)
			for i, it := range x {
				if s.Contains != nil && w.valid(s.Contains, it) {
					ev.items[i] = true
				}
			}
		case map[string]any:
			ev.allProps = ev.allProps || s.AdditionalProperties != nil || (!top && s.UnevaluatedProperties != nil)
			for k := range x {
				if _, ok := s.Properties[k]; ok || matchesAny(s.PatternProperties, k) {
					ev.props[k] = true
				}
			}
			for k, d := range s.DependentSchemas {
				if _, ok := x[k]; ok {
					visit(d, false)
				}
			}
		}
		if s.Ref != "" {
			visit(w.deref(s.Ref), false)
		}
		for _, b := range s.AllOf {
			visit(b, false)
		}
		for _, b := range slices.Concat(s.AnyOf, s.OneOf) {
			if w.valid(b, v) {
				visit(b, false)
			}
		}
		if s.If != nil {
			if w.valid(s.If, v) {
				visit(s.If, false)
				visit(s.Then, false)
			} else {
				visit(s.Else, false)
			}
		}
	}
	visit(s, top)
	return ev
}

// hasRulesFor reports whether s has keywords of Ajv's rule group for
// type t; then Ajv checks "type" after the keywords for any value.
func (w *walker) hasRulesFor(s *jsonschema.Schema, t string) bool {
	switch t {
	case "number":
		return s.Maximum != nil || s.Minimum != nil || s.ExclusiveMaximum != nil || s.ExclusiveMinimum != nil ||
			s.MultipleOf != nil || s.Format != ""
	case "string":
		return s.MaxLength != nil || s.MinLength != nil || s.Pattern != "" || s.Format != ""
	case "array":
		return s.MaxItems != nil || s.MinItems != nil || s.UniqueItems || s.Items != nil || s.ItemsArray != nil ||
			s.AdditionalItems != nil || s.PrefixItems != nil || s.Contains != nil || (!w.draft7 && s.UnevaluatedItems != nil)
	case "object":
		return s.MaxProperties != nil || s.MinProperties != nil || s.Required != nil || s.PropertyNames != nil ||
			s.AdditionalProperties != nil || s.Properties != nil || s.PatternProperties != nil ||
			(w.draft7 && (s.DependencyStrings != nil || s.DependencySchemas != nil)) ||
			(!w.draft7 && (s.DependentRequired != nil || s.DependentSchemas != nil || s.UnevaluatedProperties != nil))
	}
	return false
}

// duplicate finds two equal items as Ajv's uniqueItems reports them:
// scanning from the end, by value for items of scalar declared types
// (skipping items of other types), else by deep equality.
func duplicate(s *jsonschema.Schema, x []any) (i, j int, ok bool) {
	var itemTypes []string
	if s.Items != nil {
		itemTypes = schemaTypes(s.Items)
	}
	scalar := len(itemTypes) > 0 && !slices.Contains(itemTypes, "object") && !slices.Contains(itemTypes, "array")
	if scalar {
		seen := map[string]int{}
		for i := len(x) - 1; i >= 0; i-- {
			if !hasType(itemTypes, x[i]) {
				continue
			}
			k := jsKey(x[i], len(itemTypes) > 1)
			if j, dup := seen[k]; dup {
				return i, j, true
			}
			seen[k] = i
		}
		return 0, 0, false
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := i - 1; j >= 0; j-- {
			if jsonschema.Equal(x[i], x[j]) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// jsKey is the property name JavaScript makes of a scalar; Ajv marks
// strings when several types could collide ("1" and 1).
func jsKey(v any, mark bool) string {
	switch x := v.(type) {
	case string:
		if mark {
			return x + "_"
		}
		return x
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	if f, ok := number(v); ok {
		return jsNum(f)
	}
	return ""
}

// deref finds the schema a local $ref ("#", "#/$defs/x", "#anchor")
// names in the root; nil for any other (the caller then gives up).
func (w *walker) deref(ref string) *jsonschema.Schema {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	if frag == "" {
		return w.root
	}
	if !strings.HasPrefix(frag, "/") {
		var found *jsonschema.Schema
		walkSchemas(w.root, func(n *jsonschema.Schema) {
			if n.Anchor == frag && found == nil {
				found = n
			}
		})
		return found
	}
	segs := strings.Split(frag[1:], "/")
	for i := range segs {
		segs[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(segs[i])
	}
	s := w.root
	for i := 0; i < len(segs) && s != nil; i++ {
		k := segs[i]
		named := map[string]map[string]*jsonschema.Schema{"$defs": s.Defs, "definitions": s.Definitions,
			"properties": s.Properties, "patternProperties": s.PatternProperties,
			"dependentSchemas": s.DependentSchemas, "dependencies": s.DependencySchemas}
		listed := map[string][]*jsonschema.Schema{"items": s.ItemsArray, "prefixItems": s.PrefixItems,
			"allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf}
		single := map[string]*jsonschema.Schema{"items": s.Items, "additionalItems": s.AdditionalItems,
			"additionalProperties": s.AdditionalProperties, "contains": s.Contains, "propertyNames": s.PropertyNames,
			"not": s.Not, "if": s.If, "then": s.Then, "else": s.Else}
		if m, ok := named[k]; ok && i+1 < len(segs) {
			i++
			s = m[segs[i]]
		} else if l := listed[k]; l != nil && i+1 < len(segs) {
			i++
			n, err := strconv.Atoi(segs[i])
			if err != nil || n < 0 || n >= len(l) {
				return nil
			}
			s = l[n]
		} else if c, ok := single[k]; ok {
			s = c
		} else {
			return nil
		}
	}
	return s
}

// walkSchemas calls f on s and every schema inside it.
func walkSchemas(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	f(s)
	for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions, s.Properties, s.PatternProperties, s.DependentSchemas, s.DependencySchemas} {
		for _, c := range m {
			walkSchemas(c, f)
		}
	}
	for _, l := range [][]*jsonschema.Schema{s.ItemsArray, s.PrefixItems, s.AllOf, s.AnyOf, s.OneOf} {
		for _, c := range l {
			walkSchemas(c, f)
		}
	}
	for _, c := range []*jsonschema.Schema{s.Items, s.AdditionalItems, s.Contains, s.UnevaluatedItems, s.AdditionalProperties,
		s.PropertyNames, s.UnevaluatedProperties, s.Not, s.If, s.Then, s.Else, s.ContentSchema} {
		walkSchemas(c, f)
	}
}

// isFalse reports whether s is the schema false, which jsonschema-go
// holds as {"not": {}}.
func isFalse(s *jsonschema.Schema) bool {
	if s.Not == nil || !reflect.ValueOf(*s.Not).IsZero() {
		return false
	}
	rest := *s
	rest.Not = nil
	return reflect.ValueOf(rest).IsZero()
}

func schemaTypes(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

// hasType reports whether v is of one of the JSON types.
func hasType(types []string, v any) bool {
	for _, t := range types {
		switch t {
		case "object":
			if _, ok := v.(map[string]any); ok {
				return true
			}
		case "array":
			if _, ok := v.([]any); ok {
				return true
			}
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case "null":
			if v == nil {
				return true
			}
		case "number":
			if _, ok := number(v); ok {
				return true
			}
		case "integer":
			if f, ok := number(v); ok && f == math.Trunc(f) && !math.IsInf(f, 0) {
				return true
			}
		}
	}
	return false
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// jsNum prints f as JavaScript's String(f) does: 0.5, 1e+21, 1e-7.
func jsNum(f float64) string {
	if a := math.Abs(f); a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + digits
}

// matches reports whether x matches pattern, which Resolve has compiled
// once already (so it is valid).
func matches(pattern, x string) bool {
	re, err := regexp.Compile(pattern)
	return err == nil && re.MatchString(x)
}

func matchesAny(patterns map[string]*jsonschema.Schema, k string) bool {
	for p := range patterns {
		if matches(p, k) {
			return true
		}
	}
	return false
}

func escapePointer(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}
