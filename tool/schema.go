package tool

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaHook is implemented by types that describe their own JSON Schema, for what struct tags
// cannot say (an enum of a named string type, a pattern, a union). The method is called on the
// zero value (through a pointer if it has a pointer receiver); the result is copied, so it may
// be a shared value.
type SchemaHook interface {
	JSONSchema() *jsonschema.Schema
}

// SchemaFor returns the JSON Schema (2020-12) that wield infers for values of type T, the schema
// [Func] uses for its input. See [SchemaOf] for the rules.
func SchemaFor[T any]() (*jsonschema.Schema, error) {
	return SchemaOf(reflect.TypeFor[T]())
}

// SchemaOf returns the JSON Schema (2020-12) that wield infers for values of type t. The result
// is a copy the caller may change; inference itself runs once per type and is cached.
//
// The schema describes the JSON form that encoding/json and its v2 successor read and write:
//   - Struct fields are named by their json tag and required unless tagged omitempty or
//     omitzero or of pointer type. Objects from structs have additionalProperties false; maps
//     with string (or integer, or text-marshaling) keys are objects whose additionalProperties
//     describe the values.
//   - A `jsonschema:"…"` tag is the field's description (a `//wield:` doc registered with
//     [RegisterType] is used when there is no tag). An `enum:"a,b,c"` tag restricts a field (or
//     the items of a slice field) to the listed values; a `default:"…"` tag sets the default
//     applied to missing optional fields before a tool runs.
//   - Pointers are described by what they point to: null is not accepted, absence is. Slices
//     are plain arrays, not ["null","array"]: several providers reject type lists, and models
//     send arrays.
//   - time.Time is a date-time string; time.Duration a string such as "1h30m" (which is how
//     wield reads and writes durations); []byte a base64 string; json.RawMessage and interface
//     types any JSON value.
//   - Types implementing [SchemaHook] describe themselves. Other types with their own JSON or
//     text encoding are described by the kind of JSON their zero value encodes to, never by
//     their Go fields.
//   - Recursive types are defined once in $defs and referred to with $ref ("#" for the root).
//   - Functions, channels, complex numbers and unsafe pointers cannot be described; a field of
//     such a type is an error unless tagged json:"-".
func SchemaOf(t reflect.Type) (*jsonschema.Schema, error) {
	inf := inferCached(t)
	if inf.err != nil {
		return nil, inf.err
	}
	return inf.schema.CloneSchemas(), nil
}

// inferred is a cached inference result; schema and raw must not be modified.
type inferred struct {
	gen    uint64
	schema *jsonschema.Schema
	raw    json.RawMessage
	err    error
}

var schemaCache sync.Map // reflect.Type → *inferred

func inferCached(t reflect.Type) *inferred {
	gen := registry.gen.Load()
	if v, ok := schemaCache.Load(t); ok && v.(*inferred).gen == gen {
		return v.(*inferred)
	}
	inf := &inferred{gen: gen}
	inf.schema, inf.err = inferSchema(t)
	if inf.err == nil {
		inf.raw, inf.err = json.Marshal(inf.schema)
	}
	if inf.err != nil {
		inf.schema = nil
		inf.err = fmt.Errorf("tool: schema of %v: %w", t, inf.err)
	}
	schemaCache.Store(t, inf)
	return inf
}

var (
	schemaHookType       = reflect.TypeFor[SchemaHook]()
	jsonMarshalerType    = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshalerType  = reflect.TypeFor[json.Unmarshaler]()
	jsonMarshalerToType  = reflect.TypeFor[jsonv2.MarshalerTo]()
	jsonUnmarshalFromTyp = reflect.TypeFor[jsonv2.UnmarshalerFrom]()
	textMarshalerType    = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType  = reflect.TypeFor[encoding.TextUnmarshaler]()
	timeType             = reflect.TypeFor[time.Time]()
	durationType         = reflect.TypeFor[time.Duration]()
	rawMessageType       = reflect.TypeFor[json.RawMessage]()
	byteSliceType        = reflect.TypeFor[[]byte]()
)

