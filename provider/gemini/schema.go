package gemini

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/wield-ai/wield/internal/orderedjson"
)

// SchemaMode chooses how tool input schemas (and ResponseFormat schemas) are sent to Gemini.
type SchemaMode int

const (
	// SchemaJSON sends the JSON Schema unchanged in parametersJsonSchema (responseJsonSchema for
	// ResponseFormat). Gemini 2.5 and later models read JSON Schema there, including $defs/$ref,
	// anyOf, type arrays and additionalProperties, so nothing the tool declares is lost. This is
	// the default.
	SchemaJSON SchemaMode = iota
	// SchemaSubset converts the JSON Schema to Gemini's OpenAPI-style Schema object (the
	// parameters / responseSchema fields), which every Gemini model and endpoint accepts but which
	// has fewer keywords: see [ConvertSchema] for what is translated and what is dropped.
	SchemaSubset
)

// ConvertSchema converts a JSON Schema (draft 2020-12, as wield infers it for tools) to Gemini's
// Schema subset. Gemini's Schema has no additionalProperties, $defs/$ref, const, type arrays,
// allOf, exclusive bounds or string formats other than enum and date-time, so:
//
//   - $ref (to "#", "#/$defs/…", "#/definitions/…" or any local JSON pointer) is inlined; a
//     reference back into a schema being inlined (a recursive type) is cut off there, keeping
//     only its type and description;
//   - a type array such as ["null","string"] becomes nullable STRING; several non-null types
//     become anyOf; anyOf/oneOf with a {"type":"null"} branch become nullable;
//   - const becomes a one-value enum; enum and const on non-string types, which Gemini's enum
//     cannot hold, are described in the description instead;
//   - allOf is merged into one schema;
//   - unsupported string formats are moved into the description;
//   - required names that are not properties are dropped (Gemini rejects them);
//   - additionalProperties, $schema, $id, $comment, patternProperties, not, if/then/else,
//     exclusiveMinimum/Maximum, multipleOf, uniqueItems, prefixItems and other keywords
//     without a Gemini equivalent are dropped.
//
// Inlining can grow a schema exponentially (a chain of definitions each referring twice to the
// next), so a schema that would pass 256 KiB of JSON is refused with an error saying so;
// [SchemaJSON], the default, sends $defs as they are and has no such limit. An empty or null schema converts to nil.
func ConvertSchema(schema json.RawMessage) (*genai.Schema, error) {
	if len(schema) == 0 || string(schema) == "null" {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("gemini: invalid JSON Schema: %w", err)
	}
	c := &converter{root: root, budget: &orderedjson.Budget{}}
	return c.convert(root, "#")
}

// toolParameters converts a tool's input schema; nil means the tool takes no parameters.
func toolParameters(schema json.RawMessage) (*genai.Schema, error) {
	s, err := ConvertSchema(schema)
	switch {
	case err != nil || s == nil:
		return nil, err
	case s.Type != genai.TypeObject && s.Type != "":
		return nil, fmt.Errorf("gemini: a tool's input schema must describe an object, not %s", strings.ToLower(string(s.Type)))
	case len(s.Properties) == 0 && len(s.AnyOf) == 0:
		return nil, nil
	}
	s.Type = genai.TypeObject
	return s, nil
}

type converter struct {
	root   any
	stack  []string            // $refs being inlined, to cut recursion
	budget *orderedjson.Budget // charged for every schema converted, inlined copies included
}

var jsonTypes = map[string]genai.Type{
	"string":  genai.TypeString,
	"number":  genai.TypeNumber,
	"integer": genai.TypeInteger,
	"boolean": genai.TypeBoolean,
	"array":   genai.TypeArray,
	"object":  genai.TypeObject,
	"null":    genai.TypeNULL,
}

func (c *converter) convert(v any, at string) (*genai.Schema, error) {
	switch v := v.(type) {
	case bool:
		return &genai.Schema{}, nil // true allows anything; false cannot be expressed
	case map[string]any:
		if err := c.budget.Charge(v); err != nil {
			return nil, fmt.Errorf("gemini: %w", err)
		}
		return c.convertObject(v, at)
	case nil:
		return &genai.Schema{}, nil
	default:
		return nil, fmt.Errorf("gemini: JSON Schema at %s: expected an object, got %T", at, v)
	}
}

