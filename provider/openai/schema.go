package openai

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/wield-ai/wield/internal/orderedjson"
)

// maxSchemaDepth bounds the recursion over schemas and arguments, against hostile input.
const maxSchemaDepth = 64

// toolSchema is a tool's input schema prepared for a request.
type toolSchema struct {
	// params is what is sent as the function's parameters.
	params map[string]any
	// strict reports whether the function is sent in strict mode.
	strict bool
	// original is the tool's own schema; set only when strict mode made optional properties
	// nullable, so that the nulls the model sends for them can be dropped again.
	original *orderedjson.Object
}

// prepareSchema parses a tool's input schema and, when strict is asked, rewrites it for strict
// mode. A schema that strict mode cannot express is sent unchanged with strict off, so that one
// free-form tool does not stop the others.
func prepareSchema(raw json.RawMessage, strict bool) (toolSchema, error) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	o, err := orderedjson.ParseObject(raw)
	if err != nil {
		return toolSchema{}, fmt.Errorf("input schema: %w", err)
	}
	if !strict {
		return toolSchema{params: o.Map()}, nil
	}
	s, nullable, err := strictSchema(o)
	if err != nil {
		return toolSchema{params: o.Map()}, nil
	}
	ts := toolSchema{params: s.Map(), strict: true}
	if nullable {
		ts.original = o
	}
	return ts, nil
}

// strictSchema returns a copy of schema rewritten for OpenAI's strict mode, which accepts only
// objects that list every property in required and set additionalProperties to false:
//   - every object schema gets required = all its properties, in order, and
//     additionalProperties false;
//   - a property that was optional becomes nullable, so the model can still leave it out by
//     sending null: a "type" gains "null" (and an "enum" gains null), any other schema is wrapped
//     in {"anyOf": [schema, {"type": "null"}]};
//   - $defs, definitions, properties, items, prefixItems, anyOf, oneOf and allOf are rewritten
//     the same way, recursively.
//
// It reports whether any property was made nullable, and fails when a part of the schema cannot
// be expressed in strict mode: an object with free-form members (additionalProperties true or a
// schema, which is how maps are described), a nested object that declares no properties, or a
// boolean schema.
func strictSchema(schema *orderedjson.Object) (*orderedjson.Object, bool, error) {
	s := schema.Clone()
	st := &strictState{}
	if err := st.rewrite(s, true, 0); err != nil {
		return nil, false, err
	}
	return s, st.nullable, nil
}

type strictState struct{ nullable bool }