// durationPattern is what time.ParseDuration accepts.
const durationPattern = `^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

const durationHint = `a duration such as "1h30m", "90s" or "250ms"`

// anyDescription keeps an unrestricted schema from marshaling as the bare `true`, which some
// providers reject as a property schema.
const anyDescription = "Any JSON value."

type inferrer struct {
	root      reflect.Type
	recursive map[reflect.Type]bool
	defNames  map[reflect.Type]string
	usedNames map[string]bool
	defs      map[string]*jsonschema.Schema
}

func inferSchema(t reflect.Type) (*jsonschema.Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	inf := &inferrer{root: t, recursive: map[reflect.Type]bool{}}
	inf.findRecursive(t, map[reflect.Type]int{})
	s, err := inf.body(t)
	if err != nil {
		return nil, err
	}
	if len(inf.defs) > 0 {
		s.Defs = inf.defs
	}
	return s, nil
}

// findRecursive marks every type reached again while it is being walked (the targets of the
// walk's back edges). Every cycle of types passes through one of them, so describing marked
// types by $ref makes the schema finite.
func (inf *inferrer) findRecursive(t reflect.Type, state map[reflect.Type]int) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch state[t] {
	case 1:
		inf.recursive[t] = true
		return
	case 2:
		return
	}
	if isLeafType(t) {
		return
	}
	state[t] = 1
	switch t.Kind() {
	case reflect.Struct:
		for _, f := range jsonFields(t) {
			inf.findRecursive(f.typ, state)
		}
	case reflect.Slice, reflect.Array, reflect.Map:
		inf.findRecursive(t.Elem(), state)
	}
	state[t] = 2
}

// isLeafType reports types whose schema does not come from their Go structure.
func isLeafType(t reflect.Type) bool {
	if implementsEither(t, schemaHookType) {
		return true
	}
	switch t {
	case timeType, durationType, rawMessageType, byteSliceType:
		return true
	}
	return hasCustomJSON(t) || hasCustomText(t) ||
		(t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Uint8)
}

func implementsEither(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface &&
		reflect.PointerTo(t).Implements(iface))
}

func hasCustomJSON(t reflect.Type) bool {
	if t.Kind() == reflect.Interface {
		return false
	}
	return implementsEither(t, jsonMarshalerType) || implementsEither(t, jsonUnmarshalerType) ||
		implementsEither(t, jsonMarshalerToType) || implementsEither(t, jsonUnmarshalFromTyp)
}

func hasCustomText(t reflect.Type) bool {
	if t.Kind() == reflect.Interface {
		return false
	}
	return implementsEither(t, textMarshalerType) || implementsEither(t, textUnmarshalerType)
}

// schema returns the schema of a value of type t, a $ref for recursive types.
func (inf *inferrer) schema(t reflect.Type) (*jsonschema.Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !inf.recursive[t] {
		return inf.body(t)
	}
	if t == inf.root {
		return &jsonschema.Schema{Ref: "#"}, nil
	}
	name, ok := inf.defNames[t]
	if !ok {
		name = inf.defName(t)
		body, err := inf.body(t)
		if err != nil {
			return nil, err
		}
		inf.defs[name] = body
	}
	return &jsonschema.Schema{Ref: "#/$defs/" + name}, nil
}

var defNameUnsafe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// defName reserves a $defs name for t before its body is built, so references inside the body
// find it.
func (inf *inferrer) defName(t reflect.Type) string {
	if inf.defNames == nil {
		inf.defNames = map[reflect.Type]string{}
		inf.usedNames = map[string]bool{}
		inf.defs = map[string]*jsonschema.Schema{}
	}
	base := strings.Trim(defNameUnsafe.ReplaceAllString(t.Name(), "_"), "_")
	if base == "" {
		base = "type"
	}
	name := base
	for i := 2; inf.usedNames[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	inf.usedNames[name] = true
	inf.defNames[t] = name
	return name
}

// body builds the schema of t itself (never a $ref to t).
func (inf *inferrer) body(t reflect.Type) (*jsonschema.Schema, error) {
	if implementsEither(t, schemaHookType) {
		return hookSchema(t)
	}
	switch t {
	case timeType:
		return &jsonschema.Schema{Type: "string", Format: "date-time"}, nil
	case durationType:
		return &jsonschema.Schema{Type: "string", Pattern: durationPattern,
			Description: strings.ToUpper(durationHint[:1]) + durationHint[1:] + "."}, nil
	case rawMessageType:
		return &jsonschema.Schema{Description: anyDescription}, nil
	case byteSliceType:
		return &jsonschema.Schema{Type: "string", ContentEncoding: "base64"}, nil
	}
	if hasCustomJSON(t) {
		return probeSchema(t), nil
	}
	if hasCustomText(t) {
		return &jsonschema.Schema{Type: "string"}, nil
	}
	s := &jsonschema.Schema{}
	switch t.Kind() {
	case reflect.Bool:
		s.Type = "boolean"
	case reflect.Int, reflect.Int64:
		s.Type = "integer"
	case reflect.Int8:
		s.Type, s.Minimum, s.Maximum = "integer", fptr(math.MinInt8), fptr(math.MaxInt8)
	case reflect.Int16:
		s.Type, s.Minimum, s.Maximum = "integer", fptr(math.MinInt16), fptr(math.MaxInt16)
	case reflect.Int32:
		s.Type, s.Minimum, s.Maximum = "integer", fptr(math.MinInt32), fptr(math.MaxInt32)
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		s.Type, s.Minimum = "integer", fptr(0)
	case reflect.Uint8:
		s.Type, s.Minimum, s.Maximum = "integer", fptr(0), fptr(math.MaxUint8)
	case reflect.Uint16:
		s.Type, s.Minimum, s.Maximum = "integer", fptr(0), fptr(math.MaxUint16)
	case reflect.Uint32:
		s.Type, s.Minimum, s.Maximum = "integer", fptr(0), fptr(math.MaxUint32)
	case reflect.Float32, reflect.Float64:
		s.Type = "number"
	case reflect.String:
		s.Type = "string"
	case reflect.Interface:
		s.Description = anyDescription
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && !hasCustomJSON(t.Elem()) && !hasCustomText(t.Elem()) {
			// Byte slices and arrays are base64 strings in JSON.
			return &jsonschema.Schema{Type: "string", ContentEncoding: "base64"}, nil
		}
		items, err := inf.schema(t.Elem())
		if err != nil {
			return nil, err
		}
		s.Type, s.Items = "array", items
		if t.Kind() == reflect.Array {
			s.MinItems, s.MaxItems = ptr(t.Len()), ptr(t.Len())
		}
	case reflect.Map:
		if !validMapKey(t.Key()) {
			return nil, fmt.Errorf("map key type %v is not a string, an integer or a text marshaler", t.Key())
		}
		vals, err := inf.schema(t.Elem())
		if err != nil {
			return nil, err
		}
		s.Type, s.AdditionalProperties = "object", vals
	case reflect.Struct:
		return inf.structSchema(t)
	default:
		return nil, fmt.Errorf("type %v cannot be described in JSON Schema", t)
	}
	return s, nil
}

func ptr[T any](v T) *T { return &v }

func fptr(v float64) *float64 { return &v }

func validMapKey(k reflect.Type) bool {
	switch k.Kind() {
	case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return implementsEither(k, textMarshalerType) || implementsEither(k, textUnmarshalerType)
}

func (inf *inferrer) structSchema(t reflect.Type) (*jsonschema.Schema, error) {
	s := &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	doc := lookupTypeDoc(t)
	s.Description = doc.Description
	for _, f := range jsonFields(t) {
		fs, err := inf.schema(f.typ)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.goName, err)
		}
		desc, tagged := f.field.Tag.Lookup("jsonschema")
		if tagged {
			if desc == "" {
				return nil, fmt.Errorf("field %s: empty jsonschema tag", f.goName)
			}
			if jsonschemaWordPrefix.MatchString(desc) {
				return nil, fmt.Errorf("field %s: jsonschema tag %q must be a description; use an enum or default tag, or a JSONSchema method", f.goName, desc)
			}
		} else {
			desc = doc.Fields[f.goName]
		}
		if desc != "" {
			if derefType(f.typ) == durationType {
				desc = strings.TrimRight(desc, ". ") + " (" + durationHint + ")."
			}
			fs.Description = desc
		}
		if enum, ok := f.field.Tag.Lookup("enum"); ok {
			if err := applyEnumTag(fs, enum); err != nil {
				return nil, fmt.Errorf("field %s: %w", f.goName, err)
			}
		}
		if def, ok := f.field.Tag.Lookup("default"); ok {
			if fs.Default, err = defaultTag(fs, def); err != nil {
				return nil, fmt.Errorf("field %s: %w", f.goName, err)
			}
		}
		s.Properties[f.name] = fs
		s.PropertyOrder = append(s.PropertyOrder, f.name)
		if !f.optional {
			s.Required = append(s.Required, f.name)
		}
	}
	return s, nil
}

var jsonschemaWordPrefix = regexp.MustCompile(`^[^ \t\n]*=`)

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// applyEnumTag restricts s (or its items, for an array) to the comma-separated values, read as
// the schema's type.
func applyEnumTag(s *jsonschema.Schema, tag string) error {
	target := s
	if s.Type == "array" && s.Items != nil {
		target = s.Items
	}
	var vals []any
	for _, raw := range strings.Split(tag, ",") {
		raw = strings.TrimSpace(raw)
		switch target.Type {
		case "string":
			vals = append(vals, raw)
		case "integer", "number":
			f, err := strconv.ParseFloat(raw, 64)
			if err != nil || (target.Type == "integer" && f != math.Trunc(f)) {
				return fmt.Errorf("enum value %q is not a %s", raw, target.Type)
			}
			vals = append(vals, f)
		case "boolean":
			b, err := strconv.ParseBool(raw)
			if err != nil {
				return fmt.Errorf("enum value %q is not a boolean", raw)
			}
			vals = append(vals, b)
		default:
			return fmt.Errorf("enum tag needs a string, number or boolean field, not %q", target.Type)
		}
	}
	target.Enum = vals
	return nil
}

// defaultTag turns a default tag into JSON: the text itself for strings, JSON otherwise.
func defaultTag(s *jsonschema.Schema, tag string) (json.RawMessage, error) {
	if s.Type == "string" {
		b, err := json.Marshal(tag)
		return b, err
	}
	if !json.Valid([]byte(tag)) {
		return nil, fmt.Errorf("default tag %q is not JSON", tag)
	}
	return json.RawMessage(tag), nil
}

func hookSchema(t reflect.Type) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v.JSONSchema panicked: %v", t, r)
		}
	}()
	var h SchemaHook
	if t.Implements(schemaHookType) {
		h = reflect.Zero(t).Interface().(SchemaHook)
	} else {
		h = reflect.New(t).Interface().(SchemaHook)
	}
	got := h.JSONSchema()
	if got == nil {
		return nil, fmt.Errorf("%v.JSONSchema returned nil", t)
	}
	return got.CloneSchemas(), nil
}

// probeSchema describes a type with its own JSON encoding by the kind of JSON its zero value
// encodes to; anything else (null, an error, a panic) leaves it unrestricted.
func probeSchema(t reflect.Type) (s *jsonschema.Schema) {
	s = &jsonschema.Schema{Description: anyDescription}
	defer func() {
		if recover() != nil {
			s = &jsonschema.Schema{Description: anyDescription}
		}
	}()
	b, err := jsonv2.Marshal(reflect.New(t).Interface())
	if err != nil {
		return s
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return s
	}
	switch b[0] {
	case '"':
		return &jsonschema.Schema{Type: "string"}
	case 't', 'f':
		return &jsonschema.Schema{Type: "boolean"}
	case '{':
		return &jsonschema.Schema{Type: "object"}
	case '[':
		return &jsonschema.Schema{Type: "array"}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return &jsonschema.Schema{Type: "number"}
	}
	return s
}

// jsonField is one member of a struct's JSON object.
type jsonField struct {
	name     string
	goName   string
	index    []int
	typ      reflect.Type
	field    reflect.StructField
	optional bool
	tagged   bool
}

// jsonFields lists the JSON members of struct type t following encoding/json's rules: exported
// fields, named by their json tag, fields of untagged embedded structs promoted, and of several
// fields with one name the shallowest (then the tagged) one kept, or none if still ambiguous.
func jsonFields(t reflect.Type) []jsonField {
	type candidate struct {
		jsonField
		depth int
	}
	var cands []candidate
	var walk func(t reflect.Type, index []int, depth int, visited map[reflect.Type]bool)
	walk = func(t reflect.Type, index []int, depth int, visited map[reflect.Type]bool) {
		if visited[t] {
			return
		}
		visited[t] = true
		defer delete(visited, t)
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := sf.Type
			if sf.Anonymous {
				et := derefType(ft)
				if !sf.IsExported() && et.Kind() != reflect.Struct {
					continue
				}
				if name == "" && et.Kind() == reflect.Struct && !isLeafType(et) {
					walk(et, append(slicesClip(index), i), depth+1, visited)
					continue
				}
			} else if !sf.IsExported() {
				continue
			}
			jf := jsonField{
				name: name, goName: sf.Name, index: append(slicesClip(index), i),
				typ: ft, field: sf, tagged: name != "",
			}
			if jf.name == "" {
				jf.name = sf.Name
			}
			jf.optional = ft.Kind() == reflect.Pointer || hasOption(opts, "omitempty") || hasOption(opts, "omitzero")
			cands = append(cands, candidate{jf, depth})
		}
	}
	walk(t, nil, 0, map[reflect.Type]bool{})

	// Resolve name conflicts, keeping the first position of each kept name.
	byName := map[string][]int{}
	var order []string
	for i, c := range cands {
		if _, ok := byName[c.name]; !ok {
			order = append(order, c.name)
		}
		byName[c.name] = append(byName[c.name], i)
	}
	var fields []jsonField
	for _, name := range order {
		idx := byName[name]
		best := -1
		ambiguous := false
		for _, i := range idx {
			c := cands[i]
			switch {
			case best < 0:
				best = i
			case c.depth < cands[best].depth || (c.depth == cands[best].depth && c.tagged && !cands[best].tagged):
				best, ambiguous = i, false
			case c.depth == cands[best].depth && c.tagged == cands[best].tagged:
				ambiguous = true
			}
		}
		if !ambiguous {
			fields = append(fields, cands[best].jsonField)
		}
	}
	// encoding/json orders members by field position, promoted fields where their embedding
	// field is.
	slices.SortStableFunc(fields, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return fields
}

func slicesClip(s []int) []int { return s[:len(s):len(s)] }

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}