func (c *converter) convertObject(m map[string]any, at string) (*genai.Schema, error) {
	if ref, ok := m["$ref"].(string); ok {
		return c.convertRef(m, ref, at)
	}
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		return c.convertAllOf(m, all, at)
	}

	types, nullable, err := schemaTypes(m, at)
	if err != nil {
		return nil, err
	}
	if b, ok := m["nullable"].(bool); ok && b {
		nullable = true
	}
	// anyOf/oneOf with a null branch: nullable, and a lone other branch is inlined.
	var alts []any
	for _, key := range []string{"anyOf", "oneOf"} {
		if list, ok := m[key].([]any); ok {
			alts = append(alts, list...)
		}
	}
	if len(alts) > 0 {
		var rest []any
		for _, a := range alts {
			if isNullSchema(a) {
				nullable = true
				continue
			}
			rest = append(rest, a)
		}
		alts = rest
	}
	if len(types) == 0 && len(alts) == 1 {
		s, err := c.convert(alts[0], at+"/anyOf/0")
		if err != nil {
			return nil, err
		}
		out := *s
		overlayDoc(&out, m)
		if nullable {
			out.Nullable = genai.Ptr(true)
		}
		return &out, nil
	}

	var s *genai.Schema
	switch len(types) {
	case 0:
		if nullable && len(alts) == 0 && !hasTypeKeywords(m) {
			s = &genai.Schema{Type: genai.TypeNULL}
			nullable = false
		} else {
			s, err = c.build(m, inferType(m), at)
		}
	case 1:
		s, err = c.build(m, types[0], at)
	default:
		s = &genai.Schema{}
		for _, t := range types {
			b, err := c.build(m, t, at)
			if err != nil {
				return nil, err
			}
			b.Title, b.Description, b.Default, b.Example = "", "", nil, nil
			s.AnyOf = append(s.AnyOf, b)
		}
		overlayDoc(s, m)
	}
	if err != nil {
		return nil, err
	}
	for i, a := range alts {
		b, err := c.convert(a, fmt.Sprintf("%s/anyOf/%d", at, i))
		if err != nil {
			return nil, err
		}
		s.AnyOf = append(s.AnyOf, b)
	}
	if nullable {
		s.Nullable = genai.Ptr(true)
	}
	return s, nil
}

// build converts the keywords of m that apply to type t.
func (c *converter) build(m map[string]any, t genai.Type, at string) (*genai.Schema, error) {
	s := &genai.Schema{Type: t}
	overlayDoc(s, m)
	var notes []string

	values, hasEnum := enumValues(m)
	switch t {
	case genai.TypeString:
		if hasEnum {
			for _, v := range values {
				if str, ok := v.(string); ok {
					s.Enum = append(s.Enum, str)
				}
			}
		}
		if f, ok := m["format"].(string); ok && f != "" {
			if f == "date-time" || f == "enum" {
				s.Format = f
			} else {
				notes = append(notes, "format: "+f)
			}
		}
		s.MinLength = intKeyword(m, "minLength")
		s.MaxLength = intKeyword(m, "maxLength")
		s.Pattern, _ = m["pattern"].(string)
	case genai.TypeInteger, genai.TypeNumber:
		s.Minimum = floatKeyword(m, "minimum")
		s.Maximum = floatKeyword(m, "maximum")
		if f, ok := m["format"].(string); ok {
			switch {
			case t == genai.TypeInteger && (f == "int32" || f == "int64"),
				t == genai.TypeNumber && (f == "float" || f == "double"):
				s.Format = f
			}
		}
	case genai.TypeArray:
		if items, ok := m["items"]; ok {
			it, err := c.convert(items, at+"/items")
			if err != nil {
				return nil, err
			}
			s.Items = it
		}
		s.MinItems = intKeyword(m, "minItems")
		s.MaxItems = intKeyword(m, "maxItems")
	case genai.TypeObject:
		if props, ok := m["properties"].(map[string]any); ok {
			s.Properties = make(map[string]*genai.Schema, len(props))
			for _, name := range sortedKeys(props) {
				p, err := c.convert(props[name], at+"/properties/"+name)
				if err != nil {
					return nil, err
				}
				s.Properties[name] = p
			}
		}
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					if _, defined := s.Properties[name]; defined {
						s.Required = append(s.Required, name)
					}
				}
			}
		}
		s.MinProperties = intKeyword(m, "minProperties")
		s.MaxProperties = intKeyword(m, "maxProperties")
	}
	if hasEnum && t != genai.TypeString {
		var parts []string
		for _, v := range values {
			if v == nil {
				continue
			}
			b, _ := json.Marshal(v)
			parts = append(parts, string(b))
		}
		if len(parts) == 1 {
			notes = append(notes, "must be "+parts[0])
		} else if len(parts) > 1 {
			notes = append(notes, "one of: "+strings.Join(parts, ", "))
		}
	}
	if len(notes) > 0 {
		note := "(" + strings.Join(notes, "; ") + ")"
		if s.Description == "" {
			s.Description = note
		} else {
			s.Description += " " + note
		}
	}
	return s, nil
}

