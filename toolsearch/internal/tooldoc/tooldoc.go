// Package tooldoc reads the searchable text of a tool definition: its name, its description and
// the names and descriptions of its parameters, nested ones included.
package tooldoc

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/wield-ai/wield/tool"
)

// Doc is the text of one tool definition, field by field.
type Doc struct {
	Name              string
	Description       string
	ParamNames        []string
	ParamDescriptions []string
	// OutputNames and OutputDescriptions document what the tool returns: the properties of its
	// output schema, read by WithOutputs only.
	OutputNames        []string
	OutputDescriptions []string
}

// maxDepth bounds the walk into nested schemas; deeper levels add little text and a hostile
// schema could nest without end.
const maxDepth = 8

// Of returns the text of def. A schema that is not valid JSON contributes nothing: the tool stays
// searchable by name and description.
func Of(def tool.Definition) Doc {
	var r Reader
	return r.Of(def)
}

// Reader reads the text of many definitions, reusing its decoder: indexing a large catalog
// reads thousands of schemas.
type Reader struct {
	rd  bytes.Reader
	dec *jsontext.Decoder
	buf []byte
}

// Of returns the text of def, as the function Of does.
func (r *Reader) Of(def tool.Definition) Doc {
	d := Doc{Name: def.Name, Description: def.Description}
	var s schema
	if r.schema(def.InputSchema, &s) {
		walk(&s, &d.ParamNames, &d.ParamDescriptions)
	}
	return d
}

// WithOutputs returns the text of def as Of does, and that of its output schema: requests often
// say what they want back ("the title, author and ISBN of the book"). An output schema that is
// not valid JSON contributes nothing.
func (r *Reader) WithOutputs(def tool.Definition) Doc {
	d := r.Of(def)
	var s schema
	if r.schema(def.OutputSchema, &s) {
		walk(&s, &d.OutputNames, &d.OutputDescriptions)
	}
	return d
}

// schema reads raw into s, reporting whether it is a JSON object it could read.
func (r *Reader) schema(raw []byte, s *schema) bool {
	if len(raw) == 0 {
		return false
	}
	r.rd.Reset(raw)
	if r.dec == nil {
		// Lenient like encoding/json: a repeated name counts once, the last time, and invalid
		// UTF-8 is kept as replacement characters.
		r.dec = jsontext.NewDecoder(&r.rd, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	} else {
		r.dec.Reset(&r.rd, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	}
	return r.dec.PeekKind() == '{' && r.read(s, 0) == nil
}

// str reads the string value the decoder is at.
func (r *Reader) str() (string, error) {
	raw, err := r.dec.ReadValue()
	if err != nil {
		return "", err
	}
	text := []byte(raw[1 : len(raw)-1])
	for _, c := range text {
		if c < ' ' || c == '\\' || c >= 0x80 {
			// Escapes or other than ASCII: decoded, invalid UTF-8 replaced (the only error
			// possible in a string the decoder accepted).
			r.buf, _ = jsontext.AppendUnquote(r.buf[:0], raw)
			text = r.buf
			break
		}
	}
	return string(text), nil
}

// key reads the object member name the decoder is at, as one of the keywords read, or "".
func (r *Reader) key() (string, error) {
	raw, err := r.dec.ReadValue()
	if err != nil {
		return "", err
	}
	if bytes.IndexByte(raw, '\\') >= 0 {
		r.buf, _ = jsontext.AppendUnquote(r.buf[:0], raw)
		raw = append(append(raw[:0:0], '"'), append(r.buf, '"')...)
	}
	for _, k := range keywords {
		if string(raw) == k.quoted {
			return k.name, nil
		}
	}
	return "", nil
}

var keywords = []struct{ name, quoted string }{
	{"description", `"description"`}, {"enum", `"enum"`}, {"properties", `"properties"`}, {"items", `"items"`},
}

// schema is the part of a JSON Schema that documents parameters.
type schema struct {
	description string
	enum        []string
	properties  []property
	items       *schema
}

type property struct {
	name   string
	schema *schema // nil for a property whose schema is not an object
}

// read reads the object the decoder is at into s, skipping what does not document parameters
// and what lies deeper than maxDepth. A value of an unexpected type is skipped.
func (r *Reader) read(s *schema, depth int) error {
	dec := r.dec
	if _, err := dec.ReadToken(); err != nil { // {
		return err
	}
	for dec.PeekKind() != '}' {
		name, err := r.key()
		if err != nil {
			return err
		}
		switch kind := dec.PeekKind(); {
		case name == "description" && kind == '"':
			s.description, err = r.str()
		case name == "enum" && kind == '[':
			s.enum, err = r.strings()
		case name == "properties" && kind == '{' && depth <= maxDepth:
			s.properties, err = r.properties(depth)
		case name == "items" && kind == '{' && depth < maxDepth:
			s.items = new(schema)
			err = r.read(s.items, depth+1)
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	_, err := dec.ReadToken() // }
	return err
}

// properties reads the properties object the decoder is at, sorted by name.
func (r *Reader) properties(depth int) ([]property, error) {
	dec := r.dec
	if _, err := dec.ReadToken(); err != nil { // {
		return nil, err
	}
	var props []property
	for dec.PeekKind() != '}' {
		name, err := r.str()
		if err != nil {
			return nil, err
		}
		p := property{name: name}
		// Read at any depth properties are read at: the deepest properties keep their
		// descriptions, and their own properties are skipped.
		if dec.PeekKind() == '{' {
			p.schema = new(schema)
			err = r.read(p.schema, depth+1)
		} else {
			err = dec.SkipValue()
		}
		if err != nil {
			return nil, err
		}
		// A name given twice counts once, with its last schema.
		if i := slices.IndexFunc(props, func(q property) bool { return q.name == p.name }); i >= 0 {
			props[i] = p
			continue
		}
		props = append(props, p)
	}
	if _, err := dec.ReadToken(); err != nil { // }
		return nil, err
	}
	slices.SortFunc(props, func(a, b property) int { return cmp.Compare(a.name, b.name) })
	return props, nil
}

// strings reads the array the decoder is at and returns its non-empty strings.
func (r *Reader) strings() ([]string, error) {
	dec := r.dec
	if _, err := dec.ReadToken(); err != nil { // [
		return nil, err
	}
	var out []string
	for dec.PeekKind() != ']' {
		if dec.PeekKind() != '"' {
			if err := dec.SkipValue(); err != nil {
				return nil, err
			}
			continue
		}
		v, err := r.str()
		if err != nil {
			return nil, err
		}
		if v != "" {
			out = append(out, v)
		}
	}
	_, err := dec.ReadToken() // ]
	return out, err
}

// walk appends the names of the properties of s to names and their descriptions and enum values
// to descs, depth first in name order, then those of its items.
func walk(s *schema, names, descs *[]string) {
	for _, p := range s.properties {
		*names = append(*names, p.name)
		if p.schema == nil {
			continue
		}
		if p.schema.description != "" {
			*descs = append(*descs, p.schema.description)
		}
		*descs = append(*descs, p.schema.enum...)
		walk(p.schema, names, descs)
	}
	if s.items != nil {
		walk(s.items, names, descs)
	}
}
