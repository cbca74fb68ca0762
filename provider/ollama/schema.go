package ollama

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
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
	root, err := parseOrdered(schema)
	if err != nil {
		return empty, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	obj, ok := root.(*object)
	if !ok {
		return empty, errors.New("the input schema must be a JSON object")
	}
	r := &rewriter{root: obj}
	top := obj.clone() // definitions are inlined where used, and not sent
	top.del("$defs")
	top.del("definitions")
	top.del("$schema")
	out, err := r.rewrite(top, "#")
	if err != nil {
		return empty, err
	}
	o, ok := out.(*object)
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
	if items, ok := o.get("items"); ok {
		p.Items = items
	}
	keepItemsOrder(p.Properties, o)
	return p, nil
}

// keepItemsOrder puts the rewritten "items" schemas back in place of the ones decoded into
// Ollama's untyped Items field, which lost their key order.
func keepItemsOrder(props *api.ToolPropertiesMap, src *object) {
	sp, _ := src.get("properties")
	srcProps, ok := sp.(*object)
	if !ok {
		return
	}
	for name, prop := range props.All() {
		s, _ := srcProps.get(name)
		if so, ok := s.(*object); ok {
			props.Set(name, withItems(prop, so))
		}
	}
}

func withItems(prop api.ToolProperty, src *object) api.ToolProperty {
	if items, ok := src.get("items"); ok {
		prop.Items = items
	}
	if prop.Properties != nil {
		keepItemsOrder(prop.Properties, src)
	}
	if alts, ok := src.get("anyOf"); ok {
		if list, ok := alts.([]any); ok && len(list) == len(prop.AnyOf) {
			for i := range prop.AnyOf {
				if so, ok := list[i].(*object); ok {
					prop.AnyOf[i] = withItems(prop.AnyOf[i], so)
				}
			}
		}
	}
	return prop
}

type rewriter struct {
	root  *object
	stack []string
}

func (r *rewriter) rewrite(v any, at string) (any, error) {
	switch x := v.(type) {
	case *object:
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

func (r *rewriter) rewriteObject(o *object, at string) (any, error) {
	if ref, ok := o.get("$ref"); ok {
		s, _ := ref.(string)
		return r.inline(o, s, at)
	}
	out := &object{}
	for i, k := range o.keys {
		v := o.vals[i]
		switch k {
		case "const":
			if _, hasEnum := o.get("enum"); !hasEnum {
				out.set("enum", []any{v})
			}
			continue
		case "oneOf":
			k = "anyOf"
		case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas":
			// Maps of names to schemas: the names are not keywords.
			if m, ok := v.(*object); ok {
				sub := &object{}
				for j, name := range m.keys {
					s, err := r.rewrite(m.vals[j], at+"/"+k+"/"+name)
					if err != nil {
						return nil, err
					}
					sub.set(name, s)
				}
				out.set(k, sub)
				continue
			}
		case "enum", "required", "examples", "default", "type":
			out.set(k, v) // values, not schemas
			continue
		}
		s, err := r.rewrite(v, at+"/"+k)
		if err != nil {
			return nil, err
		}
		out.set(k, s)
	}
	return out, nil
}

func (r *rewriter) inline(o *object, ref, at string) (any, error) {
	target, err := r.resolve(ref)
	if err != nil {
		return nil, fmt.Errorf("JSON Schema at %s: %w", at, err)
	}
	var res *object
	if slices.Contains(r.stack, ref) {
		// Recursive type: keep what it is, not what it contains.
		res = &object{}
		if t, ok := target.(*object); ok {
			for _, k := range []string{"type", "description"} {
				if v, ok := t.get(k); ok {
					res.set(k, v)
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
		t, ok := v.(*object)
		if !ok {
			return v, nil // a boolean schema
		}
		res = t.clone()
		res.del("$defs")
		res.del("definitions")
	}
	// Keywords beside $ref describe this use of the type.
	for i, k := range o.keys {
		if k == "$ref" {
			continue
		}
		v, err := r.rewrite(o.vals[i], at+"/"+k)
		if err != nil {
			return nil, err
		}
		res.set(k, v)
	}
	return res, nil
}

func (r *rewriter) resolve(ref string) (any, error) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("only local $ref is supported, got %q", ref)
	}
	var cur any = r.root
	if ptr == "" {
		return cur, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("unsupported $ref %q (anchors are not supported)", ref)
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch node := cur.(type) {
		case *object:
			next, ok := node.get(tok)
			if !ok {
				return nil, fmt.Errorf("$ref %q points nowhere", ref)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(node) {
				return nil, fmt.Errorf("$ref %q points nowhere", ref)
			}
			cur = node[i]
		default:
			return nil, fmt.Errorf("$ref %q points nowhere", ref)
		}
	}
	return cur, nil
}

// object is a JSON object that keeps its key order.
type object struct {
	keys []string
	vals []any
}

func (o *object) get(k string) (any, bool) {
	if i := slices.Index(o.keys, k); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

func (o *object) set(k string, v any) {
	if i := slices.Index(o.keys, k); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

func (o *object) del(k string) {
	if i := slices.Index(o.keys, k); i >= 0 {
		o.keys = slices.Delete(o.keys, i, i+1)
		o.vals = slices.Delete(o.vals, i, i+1)
	}
}

func (o *object) clone() *object {
	return &object{keys: slices.Clone(o.keys), vals: slices.Clone(o.vals)}
}

func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// parseOrdered decodes JSON with objects as *object, numbers as json.Number.
func parseOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the top-level value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token() // ']'
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}