func (c *converter) convertRef(m map[string]any, ref, at string) (*genai.Schema, error) {
	target, err := orderedjson.ResolveRef(c.root, ref)
	if err != nil {
		return nil, fmt.Errorf("gemini: JSON Schema at %s: %w", at, err)
	}
	var s *genai.Schema
	if slices.Contains(c.stack, ref) {
		// A recursive type: keep what it is, not what it contains.
		s = &genai.Schema{}
		if tm, ok := target.(map[string]any); ok {
			if types, _, _ := schemaTypes(tm, ref); len(types) == 1 {
				s.Type = types[0]
			} else {
				s.Type = inferType(tm)
			}
			overlayDoc(s, tm)
		}
	} else {
		c.stack = append(c.stack, ref)
		s, err = c.convert(target, ref)
		c.stack = c.stack[:len(c.stack)-1]
		if err != nil {
			return nil, err
		}
		cp := *s
		s = &cp
	}
	overlayDoc(s, m) // keywords beside $ref describe this use of the type
	if b, ok := m["nullable"].(bool); ok && b {
		s.Nullable = genai.Ptr(true)
	}
	return s, nil
}

func (c *converter) convertAllOf(m map[string]any, all []any, at string) (*genai.Schema, error) {
	rest := make(map[string]any, len(m))
	for k, v := range m {
		if k != "allOf" {
			rest[k] = v
		}
	}
	var out *genai.Schema
	if len(rest) > 0 && (hasTypeKeywords(rest) || rest["type"] != nil) {
		s, err := c.convertObject(rest, at)
		if err != nil {
			return nil, err
		}
		out = s
	}
	for i, sub := range all {
		s, err := c.convert(sub, fmt.Sprintf("%s/allOf/%d", at, i))
		if err != nil {
			return nil, err
		}
		if out == nil {
			cp := *s
			out = &cp
			continue
		}
		mergeSchema(out, s)
	}
	overlayDoc(out, m)
	return out, nil
}

// mergeSchema folds s into dst: properties and required are united, other fields fill gaps.
func mergeSchema(dst, s *genai.Schema) {
	dst.Type = cmp.Or(dst.Type, s.Type)
	if len(s.Properties) > 0 {
		if dst.Properties == nil {
			dst.Properties = map[string]*genai.Schema{}
		}
		for k, v := range s.Properties {
			if _, ok := dst.Properties[k]; !ok {
				dst.Properties[k] = v
			}
		}
	}
	for _, r := range s.Required {
		if !slices.Contains(dst.Required, r) {
			dst.Required = append(dst.Required, r)
		}
	}
	if len(dst.Enum) == 0 {
		dst.Enum = s.Enum
	}
	dst.Description, dst.Title = cmp.Or(dst.Description, s.Description), cmp.Or(dst.Title, s.Title)
	dst.Format, dst.Pattern = cmp.Or(dst.Format, s.Format), cmp.Or(dst.Pattern, s.Pattern)
	dst.Items, dst.Nullable = cmp.Or(dst.Items, s.Items), cmp.Or(dst.Nullable, s.Nullable)
	dst.Minimum, dst.Maximum = cmp.Or(dst.Minimum, s.Minimum), cmp.Or(dst.Maximum, s.Maximum)
	dst.MinLength, dst.MaxLength = cmp.Or(dst.MinLength, s.MinLength), cmp.Or(dst.MaxLength, s.MaxLength)
	dst.MinItems, dst.MaxItems = cmp.Or(dst.MinItems, s.MinItems), cmp.Or(dst.MaxItems, s.MaxItems)
	dst.AnyOf = append(dst.AnyOf, s.AnyOf...)
}

