package schema

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
)

// A plan decodes arguments into a Go value in the same pass that validates them: each part of
// the type is paired with the schema node that checks it, and what the node accepts is stored
// as soon as it is checked (strings without a copy: they are substrings of the arguments).
// Parts the single pass cannot store itself, such as time.Time, interfaces, types with their
// own JSON form, or values of schemas with alternatives, are validated first and then decoded
// by the v2 JSON codec from their own span of the text ("span" parts).

type dkind uint8

const (
	dSpan dkind = iota
	dString
	dBool
	dInt
	dUint
	dFloat
	dDuration
	dPtr
	dSlice
	dMap
	dStruct
)

// dnode is the plan for one Go type checked by one schema node.
type dnode struct {
	kind   dkind
	typ    reflect.Type
	elem   *dnode   // pointers, slices, maps
	fields []dfield // structs: one per property of the node, in its order
	opts   []jsonv2.Options
}

type dfield struct {
	index int    // the struct field
	d     *dnode // nil: the property has no field
}

type planKey struct {
	t reflect.Type
	n *vnode
}

// buildPlan returns the plan for decoding t checked by n; plans of recursive types refer to
// themselves.
func buildPlan(t reflect.Type, n *vnode, memo map[planKey]*dnode) *dnode {
	for n.onlyRef {
		n = n.ref
	}
	key := planKey{t, n}
	if d, ok := memo[key]; ok {
		return d
	}
	d := &dnode{typ: t}
	memo[key] = d
	if n == anyNode || n.applicators || n.never {
		return d.span()
	}
	if t == durationType {
		if n.types != tString {
			return d.span()
		}
		d.kind = dDuration
		return d
	}
	if isLeafType(t) {
		return d.span()
	}
	switch t.Kind() {
	case reflect.String:
		d.kind = dString
	case reflect.Bool:
		d.kind = dBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		d.kind = dInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		d.kind = dUint
	case reflect.Float32, reflect.Float64:
		d.kind = dFloat
	case reflect.Pointer:
		d.kind, d.elem = dPtr, buildPlan(t.Elem(), n, memo)
	case reflect.Slice:
		if n.items == nil || n.prefix != nil || n.types != tArray {
			return d.span()
		}
		d.kind, d.elem = dSlice, buildPlan(t.Elem(), n.items, memo)
	case reflect.Map:
		if t.Key() != stringType || n.additional == nil || n.props != nil || n.types != tObject {
			return d.span()
		}
		d.kind, d.elem = dMap, buildPlan(t.Elem(), n.additional, memo)
	case reflect.Struct:
		if n.types != tObject || !n.noAdditional {
			return d.span()
		}
		fields := jsonFields(t)
		d.kind = dStruct
		d.fields = make([]dfield, len(n.props))
		for i, p := range n.props {
			var f *jsonField
			for _, c := range fields {
				if c.name == p.name {
					f = c
				}
			}
			if f == nil || len(f.index) != 1 || !plainFieldOptions(f.opts) {
				return d.span()
			}
			d.fields[i] = dfield{index: f.index[0], d: buildPlan(f.typ, p.node, memo)}
		}
		if len(fields) != len(n.props) {
			return d.span()
		}
	default:
		return d.span()
	}
	return d
}

var stringType = reflect.TypeFor[string]()

// plainFieldOptions reports json tag options that change nothing in how a field is read.
func plainFieldOptions(opts string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o != "omitempty" && o != "omitzero" {
			return false
		}
	}
	return true
}

func (d *dnode) span() *dnode {
	d.kind, d.elem, d.fields = dSpan, nil, nil
	d.opts = decodeOptions(d.typ)
	return d
}

// spanValue validates the value at pos against n, then decodes its text with the v2 codec.
func (st *vstate) spanValue(d *dnode, n *vnode, pos int) int {
	dst := st.dst
	st.dec = nil
	nedits := len(st.edits)
	end := st.value(n, pos)
	if end < 0 || st.err != nil || st.decErr != nil {
		return end
	}
	text := st.data[pos:end]
	if len(st.edits) > nedits {
		text = st.editedSpan(pos, end, nedits)
	}
	if err := jsonv2.Unmarshal([]byte(text), dst.Addr().Interface(), d.opts...); err != nil {
		st.decodeFailed(decodeError(err))
	}
	return end
}

// editedSpan returns data[pos:end] with the edits made from edits[from:], which all lie in it.
func (st *vstate) editedSpan(pos, end, from int) string {
	sub := vstate{data: st.data[pos:end]}
	for _, e := range st.edits[from:] {
		e.at -= pos
		e.end -= pos
		sub.edits = append(sub.edits, e)
	}
	return sub.applyEdits()
}

// decodeFailed notes a value Go cannot hold; its path is relative to the current value.
func (st *vstate) decodeFailed(err error) {
	if st.decErr != nil {
		return
	}
	var ae *ArgumentError
	if !errors.As(err, &ae) {
		ae = &ArgumentError{Issues: []Issue{{Message: err.Error(), Keyword: "decode"}}}
	}
	base := st.pointer()
	for i := range ae.Issues {
		ae.Issues[i].Path = base + ae.Issues[i].Path
	}
	st.decErr = ae
}

// cannotHold notes that the value at the current path, written lit, cannot be held by Go type t.
func (st *vstate) cannotHold(lit string, t reflect.Type, why string) {
	msg := describe(lit) + " cannot be read as " + goTypeName(t)
	if why != "" {
		msg += ": " + why
	}
	st.decodeFailed(&ArgumentError{Issues: []Issue{{Message: msg, Keyword: "decode"}}})
}

