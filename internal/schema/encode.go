package schema

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Encoder writes values of one Go type as the JSON text of a tool result: map keys sorted
// (stable text helps prompt caching), HTML not escaped, invalid UTF-8 replaced rather than
// failing the call, durations as "1h30m0s". Plain types (structs of strings, numbers, bools,
// slices, string-keyed maps, pointers and durations) are written by a plan built once per type
// into a pooled buffer; other parts are written by the v2 JSON codec, whose output the plan
// matches byte for byte.
type Encoder struct {
	opts jsonv2.Options
	plan *eplan // nil: the v2 codec writes the whole value
}

var encoders sync.Map // reflect.Type → *Encoder

// EncoderFor returns the encoder of values of type t.
func EncoderFor(t reflect.Type) *Encoder {
	if e, ok := encoders.Load(t); ok {
		return e.(*Encoder)
	}
	e := &Encoder{opts: baseEncodeOptions}
	// Custom marshalers cost a lookup per value, so only types that may hold a duration (an
	// interface may) pay for the duration marshaler.
	if containsType(t, func(t reflect.Type) bool { return t == durationType || t.Kind() == reflect.Interface }) {
		e.opts = encodeOptions
	}
	if p := buildEncodePlan(t, map[reflect.Type]*eplan{}); p.kind != eCodec {
		e.plan = p
	}
	actual, _ := encoders.LoadOrStore(t, e)
	return actual.(*Encoder)
}

var bufPool = sync.Pool{New: func() any { return new([]byte) }}

// EncodeAny encodes v, whatever its type, as [Encoder.Encode] does.
func EncodeAny(v any) (string, error) {
	if v == nil {
		return "null", nil
	}
	return EncoderFor(reflect.TypeOf(v)).Encode(v)
}

// Encode returns the JSON text of v, a value of the encoder's type or a pointer to one.
func (e *Encoder) Encode(v any) (string, error) {
	if e.plan != nil {
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Pointer && rv.Type().Elem() == e.plan.typ {
			rv = rv.Elem()
		}
		if rv.Type() == e.plan.typ {
			bp := bufPool.Get().(*[]byte)
			b, err := e.plan.append((*bp)[:0], rv, 0)
			s := string(b)
			if cap(b) <= 1<<16 {
				*bp = b
				bufPool.Put(bp)
			}
			if err != nil {
				return "", fmt.Errorf("encoding result: %w", err)
			}
			return s, nil
		}
	}
	b, err := jsonv2.Marshal(v, e.opts)
	if err != nil {
		return "", fmt.Errorf("encoding result: %w", codecCause(err))
	}
	return string(b), nil
}

func codecCause(err error) error {
	var se *jsonv2.SemanticError
	if errors.As(err, &se) && se.Err != nil {
		return se
	}
	return err
}

type ekind uint8

const (
	eCodec ekind = iota // the v2 codec writes it
	eString
	eBool
	eInt
	eUint
	eFloat
	eDuration
	ePtr
	eSlice
	eMap
	eStruct
)

// eplan writes values of one Go type.
type eplan struct {
	kind   ekind
	typ    reflect.Type
	elem   *eplan
	fields []efield
}

type efield struct {
	index     int
	name      string // `"name":`
	omitEmpty bool
	omitZero  bool
	p         *eplan
}

var isZeroerType = reflect.TypeFor[interface{ IsZero() bool }]()

func buildEncodePlan(t reflect.Type, memo map[reflect.Type]*eplan) *eplan {
	if p, ok := memo[t]; ok {
		return p
	}
	p := &eplan{typ: t}
	memo[t] = p
	if t == durationType {
		p.kind = eDuration
		return p
	}
	if hasMethods(t) && (isLeafType(t) || implementsEither(t, isZeroerType)) {
		return p // its own JSON, or an IsZero method omitzero would consult
	}
	switch t.Kind() {
	case reflect.String:
		p.kind = eString
	case reflect.Bool:
		p.kind = eBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = eInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = eUint
	case reflect.Float32, reflect.Float64:
		p.kind = eFloat
	case reflect.Pointer:
		p.kind, p.elem = ePtr, buildEncodePlan(t.Elem(), memo)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return p // bytes: base64
		}
		p.kind, p.elem = eSlice, buildEncodePlan(t.Elem(), memo)
	case reflect.Map:
		if t.Key().Kind() != reflect.String || hasMethods(t.Key()) {
			return p
		}
		p.kind, p.elem = eMap, buildEncodePlan(t.Elem(), memo)
	case reflect.Struct:
		names := map[string]bool{}
		var fields []efield
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if sf.Anonymous {
				return p // embedded fields are inlined: left to the codec
			}
			if tag == "-" || !sf.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" {
				name = sf.Name
			}
			f := efield{index: i}
			for opts != "" {
				var o string
				o, opts, _ = strings.Cut(opts, ",")
				switch o {
				case "omitempty":
					f.omitEmpty = true
				case "omitzero":
					f.omitZero = true
				default:
					return p
				}
			}
			if names[name] || !utf8.ValidString(name) {
				return p
			}
			names[name] = true
			q, _ := jsontext.AppendQuote(nil, name)
			f.name = string(append(q, ':'))
			fields = append(fields, f)
		}
		p.kind = eStruct
		for i := range fields {
			fields[i].p = buildEncodePlan(t.Field(fields[i].index).Type, memo)
		}
		p.fields = fields
	}
	return p
}

