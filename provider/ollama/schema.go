package ollama

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/ollama/ollama/api"

	"github.com/wield-ai/wield/internal/jsonobj"
)

// toolParameters turns a tool's JSON Schema into the parameters Ollama reads. Ollama's tool
// types keep only type, description, enum, items, anyOf, properties and required (its server
// decodes tools with the same types, so any other keyword never reaches the model); a $ref would
// be lost with the definitions it points to, so references are inlined first (a reference back
// into a type being inlined keeps only its type and description), const becomes a one-value
// enum and oneOf becomes anyOf. Property order is kept: models read the schema as text.
func toolParameters(schema json.RawMessage) (api.ToolFunctionParameters, error) {
	empty := api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()}
	if len(bytes.TrimSpace(schema)) == 0 || string(schema) == "null" {
		return empty, nil
	}
	root, err := jsonobj.Parse(schema)
	if err != nil {
		return empty, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	obj, ok := root.(*jsonobj.Object)
	if !ok {
		return empty, errors.New("the input schema must be a JSON object")
	}
	r := &rewriter{root: obj}
	top := obj.Clone() // definitions are inlined where used, and not sent
	top.Delete("$defs")
	top.Delete("definitions")
	top.Delete("$schema")
	out, err := r.rewrite(top, "#")
	if err != nil {
		return empty, err
	}
	o, ok := out.(*jsonobj.Object)
	if !ok {
		return empty, errors.New("the input schema must be a JSON object")
	}
	b, err := json.Marshal(o)
	if err != nil {
		return empty, err
	}
	var p api.ToolFunctionParameters
	if err := json.Unmarshal(b, &p); err != nil {
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
	if items, ok := o.Lookup("items"); ok {
		p.Items = items
	}
	keepItemsOrder(p.Properties, o)
	return p, nil
}

// keepItemsOrder puts the rewritten "items" schemas back in place of the ones decoded into
// Ollama's untyped Items field, which lost their key order.
func keepItemsOrder(props *api.ToolPropertiesMap, src *jsonobj.Object) {
	sp := src.Get("properties")
	srcProps, ok := sp.(*jsonobj.Object)
	if !ok {
		return
	}
	for name, prop := range props.All() {
		s := srcProps.Get(name)
		if so, ok := s.(*jsonobj.Object); ok {
			props.Set(name, withItems(prop, so))
		}
	}
}

func withItems(prop api.ToolProperty, src *jsonobj.Object) api.ToolProperty {
	if items, ok := src.Lookup("items"); ok {
		prop.Items = items
	}
	if prop.Properties != nil {
		keepItemsOrder(prop.Properties, src)
	}
	if alts, ok := src.Lookup("anyOf"); ok {
		if list, ok := alts.([]any); ok && len(list) == len(prop.AnyOf) {
			for i := range prop.AnyOf {
				if so, ok := list[i].(*jsonobj.Object); ok {
					prop.AnyOf[i] = withItems(prop.AnyOf[i], so)
				}
			}
		}
	}
	return prop
}

type rewriter struct {
	root  *jsonobj.Object
	stack []string
}

func (r *rewriter) rewrite(v any, at string) (any, error) {
	switch x := v.(type) {
	case *jsonobj.Object:
		return r.rewriteObject(x, at)
	case []any:
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

func (r *rewriter) rewriteObject(o *jsonobj.Object, at string) (any, error) {
	if ref, ok := o.Lookup("$ref"); ok {
		s, _ := ref.(string)
		return r.inline(o, s, at)
	}
	out := jsonobj.New()
	for k, v := range o.All() {
		switch k {
		case "const":
			if _, hasEnum := o.Lookup("enum"); !hasEnum {
				out.Set("enum", []any{v})
			}
			continue
		case "oneOf":
			k = "anyOf"
		case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas":
			// Maps of names to schemas: the names are not keywords.
			if m, ok := v.(*jsonobj.Object); ok {
				sub := jsonobj.New()
				for name, ms := range m.All() {
					s, err := r.rewrite(ms, at+"/"+k+"/"+name)
					if err != nil {
						return nil, err
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
			return nil, err
		}
		out.Set(k, s)
	}
	return out, nil
}

func (r *rewriter) inline(o *jsonobj.Object, ref, at string) (any, error) {
	target, err := jsonobj.ResolveRef(r.root, ref)
	if err != nil {
		return nil, fmt.Errorf("JSON Schema at %s: %w", at, err)
	}
	var res *jsonobj.Object
	if slices.Contains(r.stack, ref) {
		// Recursive type: keep what it is, not what it contains.
		res = jsonobj.New()
		if t, ok := target.(*jsonobj.Object); ok {
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
		t, ok := v.(*jsonobj.Object)
		if !ok {
			return v, nil // a boolean schema
		}
		res = t // a fresh rewrite, ours to change
		res.Delete("$defs")
		res.Delete("definitions")
	}
	// Keywords beside $ref describe this use of the type.
	for k, v := range o.All() {
		if k == "$ref" {
			continue
		}
		s, err := r.rewrite(v, at+"/"+k)
		if err != nil {
			return nil, err
		}
		res.Set(k, s)
	}
	return res, nil
}
