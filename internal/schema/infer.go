package schema

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/jsonschema-go/jsonschema"
)

// Hook is implemented by types that describe their own JSON Schema (tool.SchemaHook has the
// same method set). The method is called on the zero value, through a pointer if it has a
// pointer receiver; the result is copied.
type Hook interface {
	JSONSchema() *jsonschema.Schema
}

// TypeDoc documents a struct type for inference (tool.TypeDoc).
type TypeDoc struct {
	Description string
	Fields      map[string]string
}

// registry holds the type docs registered from init functions; gen counts registrations, and
// codecs inferred under an older generation are inferred again.
var registry struct {
	mu    sync.RWMutex
	types map[reflect.Type]TypeDoc
	gen   atomic.Uint64
}

// RegisterTypeDoc sets the documentation of struct type t (pointers are dereferenced).
func RegisterTypeDoc(t reflect.Type, doc TypeDoc) {
	t = derefType(t)
	doc.Fields = maps.Clone(doc.Fields)
	registry.mu.Lock()
	if registry.types == nil {
		registry.types = map[reflect.Type]TypeDoc{}
	}
	registry.types[t] = doc
	// Schemas embed type docs anywhere in their tree, so every cached schema may be stale.
	registry.gen.Add(1)
	registry.mu.Unlock()
}

func lookupTypeDoc(t reflect.Type) (TypeDoc, bool) {
	registry.mu.RLock()
	doc, ok := registry.types[t]
	registry.mu.RUnlock()
	return doc, ok
}

// Of returns the schema inferred for t, a copy the caller may change. The rules are those of
// tool.SchemaOf.
func Of(t reflect.Type) (*jsonschema.Schema, error) {
	c, err := For(t)
	if err != nil {
		return nil, err
	}
	return c.root.toSchema(), nil
}