// maxPlanDepth is the nesting below which the v2 codec takes over, whose cycle detection then
// stops a value that refers to itself.
const maxPlanDepth = 500

// append writes v, of the plan's type, found depth levels down.
func (p *eplan) append(b []byte, v reflect.Value, depth int) ([]byte, error) {
	kind := p.kind
	if depth > maxPlanDepth {
		kind = eCodec
	}
	switch kind {
	case eString:
		b, _ = jsontext.AppendQuote(b, v.String()) // invalid UTF-8 comes out replaced
		return b, nil
	case eBool:
		return strconv.AppendBool(b, v.Bool()), nil
	case eInt:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case eUint:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case eFloat:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("unsupported value: %v", f)
		}
		return appendFloatBits(b, f, p.typ.Bits()), nil
	case eDuration:
		b = append(b, '"')
		b = append(b, time.Duration(v.Int()).String()...)
		return append(b, '"'), nil
	case ePtr:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return p.elem.append(b, v.Elem(), depth+1)
	case eSlice:
		b = append(b, '[')
		var err error
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = p.elem.append(b, v.Index(i), depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case eMap:
		return p.appendMap(b, v, depth)
	case eStruct:
		b = append(b, '{')
		first := true
		var err error
		for i := range p.fields {
			f := &p.fields[i]
			fv := v.Field(f.index)
			if f.omitZero && fv.IsZero() {
				continue
			}
			start := len(b)
			if !first {
				b = append(b, ',')
			}
			b = append(b, f.name...)
			valueAt := len(b)
			if b, err = f.p.append(b, fv, depth+1); err != nil {
				return nil, err
			}
			if f.omitEmpty {
				switch string(b[valueAt:]) {
				case `null`, `""`, `{}`, `[]`:
					b = b[:start]
					continue
				}
			}
			first = false
		}
		return append(b, '}'), nil
	}
	out, err := jsonv2.Marshal(v.Interface(), encodeOptions)
	if err != nil {
		return nil, codecCause(err)
	}
	return append(b, out...), nil
}

func (p *eplan) appendMap(b []byte, v reflect.Value, depth int) ([]byte, error) {
	if v.Len() == 0 {
		return append(b, "{}"...), nil
	}
	keys := make([]string, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		k := it.Key().String()
		if !utf8.ValidString(k) {
			// Keys that differ only in invalid UTF-8 come out alike: the codec says so.
			out, err := jsonv2.Marshal(v.Interface(), encodeOptions)
			if err != nil {
				return nil, codecCause(err)
			}
			return append(b, out...), nil
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	key := reflect.New(p.typ.Key()).Elem()
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b, _ = jsontext.AppendQuote(b, k)
		b = append(b, ':')
		key.SetString(k)
		if b, err = p.elem.append(b, v.MapIndex(key), depth+1); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendFloatBits writes f as the v2 codec does (ES6 number formatting at the type's size).
func appendFloatBits(b []byte, f float64, bits int) []byte {
	if bits == 32 {
		f = float64(float32(f))
	}
	if bits == 64 && f != 0 {
		abs := math.Abs(f)
		if f == math.Trunc(f) && abs < 1e15 {
			return strconv.AppendInt(b, int64(f), 10) // an integral value: written as an integer
		}
		if abs < 1e15 {
			if out, ok := appendFewDecimals(b, f, abs); ok {
				return out
			}
		}
	}
	return appendFloatGeneric(b, f, bits)
}

// pow10 holds the exact powers of ten appendFewDecimals tries.
var pow10 = [...]float64{1e1, 1e2, 1e3, 1e4, 1e5, 1e6}

// appendFewDecimals writes f, not integral, when some decimal with at most six places after
// the point rounds to it: then the first such, with fewest places, is the shortest decimal
// that reads back as f (what strconv finds in general, several times slower). m/10^k, with m
// an integer below 2^53, rounds to f exactly when float64(m)/10^k == f, since both operands are
// exact and IEEE division rounds correctly.
func appendFewDecimals(b []byte, f, abs float64) ([]byte, bool) {
	for k, p := range pow10 {
		if abs*p >= 1<<53 {
			return b, false
		}
		m := math.Round(abs * p)
		if m/p != abs {
			continue
		}
		var buf [24]byte
		digits := strconv.AppendUint(buf[:0], uint64(m), 10)
		places := k + 1
		if f < 0 {
			b = append(b, '-')
		}
		if len(digits) <= places {
			b = append(b, '0', '.')
			for range places - len(digits) {
				b = append(b, '0')
			}
			return append(b, digits...), true
		}
		b = append(b, digits[:len(digits)-places]...)
		b = append(b, '.')
		return append(b, digits[len(digits)-places:]...), true
	}
	return b, false
}

// appendFloatGeneric writes f as the v2 codec does, by strconv's shortest formatting; for
// bits 64 that is also what encoding/json writes (ES6 number formatting).
func appendFloatGeneric(b []byte, f float64, bits int) []byte {
	if bits == 64 && f == math.Trunc(f) && f != 0 && math.Abs(f) < 1e15 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
