package orderedjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"slices"
)

// Object is a JSON object that remembers the order of its members. The zero value is an empty
// object ready to use.
type Object struct {
	keys []string
	vals map[string]any
}

// New returns an empty object.
func New() *Object { return &Object{} }

// Len returns the number of members.
func (o *Object) Len() int { return len(o.keys) }

// Lookup returns the value of member k and whether o has it; a member may be present with the
// value nil (JSON null).
func (o *Object) Lookup(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// Get returns the value of member k, or nil when o has no such member.
func (o *Object) Get(k string) any { return o.vals[k] }

// Set sets member k to v: in its place when o has it, else last.
func (o *Object) Set(k string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Delete removes member k, if o has it.
func (o *Object) Delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	if i := slices.Index(o.keys, k); i >= 0 {
		o.keys = slices.Delete(o.keys, i, i+1)
	}
}

// Keys returns the member names in order, in a slice of the caller's own: o may be changed
// while ranging over it.
func (o *Object) Keys() []string { return slices.Clone(o.keys) }

// All yields the members in order. o must not be changed during the iteration.
func (o *Object) All() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for _, k := range o.keys {
			if !yield(k, o.vals[k]) {
				return
			}
		}
	}
}

// Clone returns a deep copy: the objects and arrays inside o are copied too.
func (o *Object) Clone() *Object {
	c := &Object{keys: slices.Clone(o.keys), vals: make(map[string]any, len(o.vals))}
	for k, v := range o.vals {
		c.vals[k] = CloneValue(v)
	}
	return c
}

// CloneValue returns a deep copy of a value [Parse] returns.
func CloneValue(v any) any {
	switch x := v.(type) {
	case *Object:
		return x.Clone()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = CloneValue(e)
		}
		return out
	default:
		return v
	}
}

// Map returns the members as a map, for APIs that take one. The map loses the order of o's own
// members, but the objects inside it are still *Object and marshal in order.
func (o *Object) Map() map[string]any {
	m := make(map[string]any, len(o.keys))
	for _, k := range o.keys {
		m[k] = o.vals[k]
	}
	return m
}

// MarshalJSON writes the members in order. The objects and arrays inside are written in the
// same pass, so that a deep value costs time in proportion to its size (encoding/json would
// check and compact the output of each nested marshaler again).
func (o *Object) MarshalJSON() ([]byte, error) {
	return appendValue(nil, o)
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case *Object:
		b = append(b, '{')
		for i, k := range x.keys {
			if i > 0 {
				b = append(b, ',')
			}
			kb, err := json.Marshal(k)
			if err != nil {
				return nil, err
			}
			b = append(append(b, kb...), ':')
			if b, err = appendValue(b, x.vals[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	vb, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, vb...), nil
}

// Parse decodes one JSON value: objects become *Object, arrays []any, numbers json.Number, and
// strings, booleans and null what encoding/json makes of them. Anything after the value but
// white space is an error.
func Parse(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// ParseObject decodes a JSON object, as [Parse] does.
func ParseObject(data []byte) (*Object, error) {
	v, err := Parse(data)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*Object)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return o, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		o := New()
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			// The decoder checks the syntax: a token in key position is a string.
			k, _ := kt.(string)
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o.Set(k, v)
		}
		if _, err := dec.Token(); err != nil { // '}'
			return nil, err
		}
		return o, nil
	default: // '[': the decoder never starts a value with a closing delimiter.
		arr := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil { // ']'
			return nil, err
		}
		return arr, nil
	}
}
