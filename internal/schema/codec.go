package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	jsonv2 "github.com/go-json-experiment/json"
)

// Codec is the one plan wield has for reading JSON into a Go type: the schema a model is shown,
// validation with every rule the schema states, defaults, and decoding with the same rules
// ("1h30m" for a duration). Tools, entities and argument augmentation all read through it. A
// Codec is safe for concurrent use.
type Codec struct {
	typ  reflect.Type
	gen  uint64
	raw  json.RawMessage
	root *node // the inferred schema; nil for an explicit one

	once sync.Once
	v    *Validator
	err  error
	plan *dnode // decodes while validating; nil: validate, then decode with the v2 codec
	opts []jsonv2.Options
	// none: the type holds nothing to decode (a struct without JSON fields), so validated
	// arguments are not decoded at all.
	none bool
}

// codecSlot holds the codec of one type as inferred last; it is stored once per type, so that
// inferring again (after a type doc is registered) replaces a pointer and adds no map entry.
type codecSlot struct{ cur atomic.Pointer[codecEntry] }

type codecEntry struct {
	gen   uint64
	codec *Codec
	err   error
}

var codecs sync.Map // reflect.Type → *codecSlot

// For returns the codec of type t with its inferred schema; the rules are those of
// tool.SchemaOf. Inference runs once per type (again after a type doc is registered). The
// validator is compiled on first use, except for schemas that hold a Hook's schema or
// defaults, which are checked here so that a bad one fails now.
func For(t reflect.Type) (*Codec, error) {
	gen := registry.gen.Load()
	var slot *codecSlot
	if s, ok := codecs.Load(t); ok {
		slot = s.(*codecSlot)
		if e := slot.cur.Load(); e != nil && e.gen == gen {
			return e.codec, e.err
		}
	} else {
		s, _ := codecs.LoadOrStore(t, new(codecSlot))
		slot = s.(*codecSlot)
	}
	e := &codecEntry{gen: gen}
	e.codec, e.err = infer1(t, gen)
	if e.err != nil {
		e.err = fmt.Errorf("schema of %v: %w", t, e.err)
		e.codec = nil
	}
	slot.cur.Store(e)
	return e.codec, e.err
}

func infer1(t reflect.Type, gen uint64) (*Codec, error) {
	var inf inferrer
	root, err := inf.infer(t)
	if err != nil {
		return nil, err
	}
	if err := checkDecodable(t); err != nil {
		return nil, err
	}
	raw, err := root.appendJSON(make([]byte, 0, 256))
	if err != nil {
		return nil, err
	}
	c := &Codec{typ: t, gen: gen, raw: raw, root: root}
	if inf.hooks || inf.defaults {
		if _, err := c.Validator(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Explicit returns a codec that validates against v's schema, then decodes into t: t may be
// any type that can hold what the schema allows (a struct, a map, json.RawMessage, any). It
// fails for a type the v2 codec cannot read at all.
func Explicit(t reflect.Type, v *Validator, raw json.RawMessage) (*Codec, error) {
	if err := checkDecodable(t); err != nil {
		return nil, err
	}
	c := &Codec{typ: t, raw: bytes.Clone(raw), v: v}
	c.once.Do(func() { c.prepare() })
	return c, nil
}

// Schema returns the JSON text of the schema; it must not be modified.
func (c *Codec) Schema() json.RawMessage { return c.raw }

// Validator returns the compiled validator, compiling it on first use.
func (c *Codec) Validator() (*Validator, error) {
	c.once.Do(func() {
		if c.v == nil {
			c.v, c.err = compileSchema(c.root.toSchema())
		}
		c.prepare()
	})
	return c.v, c.err
}

func (c *Codec) prepare() {
	if c.typ == nil {
		c.none = true
		return
	}
	// Defaults that may break the schema are sorted out on the text of the arguments (Prepare),
	// which the single-pass plan does not make.
	if c.root != nil && c.v != nil && c.v.root != nil && !c.v.recheck {
		if p := buildPlan(c.typ, c.v.root, map[planKey]*dnode{}); p.kind != dSpan {
			c.plan = p
		}
	}
	c.opts = decodeOptions(c.typ)
	et := derefType(c.typ)
	c.none = et.Kind() == reflect.Struct && !isLeafType(et) && len(jsonFields(et)) == 0
}

// Decode validates args against the schema, fills in defaults and decodes the result into
// dst, a pointer to a value of the codec's type (nil: validate only). Problems with args are
// an [*ArgumentError].
func (c *Codec) Decode(args string, dst any) error {
	v, err := c.Validator()
	if err != nil {
		return err
	}
	if dst == nil {
		_, err := v.Prepare(args)
		return err
	}
	if c.plan != nil {
		if rv := reflect.ValueOf(dst); rv.Kind() == reflect.Pointer && rv.Type().Elem() == c.typ {
			return v.decode(args, c.plan, rv.Elem())
		}
	}
	data, err := v.Prepare(args)
	if err != nil {
		return err
	}
	if c.none {
		return nil
	}
	if err := jsonv2.Unmarshal([]byte(data), dst, c.opts...); err != nil {
		return decodeError(err)
	}
	return nil
}