func (st *strictState) rewrite(s *orderedjson.Object, root bool, depth int) error {
	if depth > maxSchemaDepth {
		return fmt.Errorf("schema nested deeper than %d levels", maxSchemaDepth)
	}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := s.Get(key).(*orderedjson.Object); ok {
			for name, def := range defs.All() {
				if err := st.rewriteValue(def, depth+1); err != nil {
					return fmt.Errorf("%s/%s: %w", key, name, err)
				}
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if list, ok := s.Get(key).([]any); ok {
			for _, sub := range list {
				if err := st.rewriteValue(sub, depth+1); err != nil {
					return fmt.Errorf("%s: %w", key, err)
				}
			}
		}
	}
	if items, ok := s.Lookup("items"); ok {
		if err := st.rewriteValue(items, depth+1); err != nil {
			return fmt.Errorf("items: %w", err)
		}
	}
	if !isObjectSchema(s) {
		return nil
	}
	if ap, ok := s.Lookup("additionalProperties"); ok && ap != false {
		return fmt.Errorf("an object with free-form members (additionalProperties %s)", compactJSON(ap))
	}
	props, _ := s.Get("properties").(*orderedjson.Object)
	if props == nil {
		if !root {
			if _, ok := s.Lookup("additionalProperties"); !ok {
				return fmt.Errorf("an object that declares no properties")
			}
		}
		props = orderedjson.New()
		s.Set("properties", props)
	}
	required := map[string]bool{}
	if list, ok := s.Get("required").([]any); ok {
		for _, r := range list {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	all := make([]any, 0, props.Len())
	for _, name := range props.Keys() {
		ps, ok := props.Get(name).(*orderedjson.Object)
		if !ok {
			return fmt.Errorf("property %q: a boolean schema", name)
		}
		if err := st.rewrite(ps, false, depth+1); err != nil {
			return fmt.Errorf("property %q: %w", name, err)
		}
		if !required[name] {
			props.Set(name, nullable(ps))
			st.nullable = true
		}
		all = append(all, name)
	}
	s.Set("required", all)
	s.Set("additionalProperties", false)
	return nil
}

func (st *strictState) rewriteValue(v any, depth int) error {
	o, ok := v.(*orderedjson.Object)
	if !ok {
		return fmt.Errorf("a boolean schema")
	}
	return st.rewrite(o, false, depth)
}

// isObjectSchema reports whether s describes objects: its type is or includes "object", or it has
// properties and no type.
func isObjectSchema(s *orderedjson.Object) bool {
	switch t := s.Get("type").(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	case nil:
		_, ok := s.Lookup("properties")
		return ok
	}
	return false
}

// nullable returns s accepting null as well.
func nullable(s *orderedjson.Object) *orderedjson.Object {
	if acceptsNull(s, nil, 0, map[*orderedjson.Object]bool{}) {
		return s
	}
	_, hasConst := s.Lookup("const")
	switch t := s.Get("type").(type) {
	case string:
		if !hasConst {
			s.Set("type", []any{t, "null"})
			addNullToEnum(s)
			return s
		}
	case []any:
		if !hasConst {
			if !slices.Contains(t, any("null")) {
				s.Set("type", append(t, "null"))
			}
			addNullToEnum(s)
			return s
		}
	}
	if list, ok := s.Get("anyOf").([]any); ok && s.Len() == 1 {
		s.Set("anyOf", append(list, nullSchema()))
		return s
	}
	w := orderedjson.New()
	w.Set("anyOf", []any{s, nullSchema()})
	return w
}

func nullSchema() *orderedjson.Object {
	o := orderedjson.New()
	o.Set("type", "null")
	return o
}

func addNullToEnum(s *orderedjson.Object) {
	if list, ok := s.Get("enum").([]any); ok && !slices.Contains(list, nil) {
		s.Set("enum", append(list, nil))
	}
}

// acceptsNull reports whether schema s accepts null, following local $refs when root is set.
// memo holds the answer for each schema already asked about, so that schemas reached by many
// paths (references combined in anyOf, level after level) are each looked at once; a schema
// that refers back to itself counts as not accepting null while its answer is being found.
func acceptsNull(s *orderedjson.Object, root *orderedjson.Object, depth int, memo map[*orderedjson.Object]bool) bool {
	if s == nil || depth > maxSchemaDepth {
		return false
	}
	if v, ok := memo[s]; ok {
		return v
	}
	memo[s] = false
	v := acceptsNullOnce(s, root, depth, memo)
	memo[s] = v
	return v
}

func acceptsNullOnce(s *orderedjson.Object, root *orderedjson.Object, depth int, memo map[*orderedjson.Object]bool) bool {
	if ref, ok := s.Get("$ref").(string); ok {
		if root != nil {
			return acceptsNull(resolveRef(root, ref), root, depth+1, memo)
		}
		return false
	}
	if c, ok := s.Lookup("const"); ok {
		return c == nil
	}
	if list, ok := s.Get("enum").([]any); ok && !slices.Contains(list, nil) {
		return false
	}
	switch t := s.Get("type").(type) {
	case string:
		return t == "null"
	case []any:
		return slices.Contains(t, any("null"))
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if list, ok := s.Get(key).([]any); ok {
			for _, sub := range list {
				if o, ok := sub.(*orderedjson.Object); ok && acceptsNull(o, root, depth+1, memo) {
					return true
				}
			}
			return false
		}
	}
	// No type, no enum, no const, no union: anything goes, null included.
	return true
}

// resolveRef finds the schema a local reference points to in root, or nil.
func resolveRef(root *orderedjson.Object, ref string) *orderedjson.Object {
	v, _ := orderedjson.ResolveRef(root, ref)
	o, _ := v.(*orderedjson.Object)
	return o
}

// dropNulls removes from the arguments a model wrote in strict mode the null members that stand
// for optional properties left out: original is the tool's schema before [strictSchema] made
// them nullable. Arguments that are not a JSON object are returned unchanged, for the tool's own
// validation to report.
func dropNulls(args string, original *orderedjson.Object) string {
	v, err := orderedjson.Parse([]byte(args))
	if err != nil {
		return args
	}
	w := &nullDropper{root: original, seen: map[visit]bool{}, nulls: map[*orderedjson.Object]bool{}}
	if !w.drop(v, original, 0) {
		return args
	}
	b, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return string(b)
}

// nullDropper walks arguments against a schema. Each (schema, object or array) pair is walked
// once: a schema reached by many paths (references combined in allOf, level after level) would
// otherwise be walked once per path, 2^n times for n such levels.
type nullDropper struct {
	root  *orderedjson.Object
	seen  map[visit]bool
	nulls map[*orderedjson.Object]bool // acceptsNull's memo
}

// visit is a schema applied to a value: an object, or an array by its first element.
type visit struct {
	schema *orderedjson.Object
	value  any
}

func (w *nullDropper) drop(v any, s *orderedjson.Object, depth int) bool {
	if s == nil || depth > maxSchemaDepth {
		return false
	}
	var at visit
	switch x := v.(type) {
	case *orderedjson.Object:
		at = visit{s, x}
	case []any:
		if len(x) == 0 {
			return false
		}
		at = visit{s, &x[0]}
	default:
		return false // nothing to drop in a scalar
	}
	if w.seen[at] {
		return false
	}
	w.seen[at] = true
	if ref, ok := s.Get("$ref").(string); ok {
		return w.drop(v, resolveRef(w.root, ref), depth+1)
	}
	changed := false
	for _, sub := range listOf(s.Get("allOf")) {
		if o, ok := sub.(*orderedjson.Object); ok {
			changed = w.drop(v, o, depth+1) || changed
		}
	}
	switch x := v.(type) {
	case *orderedjson.Object:
		props, _ := s.Get("properties").(*orderedjson.Object)
		if props == nil {
			return changed
		}
		required := map[string]bool{}
		for _, r := range listOf(s.Get("required")) {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
		for _, k := range x.Keys() {
			ps, _ := props.Get(k).(*orderedjson.Object)
			if ps == nil {
				continue
			}
			if x.Get(k) == nil && !required[k] && !acceptsNull(ps, w.root, depth+1, w.nulls) {
				x.Delete(k)
				changed = true
				continue
			}
			changed = w.drop(x.Get(k), ps, depth+1) || changed
		}
	case []any:
		items, _ := s.Get("items").(*orderedjson.Object)
		prefix := listOf(s.Get("prefixItems"))
		for i, e := range x {
			is := items
			if i < len(prefix) {
				is, _ = prefix[i].(*orderedjson.Object)
			}
			changed = w.drop(e, is, depth+1) || changed
		}
	}
	return changed
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