var (
	hookType             = reflect.TypeFor[Hook]()
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

// DurationPattern is what time.ParseDuration accepts: the pattern of a duration's schema.
const DurationPattern = `^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

const durationHint = `a duration such as "1h30m", "90s" or "250ms"`

// anyDescription keeps an unrestricted schema from marshaling as the bare `true`, which some
// providers reject as a property schema.
const anyDescription = "Any JSON value."

// node is an inferred schema: the few keywords inference writes, cheap to build and to write
// as JSON, and turned into a jsonschema.Schema only when one is asked for.
type node struct {
	typ         string
	description string
	items       *node
	props       []namedNode // nil unless an object from a struct
	object      bool        // write "properties" even when empty
	required    []string
	additional  *node
	closed      bool       // additionalProperties: false
	extra       *nodeExtra // the keywords few nodes have; nil for none of them
}

// nodeExtra holds the keywords few nodes have, so that the many plain ones stay small.
type nodeExtra struct {
	ref             string
	def             json.RawMessage // compact JSON
	enum            []any           // float64 or bool; string enums are in enumStrings
	enumStrings     []string        // a string enum, kept unboxed
	hasMin, hasMax  bool
	min, max        float64
	pattern         string
	keyPattern      string // propertyNames: {"pattern": keyPattern}
	minItems        int    // -1: absent
	maxItems        int
	contentEncoding string
	format          string
	defs            []namedNode        // root only, sorted by name
	hook            *jsonschema.Schema // a schema given by a Hook, used as it is
}

var noExtra = nodeExtra{minItems: -1, maxItems: -1}

// x returns n's rare keywords, for reading.
func (n *node) x() *nodeExtra {
	if n.extra == nil {
		return &noExtra
	}
	return n.extra
}

// w returns n's rare keywords, for writing.
func (n *node) w() *nodeExtra {
	if n.extra == nil {
		n.extra = &nodeExtra{minItems: -1, maxItems: -1}
	}
	return n.extra
}

// namedNode is a property's or a definition's schema and its name.
type namedNode struct {
	name string
	n    *node
}

// newNode returns an empty node, from a slab: inference builds many small nodes at once.
func (inf *inferrer) newNode() *node {
	if len(inf.slab) == cap(inf.slab) {
		inf.reserve(4)
	}
	inf.slab = append(inf.slab, node{})
	return &inf.slab[len(inf.slab)-1]
}

// reserve makes room for n more nodes in one allocation.
func (inf *inferrer) reserve(n int) {
	if cap(inf.slab)-len(inf.slab) < n {
		inf.slab = make([]node, 0, max(n, 4))
	}
}

// mayRecurse reports whether a value of t may hold, at any depth, a container type more than
// once: false for scalars, and for structs and containers of scalars or of containers of
// scalars, the common tool inputs, which need no walk for recursive types.
func (inf *inferrer) mayRecurse(t reflect.Type) bool {
	t = derefType(t)
	if isLeafType(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return inf.mayRecurseElem(t.Elem())
	case reflect.Struct:
		for _, f := range inf.fields(t) {
			if inf.mayRecurseElem(f.typ) {
				return true
			}
		}
	}
	return false
}

// mayRecurseElem is mayRecurse for a type inside another: any struct there may.
func (inf *inferrer) mayRecurseElem(t reflect.Type) bool {
	t = derefType(t)
	if isLeafType(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Struct:
		return true
	case reflect.Slice, reflect.Array, reflect.Map:
		return inf.mayRecurseElem(t.Elem())
	}
	return false
}

// fields returns the JSON fields of struct type t, found once per inference.
func (inf *inferrer) fields(t reflect.Type) []*jsonField {
	if t == inf.root && inf.rootFields != nil {
		return inf.rootFields
	}
	if f, ok := inf.fieldsOf[t]; ok {
		return f
	}
	f := jsonFields(t)
	if t == inf.root {
		inf.rootFields = f
		return f
	}
	if inf.fieldsOf == nil {
		inf.fieldsOf = make(map[reflect.Type][]*jsonField, 4)
	}
	inf.fieldsOf[t] = f
	return f
}

type inferrer struct {
	root      reflect.Type
	recursive map[reflect.Type]bool
	defNames  map[reflect.Type]string
	usedNames map[string]bool
	defs      map[string]*node
	// hooks is set when some schema came from a Hook; defaults when a default tag was used.
	hooks, defaults bool
	slab            []node
	rootFields      []*jsonField
	fieldsOf        map[reflect.Type][]*jsonField
}

// infer builds the schema of t with a new inferrer.
func (inf *inferrer) infer(t reflect.Type) (*node, error) {
	t = derefType(t)
	inf.root = t
	if inf.mayRecurse(t) {
		var state walkState
		inf.findRecursive(t, &state)
	}
	n, err := inf.body(t)
	if err != nil {
		return nil, err
	}
	if len(inf.defs) > 0 {
		for _, name := range slices.Sorted(maps.Keys(inf.defs)) {
			n.w().defs = append(n.x().defs, namedNode{name, inf.defs[name]})
		}
	}
	return n, nil
}

// findRecursive marks every type reached again while it is being walked (the targets of the
// walk's back edges). Every cycle of types passes through one of them, so describing marked
// types by $ref makes the schema finite.
func (inf *inferrer) findRecursive(t reflect.Type, state *walkState) {
	t = derefType(t)
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map:
	default:
		return
	}
	switch state.get(t) {
	case 1:
		if inf.recursive == nil {
			inf.recursive = map[reflect.Type]bool{}
		}
		inf.recursive[t] = true
		return
	case 2:
		return
	}
	if isLeafType(t) {
		return
	}
	state.set(t, 1)
	switch t.Kind() {
	case reflect.Struct:
		for _, f := range inf.fields(t) {
			inf.findRecursive(f.typ, state)
		}
	case reflect.Slice, reflect.Array, reflect.Map:
		inf.findRecursive(t.Elem(), state)
	}
	state.set(t, 2)
}

// walkState is the state of each type of a walk: a short list, since types have few others
// inside, and a map once it is long.
type walkState struct {
	buf  [8]typeState
	list []typeState
	m    map[reflect.Type]uint8
}

type typeState struct {
	t reflect.Type
	s uint8
}

func (w *walkState) get(t reflect.Type) uint8 {
	if w.m != nil {
		return w.m[t]
	}
	for _, e := range w.list {
		if e.t == t {
			return e.s
		}
	}
	return 0
}

func (w *walkState) set(t reflect.Type, s uint8) {
	if w.m != nil {
		w.m[t] = s
		return
	}
	for i := range w.list {
		if w.list[i].t == t {
			w.list[i].s = s
			return
		}
	}
	if w.list == nil {
		w.list = w.buf[:0]
	}
	if len(w.list) == 32 {
		w.m = make(map[reflect.Type]uint8, 64)
		for _, e := range w.list {
			w.m[e.t] = e.s
		}
		w.m[t] = s
		return
	}
	w.list = append(w.list, typeState{t, s})
}

// isLeafType reports types whose schema does not come from their Go structure.
func isLeafType(t reflect.Type) bool {
	switch t {
	case timeType, durationType, rawMessageType, byteSliceType:
		return true
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		if t.PkgPath() == "" {
			return false // a predeclared type has no methods
		}
	case reflect.Interface:
		return false
	case reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return true
		}
		if t.Name() == "" {
			return false // an unnamed array has no methods
		}
	case reflect.Slice, reflect.Map:
		if t.Name() == "" {
			return false
		}
	}
	// Every method of t is one of *t too: one method set answers for both.
	pt := t
	if t.Kind() != reflect.Pointer {
		pt = reflect.PointerTo(t)
	}
	if pt.NumMethod() == 0 {
		return false
	}
	for _, iface := range leafInterfaces {
		if pt.Implements(iface) {
			return true
		}
	}
	return false
}

// leafInterfaces are the interfaces by which a type gives its own schema or JSON form.
var leafInterfaces = []reflect.Type{hookType, jsonMarshalerType, jsonUnmarshalerType,
	jsonMarshalerToType, jsonUnmarshalFromTyp, textMarshalerType, textUnmarshalerType}

func implementsEither(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface &&
		reflect.PointerTo(t).Implements(iface))
}

func hasMethods(t reflect.Type) bool {
	return t.NumMethod() > 0 || (t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && reflect.PointerTo(t).NumMethod() > 0)
}

func hasCustomJSON(t reflect.Type) bool {
	if t.Kind() == reflect.Interface || !hasMethods(t) {
		return false
	}
	return implementsEither(t, jsonMarshalerType) || implementsEither(t, jsonUnmarshalerType) ||
		implementsEither(t, jsonMarshalerToType) || implementsEither(t, jsonUnmarshalFromTyp)
}

func hasCustomText(t reflect.Type) bool {
	if t.Kind() == reflect.Interface || !hasMethods(t) {
		return false
	}
	return implementsEither(t, textMarshalerType) || implementsEither(t, textUnmarshalerType)
}

// schema returns the schema of a value of type t, a $ref for recursive types.
func (inf *inferrer) schema(t reflect.Type) (*node, error) {
	t = derefType(t)
	if !inf.recursive[t] {
		return inf.body(t)
	}
	n := inf.newNode()
	if t == inf.root {
		n.w().ref = "#"
		return n, nil
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
	n.w().ref = "#/$defs/" + name
	return n, nil
}

// defName reserves a $defs name for t before its body is built, so references inside the body
// find it.
func (inf *inferrer) defName(t reflect.Type) string {
	if inf.defNames == nil {
		inf.defNames = map[reflect.Type]string{}
		inf.usedNames = map[string]bool{}
		inf.defs = map[string]*node{}
	}
	base := defNameOf(t.Name())
	name := base
	for i := 2; inf.usedNames[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	inf.usedNames[name] = true
	inf.defNames[t] = name
	return name
}

// defNameOf keeps the characters of a type name that are safe in a $defs key (letters, digits,
// '_', '.', '-'), runs of others becoming one '_', trimmed of '_' at both ends.
func defNameOf(typeName string) string {
	var b strings.Builder
	gap := false
	for _, r := range typeName {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			gap = false
			b.WriteRune(r)
			continue
		}
		gap = true
	}
	name := strings.Trim(b.String(), "_")
	if name == "" {
		return "type"
	}
	return name
}

// body builds the schema of t itself (never a $ref to t).
func (inf *inferrer) body(t reflect.Type) (*node, error) {
	leaf := isLeafType(t)
	if t.Kind() == reflect.Struct && !leaf {
		return inf.structSchema(t)
	}
	n := inf.newNode()
	switch t {
	case timeType:
		n.typ, n.w().format = "string", "date-time"
		return n, nil
	case durationType:
		n.typ, n.w().pattern = "string", DurationPattern
		n.description = strings.ToUpper(durationHint[:1]) + durationHint[1:] + "."
		return n, nil
	case rawMessageType:
		n.description = anyDescription
		return n, nil
	case byteSliceType:
		n.typ, n.w().contentEncoding = "string", "base64"
		return n, nil
	}
	if leaf {
		switch {
		case implementsEither(t, hookType):
			s, err := hookSchema(t)
			if err != nil {
				return nil, err
			}
			inf.hooks = true
			n.w().hook = s
		case hasCustomJSON(t):
			probeSchema(t, n)
		case hasCustomText(t):
			n.typ = "string"
		default: // a byte array
			n.typ, n.w().contentEncoding = "string", "base64"
		}
		return n, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		n.typ = "boolean"
	case reflect.Int, reflect.Int64:
		n.typ = "integer"
	case reflect.Int8:
		n.typ, n.w().hasMin, n.w().min, n.w().hasMax, n.w().max = "integer", true, math.MinInt8, true, math.MaxInt8
	case reflect.Int16:
		n.typ, n.w().hasMin, n.w().min, n.w().hasMax, n.w().max = "integer", true, math.MinInt16, true, math.MaxInt16
	case reflect.Int32:
		n.typ, n.w().hasMin, n.w().min, n.w().hasMax, n.w().max = "integer", true, math.MinInt32, true, math.MaxInt32
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		n.typ, n.w().hasMin, n.w().min = "integer", true, 0
	case reflect.Uint8:
		n.typ, n.w().hasMin, n.w().min, n.w().hasMax, n.w().max = "integer", true, 0, true, math.MaxUint8
	case reflect.Uint16:
		n.typ, n.w().hasMin, n.w().min, n.w().hasMax, n.w().max = "integer", true, 0, true, math.MaxUint16
	case reflect.Uint32:
		n.typ, n.w().hasMin, n.w().min, n.w().hasMax, n.w().max = "integer", true, 0, true, math.MaxUint32
	case reflect.Float32, reflect.Float64:
		n.typ = "number"
	case reflect.String:
		n.typ = "string"
	case reflect.Interface:
		n.description = anyDescription
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && !hasCustomJSON(t.Elem()) && !hasCustomText(t.Elem()) {
			// Byte slices and arrays are base64 strings in JSON.
			n.typ, n.w().contentEncoding = "string", "base64"
			return n, nil
		}
		items, err := inf.schema(t.Elem())
		if err != nil {
			return nil, err
		}
		n.typ, n.items = "array", items
		if t.Kind() == reflect.Array {
			n.w().minItems, n.w().maxItems = t.Len(), t.Len()
		}
	case reflect.Map:
		if err := inf.mapSchema(n, t); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("type %v cannot be described in JSON Schema", t)
	}
	return n, nil
}

// mapSchema fills in n, the schema of the map type t.
func (inf *inferrer) mapSchema(n *node, t reflect.Type) error {
	if !validMapKey(t.Key()) {
		return fmt.Errorf("map key type %v is not a string, an integer or a text marshaler", t.Key())
	}
	vals, err := inf.schema(t.Elem())
	if err != nil {
		return err
	}
	n.typ, n.additional = "object", vals
	if k := t.Key(); !isLeafType(k) {
		// The v2 codec reads an integer key as a JSON number without sign or space
		// around it; the schema says so, so that "a" is refused where it is checked.
		switch k.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n.w().keyPattern = intStringPattern
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			n.w().keyPattern = uintStringPattern
		}
	}
	return nil
}

// Patterns of the numbers a field with the json option string holds, as the v2 codec reads
// them: a JSON number inside a JSON string, nothing around it.
const (
	intStringPattern   = `^-?(0|[1-9][0-9]*)$`
	uintStringPattern  = `^(0|[1-9][0-9]*)$`
	floatStringPattern = `^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`
)

// stringNumber is the schema of a field of type t with the json option string: the v2 codec
// reads a number of such a field from a string ("42"), and refuses the option on any other
// type, which could then never be read.
func (inf *inferrer) stringNumber(t reflect.Type) (*node, error) {
	et := derefType(t)
	pattern := ""
	if !isLeafType(et) {
		switch et.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			pattern = intStringPattern
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			pattern = uintStringPattern
		case reflect.Float32, reflect.Float64:
			pattern = floatStringPattern
		}
	}
	if pattern == "" {
		return nil, fmt.Errorf("the json option string applies to numbers only, not to %v", t)
	}
	n := inf.newNode()
	n.typ, n.w().pattern = "string", pattern
	return n, nil
}

func validMapKey(k reflect.Type) bool {
	switch k.Kind() {
	case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return implementsEither(k, textMarshalerType) || implementsEither(k, textUnmarshalerType)
}

func (inf *inferrer) structSchema(t reflect.Type) (*node, error) {
	fields := inf.fields(t)
	inf.reserve(len(fields) + 2) // the struct, its fields and, likely, an item or two
	n := inf.newNode()
	n.typ, n.object, n.closed = "object", true, true
	doc, _ := lookupTypeDoc(t)
	n.description = doc.Description
	n.props = make([]namedNode, 0, len(fields))
	n.required = make([]string, 0, len(fields))
	for _, f := range fields {
		fs, err := inf.schema(f.typ)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.goName, err)
		}
		if hasOption(f.opts, "string") {
			if fs, err = inf.stringNumber(f.typ); err != nil {
				return nil, fmt.Errorf("field %s: %w", f.goName, err)
			}
		}
		if err := inf.fieldTags(fs, f, doc); err != nil {
			return nil, fmt.Errorf("field %s: %w", f.goName, err)
		}
		n.props = append(n.props, namedNode{f.name, fs})
		if !f.optional {
			n.required = append(n.required, f.name)
		}
	}
	return n, nil
}

// fieldTags applies a field's jsonschema, enum and default tags (and its registered doc) to its
// schema.
func (inf *inferrer) fieldTags(fs *node, f *jsonField, doc TypeDoc) error {
	tags := parseTags(f.tag)
	desc, tagged := tags.jsonschema, tags.hasJSONSchema
	if tagged {
		if desc == "" {
			return errors.New("empty jsonschema tag")
		}
		if isKeywordTag(desc) {
			return fmt.Errorf("jsonschema tag %q must be a description; use an enum or default tag, or a JSONSchema method", desc)
		}
	} else {
		desc = doc.Fields[f.goName]
	}
	if desc != "" {
		if derefType(f.typ) == durationType {
			desc = strings.TrimRight(desc, ". ") + " (" + durationHint + ")."
		}
		if fs.x().hook != nil {
			fs.w().hook.Description = desc
		} else {
			fs.description = desc
		}
	}
	if enum, ok := tags.enum, tags.hasEnum; ok {
		if err := applyEnumTag(fs, enum); err != nil {
			return err
		}
	}
	if def, ok := tags.def, tags.hasDefault; ok {
		typ := fs.typ
		if fs.x().hook != nil {
			typ = fs.x().hook.Type
		}
		d, err := defaultTag(typ, def)
		if err != nil {
			return err
		}
		inf.defaults = true
		if fs.x().hook != nil {
			fs.w().hook.Default = d
		} else {
			fs.w().def = d
		}
	}
	return nil
}

// fieldTags are the struct tag values inference reads.
type fieldTagValues struct {
	jsonschema, enum, def              string
	hasJSONSchema, hasEnum, hasDefault bool
}

// parseTags reads the jsonschema, enum and default tags in one pass over tag, by the rules of
// reflect.StructTag.Lookup.
func parseTags(tag reflect.StructTag) fieldTagValues {
	var v fieldTagValues
	for tag != "" {
		i := 0
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		tag = tag[i:]
		if tag == "" {
			break
		}
		i = 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			break
		}
		name := string(tag[:i])
		tag = tag[i+1:]
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			break
		}
		qvalue := string(tag[:i+1])
		tag = tag[i+1:]
		var dst *string
		var has *bool
		switch name {
		case "jsonschema":
			dst, has = &v.jsonschema, &v.hasJSONSchema
		case "enum":
			dst, has = &v.enum, &v.hasEnum
		case "default":
			dst, has = &v.def, &v.hasDefault
		default:
			continue
		}
		if *has {
			continue // the first of a repeated key wins, as in Lookup
		}
		value, err := strconv.Unquote(qvalue)
		if err != nil {
			break
		}
		*dst, *has = value, true
	}
	return v
}

// isKeywordTag reports a jsonschema tag in the form jsonschema-go once read ("enum=a"): a first
// word that contains '='.
func isKeywordTag(tag string) bool {
	for i := 0; i < len(tag); i++ {
		switch tag[i] {
		case '=':
			return true
		case ' ', '\t', '\n':
			return false
		}
	}
	return false
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// applyEnumTag restricts s (or its items, for an array) to the comma-separated values, read as
// the schema's type.
func applyEnumTag(n *node, tag string) error {
	if n.x().hook != nil {
		target := n.x().hook
		if target.Type == "array" && target.Items != nil {
			target = target.Items
		}
		vals, err := enumValues(target.Type, tag)
		if err != nil {
			return err
		}
		target.Enum = vals
		return nil
	}
	target := n
	if n.typ == "array" && n.items != nil {
		target = n.items
	}
	typ := target.typ
	if target.x().hook != nil {
		typ = target.x().hook.Type
	}
	if target.x().hook == nil && typ == "string" {
		target.w().enumStrings = enumStrings(tag)
		return nil
	}
	vals, err := enumValues(typ, tag)
	if err != nil {
		return err
	}
	if target.x().hook != nil {
		target.w().hook.Enum = vals
	} else {
		target.w().enum = vals
	}
	return nil
}

// enumStrings returns the comma-separated values of a string enum tag, trimmed.
func enumStrings(tag string) []string {
	parts := strings.Split(tag, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

func enumValues(typ, tag string) ([]any, error) {
	parts := strings.Split(tag, ",")
	vals := make([]any, 0, len(parts))
	for _, raw := range parts {
		raw = strings.TrimSpace(raw)
		switch typ {
		case "string":
			vals = append(vals, raw)
		case "integer", "number":
			f, err := strconv.ParseFloat(raw, 64)
			if err != nil || (typ == "integer" && f != math.Trunc(f)) {
				return nil, fmt.Errorf("enum value %q is not a %s", raw, typ)
			}
			vals = append(vals, f)
		case "boolean":
			b, err := strconv.ParseBool(raw)
			if err != nil {
				return nil, fmt.Errorf("enum value %q is not a boolean", raw)
			}
			vals = append(vals, b)
		default:
			return nil, fmt.Errorf("enum tag needs a string, number or boolean field, not %q", typ)
		}
	}
	return vals, nil
}

// defaultTag turns a default tag into compact JSON: the text itself for strings, JSON otherwise.
func defaultTag(typ, tag string) (json.RawMessage, error) {
	if typ == "string" {
		return json.Marshal(tag)
	}
	if !json.Valid([]byte(tag)) {
		return nil, fmt.Errorf("default tag %q is not JSON", tag)
	}
	return json.Marshal(json.RawMessage(tag)) // compact, as the schema is written
}

func hookSchema(t reflect.Type) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v.JSONSchema panicked: %v", t, r)
		}
	}()
	var h Hook
	if t.Implements(hookType) {
		h = reflect.Zero(t).Interface().(Hook)
	} else {
		h = reflect.New(t).Interface().(Hook)
	}
	got := h.JSONSchema()
	if got == nil {
		return nil, fmt.Errorf("%v.JSONSchema returned nil", t)
	}
	return got.CloneSchemas(), nil
}

// probeSchema describes a type with its own JSON encoding by the kind of JSON its zero value
// encodes to; anything else (null, an error, a panic) leaves it unrestricted.
func probeSchema(t reflect.Type, n *node) {
	n.description = anyDescription
	defer func() {
		if recover() != nil {
			n.typ, n.description = "", anyDescription
		}
	}()
	b, err := jsonv2.Marshal(reflect.New(t).Interface())
	if err != nil {
		return
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return
	}
	switch b[0] {
	case '"':
		n.typ = "string"
	case 't', 'f':
		n.typ = "boolean"
	case '{':
		n.typ = "object"
	case '[':
		n.typ = "array"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n.typ = "number"
	default:
		return
	}
	n.description = ""
}

// jsonField is one member of a struct's JSON object.
type jsonField struct {
	name     string
	goName   string
	index    []int
	idx      [1]int // the index of a field not promoted from an embedded struct
	typ      reflect.Type
	tag      reflect.StructTag
	optional bool
	tagged   bool
	depth    int
	opts     string // the json tag's options
}

// jsonFields lists the JSON members of struct type t following encoding/json's rules: exported
// fields, named by their json tag, fields of untagged embedded structs promoted, and of several
// fields with one name the shallowest (then the tagged) one kept, or none if still ambiguous.
func jsonFields(t reflect.Type) []*jsonField {
	// The common case, a struct without embedded fields, in one pass: one allocation for the
	// fields, their indexes inside them, and one for the list.
	n := t.NumField()
	slab := make([]jsonField, 0, n)
	cands := make([]*jsonField, 0, n)
	embedded := false
	for i := range n {
		sf := t.Field(i)
		if sf.Anonymous {
			embedded = true
			break
		}
		if f, ok := fieldOf(sf, nil, 0); ok {
			slab = append(slab, f)
			p := &slab[len(slab)-1]
			p.idx[0] = i
			p.index = p.idx[:]
			cands = append(cands, p)
		}
	}
	if embedded {
		cands = cands[:0]
		collectFields(t, nil, 0, map[reflect.Type]bool{}, &cands)
	}
	if !hasDuplicateNames(cands) && !embedded {
		return cands
	}
	// Resolve name conflicts, keeping the first position of each kept name.
	byName := map[string][]int{}
	var order []string
	for i, c := range cands {
		if _, ok := byName[c.name]; !ok {
			order = append(order, c.name)
		}
		byName[c.name] = append(byName[c.name], i)
	}
	var fields []*jsonField
	for _, name := range order {
		best, ambiguous := -1, false
		for _, i := range byName[name] {
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
			fields = append(fields, cands[best])
		}
	}
	// encoding/json orders members by field position, promoted fields where their embedding
	// field is.
	slices.SortStableFunc(fields, func(a, b *jsonField) int { return slices.Compare(a.index, b.index) })
	return fields
}

func hasDuplicateNames(fs []*jsonField) bool {
	if len(fs) > 16 {
		seen := make(map[string]bool, len(fs))
		for _, f := range fs {
			if seen[f.name] {
				return true
			}
			seen[f.name] = true
		}
		return false
	}
	for i := range fs {
		for j := range i {
			if fs[i].name == fs[j].name {
				return true
			}
		}
	}
	return false
}

// makeField returns the JSON member of a non-embedded field, or nil for a field that is not one.
func makeField(sf reflect.StructField, index []int, depth int) *jsonField {
	f, ok := fieldOf(sf, append(index[:len(index):len(index)], sf.Index[0]), depth)
	if !ok {
		return nil
	}
	return &f
}

// fieldOf returns the JSON member of a non-embedded field at index, and whether it is one.
func fieldOf(sf reflect.StructField, index []int, depth int) (jsonField, bool) {
	tag := sf.Tag.Get("json")
	if tag == "-" || !sf.IsExported() {
		return jsonField{}, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	f := jsonField{
		name: name, goName: sf.Name, index: index,
		typ: sf.Type, tag: sf.Tag, tagged: name != "", depth: depth, opts: opts,
	}
	if f.name == "" {
		f.name = sf.Name
	}
	f.optional = sf.Type.Kind() == reflect.Pointer || hasOption(opts, "omitempty") || hasOption(opts, "omitzero")
	return f, true
}

func collectFields(t reflect.Type, index []int, depth int, visited map[reflect.Type]bool, out *[]*jsonField) {
	if visited[t] {
		return
	}
	visited[t] = true
	defer delete(visited, t)
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			et := derefType(sf.Type)
			if !sf.IsExported() && et.Kind() != reflect.Struct {
				continue
			}
			if name == "" && et.Kind() == reflect.Struct && !isLeafType(et) {
				collectFields(et, append(index[:len(index):len(index)], i), depth+1, visited, out)
				continue
			}
			f := &jsonField{
				name: name, goName: sf.Name, index: append(index[:len(index):len(index)], i),
				typ: sf.Type, tag: sf.Tag, tagged: name != "", depth: depth,
			}
			if f.name == "" {
				f.name = sf.Name
			}
			_, opts, _ := strings.Cut(tag, ",")
			f.opts = opts
			f.optional = sf.Type.Kind() == reflect.Pointer || hasOption(opts, "omitempty") || hasOption(opts, "omitzero")
			*out = append(*out, f)
			continue
		}
		if f := makeField(sf, index, depth); f != nil {
			*out = append(*out, f)
		}
	}
}

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

// toSchema returns n as a jsonschema.Schema of the caller's own.
func (n *node) toSchema() *jsonschema.Schema {
	if n == nil {
		return nil
	}
	if n.x().hook != nil {
		return n.x().hook.CloneSchemas()
	}
	s := &jsonschema.Schema{
		Type: n.typ, Ref: n.x().ref, Description: n.description, Pattern: n.x().pattern,
		ContentEncoding: n.x().contentEncoding, Format: n.x().format,
	}
	if n.x().def != nil {
		s.Default = slices.Clone(n.x().def)
	}
	if n.x().enum != nil {
		s.Enum = slices.Clone(n.x().enum)
	}
	if n.x().enumStrings != nil {
		s.Enum = make([]any, len(n.x().enumStrings))
		for i, v := range n.x().enumStrings {
			s.Enum[i] = v
		}
	}
	if n.x().hasMin {
		s.Minimum = new(n.x().min)
	}
	if n.x().hasMax {
		s.Maximum = new(n.x().max)
	}
	if n.x().minItems >= 0 {
		s.MinItems = new(n.x().minItems)
	}
	if n.x().maxItems >= 0 {
		s.MaxItems = new(n.x().maxItems)
	}
	s.Items = n.items.toSchema()
	if n.object {
		s.Properties = make(map[string]*jsonschema.Schema, len(n.props))
		for _, p := range n.props {
			s.Properties[p.name] = p.n.toSchema()
			s.PropertyOrder = append(s.PropertyOrder, p.name)
		}
	}
	if len(n.required) > 0 {
		s.Required = slices.Clone(n.required)
	}
	if n.closed {
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	} else {
		s.AdditionalProperties = n.additional.toSchema()
	}
	if n.x().keyPattern != "" {
		s.PropertyNames = &jsonschema.Schema{Pattern: n.x().keyPattern}
	}
	if n.x().defs != nil {
		s.Defs = make(map[string]*jsonschema.Schema, len(n.x().defs))
		for _, d := range n.x().defs {
			s.Defs[d.name] = d.n.toSchema()
		}
	}
	return s
}

// appendJSON writes n as JSON, byte for byte as encoding/json writes n.toSchema() (keys in the
// order of jsonschema.Schema.MarshalJSON).
func (n *node) appendJSON(b []byte) ([]byte, error) {
	if n.x().hook != nil {
		h, err := json.Marshal(n.x().hook)
		if err != nil {
			return nil, err
		}
		return append(b, h...), nil
	}
	b = append(b, '{')
	comma := false
	key := func(k string) {
		if comma {
			b = append(b, ',')
		}
		comma = true
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
	}
	var err error
	if n.typ != "" {
		key("type")
		b = appendString(b, n.typ)
	}
	if n.object {
		key("properties")
		if b, err = appendNodes(b, n.props); err != nil {
			return nil, err
		}
	}
	if n.items != nil {
		key("items")
		if b, err = n.items.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if n.x().ref != "" {
		key("$ref")
		b = appendString(b, n.x().ref)
	}
	if n.x().defs != nil {
		key("$defs")
		if b, err = appendNodes(b, n.x().defs); err != nil {
			return nil, err
		}
	}
	if n.description != "" {
		key("description")
		b = appendString(b, n.description)
	}
	if n.x().def != nil {
		key("default")
		b = append(b, n.x().def...)
	}
	if n.x().enumStrings != nil {
		key("enum")
		b = appendList(b, n.x().enumStrings, appendString)
	}
	if n.x().enum != nil {
		key("enum")
		b = appendList(b, n.x().enum, appendScalar)
	}
	if n.x().hasMin {
		key("minimum")
		b = appendFloatGeneric(b, n.x().min, 64)
	}
	if n.x().hasMax {
		key("maximum")
		b = appendFloatGeneric(b, n.x().max, 64)
	}
	if n.x().pattern != "" {
		key("pattern")
		b = appendString(b, n.x().pattern)
	}
	if n.x().minItems >= 0 {
		key("minItems")
		b = strconv.AppendInt(b, int64(n.x().minItems), 10)
	}
	if n.x().maxItems >= 0 {
		key("maxItems")
		b = strconv.AppendInt(b, int64(n.x().maxItems), 10)
	}
	if len(n.required) > 0 {
		key("required")
		b = appendList(b, n.required, appendString)
	}
	if n.closed {
		key("additionalProperties")
		b = append(b, "false"...)
	} else if n.additional != nil {
		key("additionalProperties")
		if b, err = n.additional.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if n.x().keyPattern != "" {
		key("propertyNames")
		b = append(b, `{"pattern":`...)
		b = appendString(b, n.x().keyPattern)
		b = append(b, '}')
	}
	if n.x().contentEncoding != "" {
		key("contentEncoding")
		b = appendString(b, n.x().contentEncoding)
	}
	if n.x().format != "" {
		key("format")
		b = appendString(b, n.x().format)
	}
	if !comma {
		return append(b[:len(b)-1], "true"...), nil
	}
	return append(b, '}'), nil
}

// appendScalar writes a number or boolean of an inferred enum.
func appendScalar(b []byte, v any) []byte {
	switch v := v.(type) {
	case float64:
		return appendFloatGeneric(b, v, 64)
	case bool:
		return strconv.AppendBool(b, v)
	}
	return b
}

// appendNodes writes named schemas as a JSON object, in their order.
func appendNodes(b []byte, nodes []namedNode) ([]byte, error) {
	b = append(b, '{')
	for i, d := range nodes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, d.name)
		b = append(b, ':')
		var err error
		if b, err = d.n.appendJSON(b); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendList writes vs as a JSON array, each value with appendValue.
func appendList[T any](b []byte, vs []T, appendValue func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendValue(b, v)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string the way encoding/json does: HTML characters, U+2028
// and U+2029 escaped, invalid UTF-8 replaced.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// IsLeaf reports whether the schema of t does not come from its Go structure: a type with its
// own JSON or text form or schema, time.Time, time.Duration, json.RawMessage, bytes.
func IsLeaf(t reflect.Type) bool { return isLeafType(t) }

// HasOwnJSON reports whether t has its own JSON or text encoding (a marshaler or unmarshaler).
func HasOwnJSON(t reflect.Type) bool { return hasCustomJSON(t) || hasCustomText(t) }