// derefTarget allocates the values the pointers of a plan point to, and returns the plan and
// the value of what they point to.
func derefTarget(d *dnode, dst reflect.Value) (*dnode, reflect.Value) {
	for d != nil && d.kind == dPtr {
		p := reflect.New(d.typ.Elem())
		dst.Set(p)
		dst, d = p.Elem(), d.elem
	}
	return d, dst
}

// store decodes the scalar data[pos:end], which the schema accepted, into st.dst.
func (st *vstate) store(d *dnode, pos, end int) {
	d, dst := derefTarget(d, st.dst)
	st.storeTo(d, dst, pos, end)
}

// storeTo decodes the scalar data[pos:end], which the schema accepted, into dst by plan d, which
// is not a pointer's.
func (st *vstate) storeTo(d *dnode, dst reflect.Value, pos, end int) {
	lit := st.data[pos:end]
	switch d.kind {
	case dString:
		if lit[0] != '"' {
			st.cannotHold(lit, d.typ, "")
			return
		}
		dst.SetString(st.stringValue(lit))
	case dBool:
		switch lit {
		case "true":
			dst.SetBool(true)
		case "false":
			dst.SetBool(false)
		default:
			st.cannotHold(lit, d.typ, "")
		}
	case dInt:
		n, ok := st.integer(lit, d.typ)
		if !ok {
			return
		}
		if dst.OverflowInt(n) {
			st.cannotHold(lit, d.typ, "out of range")
			return
		}
		dst.SetInt(n)
	case dUint:
		var u uint64
		if lit[0] != '-' && !strings.ContainsAny(lit, ".eE") {
			var err error
			if u, err = strconv.ParseUint(lit, 10, 64); err != nil {
				st.cannotHold(lit, d.typ, "out of range")
				return
			}
		} else {
			n, ok := st.integer(lit, d.typ)
			if !ok {
				return
			}
			if n < 0 {
				st.cannotHold(lit, d.typ, "out of range")
				return
			}
			u = uint64(n) // -0 too: JSON's zero, which validation rewrites as 0

		}
		if dst.OverflowUint(u) {
			st.cannotHold(lit, d.typ, "out of range")
			return
		}
		dst.SetUint(u)
	case dFloat:
		if lit[0] != '-' && (lit[0] < '0' || lit[0] > '9') {
			st.cannotHold(lit, d.typ, "")
			return
		}
		f, err := strconv.ParseFloat(lit, d.typ.Bits())
		if err != nil || dst.OverflowFloat(f) {
			st.cannotHold(lit, d.typ, "out of range")
			return
		}
		dst.SetFloat(f)
	case dDuration:
		if lit[0] != '"' {
			st.cannotHold(lit, d.typ, "")
			return
		}
		v, err := time.ParseDuration(st.stringValue(lit))
		if err != nil {
			st.cannotHold(lit, d.typ, err.Error())
			return
		}
		dst.SetInt(int64(v))
	default:
		st.cannotHold(lit, d.typ, "")
	}
}

// stringValue returns the content of the JSON string lit, a substring of the arguments when it
// has no escapes.
func (st *vstate) stringValue(lit string) string {
	body := lit[1 : len(lit)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return body
	}
	return string(unescape(nil, body))
}

// integer reads a JSON number for an integer type: an integer literal, or an integral number
// written otherwise (2.0, 1e3) that a float64 holds exactly.
func (st *vstate) integer(lit string, t reflect.Type) (int64, bool) {
	if n, ok := shortInt(lit); ok {
		return n, true
	}
	if lit[0] != '-' && (lit[0] < '0' || lit[0] > '9') {
		st.cannotHold(lit, t, "")
		return 0, false
	}
	if !strings.ContainsAny(lit, ".eE") {
		n, err := strconv.ParseInt(lit, 10, 64)
		if err != nil {
			st.cannotHold(lit, t, "out of range")
			return 0, false
		}
		return n, true
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || !integralLiteral(lit) || math.Abs(f) > 1<<53 {
		st.cannotHold(lit, t, "")
		return 0, false
	}
	return int64(f), true
}

// shortInt reads an integer literal of at most 18 digits (and a sign), which no int64
// overflows; ok is false for anything else.
func shortInt(lit string) (n int64, ok bool) {
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(lit) {
		n = -n
	}
	return n, true
}

// setMapIndex stores a decoded member of a map, refusing a key given twice as the v2 codec does.
func (st *vstate) setMapIndex(m reflect.Value, key string, v reflect.Value) {
	k := reflect.ValueOf(key)
	if m.MapIndex(k).IsValid() {
		seg := st.top()
		st.pop()
		st.decodeFailed(&ArgumentError{Issues: []Issue{{Message: "duplicate property " + strconv.Quote(key), Keyword: "duplicate"}}})
		st.push(seg)
		return
	}
	m.SetMapIndex(k, v)
}

// decodeDefault stores the default of a missing property in its field.
func (st *vstate) decodeDefault(d *dnode, dst reflect.Value, p *vprop) {
	if st.err != nil || st.decErr != nil {
		return
	}
	if err := jsonv2.Unmarshal([]byte(p.def), dst.Addr().Interface(), decodeOptions(d.typ)...); err != nil {
		st.decodeFailed(decodeError(err))
	}
}
