package ollama

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/ollama/ollama/api"

	"github.com/wield-ai/wield/internal/orderedjson"
)

// toolParameters turns a tool's JSON Schema into the parameters Ollama reads. Ollama's tool
// types keep only type, description, enum, items, anyOf, properties and required (its server
// decodes tools with the same types, so any other keyword never reaches the model); a $ref would
// be lost with the definitions it points to, so references are inlined first (a reference back
// into a type being inlined keeps only its type and description), const becomes a one-value
// enum and oneOf becomes anyOf. Property order is kept: models read the schema as text.
//
// Ollama's parameters do take a top-level $defs, but its property type has no $ref, so a
// reference from a property would reach the model without the link to its definition:
// inlining is the only faithful form. Inlining can grow a schema exponentially, so the rewrite
// is bounded by a [orderedjson.Budget] and a schema past it is refused. The rewritten schema is
// then read into Ollama's types directly (a round trip through JSON costs the depth of the
// schema times its size, in the SDK's ordered maps).
func toolParameters(schema json.RawMessage) (api.ToolFunctionParameters, error) {
	empty := api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()}
	if len(bytes.TrimSpace(schema)) == 0 || string(schema) == "null" {
		return empty, nil
	}
	root, err := orderedjson.Parse(schema)
	if err != nil {
		return empty, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	obj, ok := root.(*orderedjson.Object)
	if !ok {
		return empty, errors.New("the input schema must be a JSON object")
	}
	r := &rewriter{root: obj, budget: &orderedjson.Budget{}}
	top := obj.Clone() // definitions are inlined where used, and not sent
	top.Delete("$defs")
	top.Delete("definitions")
	top.Delete("$schema")
	out, err := r.rewrite(top, "#")
	if err != nil {
		return empty, err
	}
	o, ok := out.(*orderedjson.Object)
	if !ok {
		return empty, errors.New("the input schema must be a JSON object")
	}
	p, err := parameters(o)
	if err != nil {
		return empty, fmt.Errorf("schema not representable in Ollama's tool format: %w", err)
	}
	switch p.Type {
	case "":
		p.Type = "object"
	case "object":
	default:
		return empty, fmt.Errorf("the input schema must describe an object, not %q", p.Type)
	}
	if p.Properties == nil {
		p.Properties = api.NewToolPropertiesMap()
	}
	return p, nil
}

// parameters reads the keywords Ollama's parameters keep, as its server's JSON decoding would:
// the others are dropped, and a keyword of the wrong JSON type is an error.
func parameters(o *orderedjson.Object) (api.ToolFunctionParameters, error) {
	var p api.ToolFunctionParameters
	var err error
	if p.Type, err = field[string](o, "type"); err != nil {
		return p, err
	}
	if req, ok := o.Lookup("required"); ok && req != nil {
		list, ok := req.([]any)
		if !ok {
			return p, fmt.Errorf("required is not an array")
		}
		for _, r := range list {
			name, ok := r.(string)
			if !ok {
				return p, fmt.Errorf("required holds a non-string")
			}
			p.Required = append(p.Required, name)
		}
	}
	p.Items = o.Get("items")
	p.Properties, err = properties(o, "properties")
	return p, err
}

// properties reads the schemas under key of o, in order; nil when o has none.
func properties(o *orderedjson.Object, at string) (*api.ToolPropertiesMap, error) {
	v := o.Get("properties")
	if v == nil {
		return nil, nil
	}
	m, ok := v.(*orderedjson.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", at)
	}
	out := api.NewToolPropertiesMap()
	for name, s := range m.All() {
		prop, err := property(s, at+"/"+name)
		if err != nil {
			return nil, err
		}
		out.Set(name, prop)
	}
	return out, nil
}

// property reads one property's schema into Ollama's type.
func property(v any, at string) (api.ToolProperty, error) {
	var p api.ToolProperty
	if v == nil {
		return p, nil
	}
	o, ok := v.(*orderedjson.Object)
	if !ok {
		return p, fmt.Errorf("%s is not an object schema", at)
	}
	switch t := o.Get("type").(type) {
	case nil:
	case string:
		p.Type = api.PropertyType{t}
	case []any:
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return p, fmt.Errorf("%s: type holds a non-string", at)
			}
			p.Type = append(p.Type, s)
		}
	default:
		return p, fmt.Errorf("%s: type is neither a string nor an array", at)
	}
	var err error
	if p.Description, err = field[string](o, "description"); err != nil {
		return p, fmt.Errorf("%s: %w", at, err)
	}
	if p.Enum, err = field[[]any](o, "enum"); err != nil {
		return p, fmt.Errorf("%s: %w", at, err)
	}
	p.Items = o.Get("items")
	if alts := o.Get("anyOf"); alts != nil {
		list, ok := alts.([]any)
		if !ok {
			return p, fmt.Errorf("%s: anyOf is not an array", at)
		}
		for i, a := range list {
			alt, err := property(a, fmt.Sprintf("%s/anyOf/%d", at, i))
			if err != nil {
				return p, err
			}
			p.AnyOf = append(p.AnyOf, alt)
		}
	}
	p.Properties, err = properties(o, at+"/properties")
	return p, err
}