// schemaTypes reads "type": the non-null types in order, and whether null is allowed.
func schemaTypes(m map[string]any, at string) ([]genai.Type, bool, error) {
	var names []string
	switch t := m["type"].(type) {
	case nil:
	case string:
		names = []string{t}
	case []any:
		for _, v := range t {
			s, ok := v.(string)
			if !ok {
				return nil, false, fmt.Errorf("gemini: JSON Schema at %s: type must be a string or an array of strings", at)
			}
			names = append(names, s)
		}
	default:
		return nil, false, fmt.Errorf("gemini: JSON Schema at %s: type must be a string or an array of strings", at)
	}
	var types []genai.Type
	nullable := false
	for _, n := range names {
		gt, ok := jsonTypes[n]
		if !ok {
			return nil, false, fmt.Errorf("gemini: JSON Schema at %s: unknown type %q", at, n)
		}
		if gt == genai.TypeNULL {
			nullable = true
			continue
		}
		if !slices.Contains(types, gt) {
			types = append(types, gt)
		}
	}
	if vals, ok := enumValues(m); ok && slices.Contains(vals, nil) {
		nullable = true
	}
	return types, nullable, nil
}

// inferType guesses the type of a schema without "type" from its keywords.
func inferType(m map[string]any) genai.Type {
	switch {
	case m["properties"] != nil || m["additionalProperties"] != nil || m["required"] != nil:
		return genai.TypeObject
	case m["items"] != nil || m["prefixItems"] != nil:
		return genai.TypeArray
	}
	if vals, ok := enumValues(m); ok {
		var t genai.Type
		for _, v := range vals {
			var vt genai.Type
			switch v := v.(type) {
			case nil:
				continue
			case string:
				vt = genai.TypeString
			case bool:
				vt = genai.TypeBoolean
			case float64:
				vt = genai.TypeNumber
				if v == float64(int64(v)) {
					vt = genai.TypeInteger
				}
			default:
				return ""
			}
			if t != "" && t != vt {
				return ""
			}
			t = vt
		}
		return t
	}
	if m["minLength"] != nil || m["maxLength"] != nil || m["pattern"] != nil {
		return genai.TypeString
	}
	if m["minimum"] != nil || m["maximum"] != nil {
		return genai.TypeNumber
	}
	return ""
}

func hasTypeKeywords(m map[string]any) bool { return inferType(m) != "" }

func isNullSchema(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	switch t := m["type"].(type) {
	case string:
		return t == "null"
	case []any:
		return len(t) == 1 && t[0] == "null"
	}
	return false
}

// enumValues returns enum, or const as a one-value enum.
func enumValues(m map[string]any) ([]any, bool) {
	if e, ok := m["enum"].([]any); ok {
		return e, true
	}
	if v, ok := m["const"]; ok {
		return []any{v}, true
	}
	return nil, false
}

// overlayDoc copies the documentation keywords of m onto s.
func overlayDoc(s *genai.Schema, m map[string]any) {
	if v, ok := m["title"].(string); ok && v != "" {
		s.Title = v
	}
	if v, ok := m["description"].(string); ok && v != "" {
		s.Description = v
	}
	if v, ok := m["default"]; ok {
		s.Default = v
	}
	if v, ok := m["example"]; ok {
		s.Example = v
	} else if ex, ok := m["examples"].([]any); ok && len(ex) > 0 {
		s.Example = ex[0]
	}
}

func intKeyword(m map[string]any, key string) *int64 {
	if f, ok := m[key].(float64); ok && f >= 0 {
		return genai.Ptr(int64(f))
	}
	return nil
}

func floatKeyword(m map[string]any, key string) *float64 {
	if f, ok := m[key].(float64); ok {
		return genai.Ptr(f)
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