// field returns member key of o as a T; absent or null is T's zero value.
func field[T any](o *orderedjson.Object, key string) (T, error) {
	var zero T
	v := o.Get(key)
	if v == nil {
		return zero, nil
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("%s is a %s", key, jsonKind(v))
	}
	return t, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case *orderedjson.Object:
		return "object"
	}
	return "value"
}

type rewriter struct {
	root   *orderedjson.Object
	stack  []string
	budget *orderedjson.Budget // charged for every object and array emitted, inlined copies included
}

func (r *rewriter) rewrite(v any, at string) (any, error) {
	switch x := v.(type) {
	case *orderedjson.Object:
		if err := r.budget.Charge(x); err != nil {
			return nil, err
		}
		return r.rewriteObject(x, at)
	case []any:
		if err := r.budget.Charge(x); err != nil {
			return nil, err
		}
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = r.rewrite(e, at+"/"+strconv.Itoa(i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

func (r *rewriter) rewriteObject(o *orderedjson.Object, at string) (any, error) {
	if ref, ok := o.Lookup("$ref"); ok {
		s, _ := ref.(string)
		return r.inline(o, s, at)
	}
	out := orderedjson.New()
	if err := r.keywords(out, o, at); err != nil {
		return nil, err
	}
	return out, nil
}

// keywords rewrites the keywords of the schema object o into out, but for a $ref: the
// subschemas they hold, const as a one-value enum, oneOf as anyOf, and the names of a map of
// schemas (properties, $defs, …) kept as they are.
func (r *rewriter) keywords(out, o *orderedjson.Object, at string) error {
	for k, v := range o.All() {
		switch k {
		case "$ref":
			continue
		case "const":
			if _, hasEnum := o.Lookup("enum"); !hasEnum {
				out.Set("enum", []any{v})
			}
			continue
		case "oneOf":
			k = "anyOf"
		case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas":
			// Maps of names to schemas: the names are not keywords.
			if m, ok := v.(*orderedjson.Object); ok {
				sub := orderedjson.New()
				for name, ms := range m.All() {
					s, err := r.rewrite(ms, at+"/"+k+"/"+name)
					if err != nil {
						return err
					}
					sub.Set(name, s)
				}
				out.Set(k, sub)
				continue
			}
		case "enum", "required", "examples", "default", "type":
			out.Set(k, v) // values, not schemas
			continue
		}
		s, err := r.rewrite(v, at+"/"+k)
		if err != nil {
			return err
		}
		out.Set(k, s)
	}
	return nil
}

func (r *rewriter) inline(o *orderedjson.Object, ref, at string) (any, error) {
	target, err := orderedjson.ResolveRef(r.root, ref)
	if err != nil {
		return nil, fmt.Errorf("JSON Schema at %s: %w", at, err)
	}
	var res *orderedjson.Object
	if slices.Contains(r.stack, ref) {
		// Recursive type: keep what it is, not what it contains.
		res = orderedjson.New()
		if t, ok := target.(*orderedjson.Object); ok {
			for _, k := range []string{"type", "description"} {
				if v, ok := t.Lookup(k); ok {
					res.Set(k, v)
				}
			}
		}
	} else {
		r.stack = append(r.stack, ref)
		v, err := r.rewrite(target, ref)
		r.stack = r.stack[:len(r.stack)-1]
		if err != nil {
			return nil, err
		}
		t, ok := v.(*orderedjson.Object)
		if !ok {
			return v, nil // a boolean schema
		}
		res = t // a fresh rewrite, ours to change
		res.Delete("$defs")
		res.Delete("definitions")
	}
	// Keywords beside $ref describe this use of the type, and are rewritten as any schema's.
	if err := r.keywords(res, o, at); err != nil {
		return nil, err
	}
	return res, nil
}
