package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Validator checks JSON arguments against a JSON Schema compiled once. Schemas made of the
// common keywords (type, enum, const, properties, required, additionalProperties, items,
// prefixItems, the numeric, string-length, pattern, item-count and property-count bounds,
// local $ref and $defs, allOf, anyOf, oneOf, not) are checked in a single pass over the JSON
// text without decoding it; any other schema is checked by github.com/google/jsonschema-go on
// the decoded value, with the same verdicts. A Validator is safe for concurrent use.
type Validator struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	root     *vnode // nil when the schema needs the general validator
	defaults bool   // the schema has defaults somewhere
	// unsupported says why the fast path is not used, for tests and diagnostics.
	unsupported string
}

// Compile prepares a JSON Schema (2020-12, or draft-07 through its $schema) for validating
// arguments. It fails when the schema is not a valid schema, including when a default does not
// match the schema it sits in.
func Compile(schema json.RawMessage) (*Validator, error) {
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(schema, s); err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	return compileSchema(s)
}

func compileSchema(s *jsonschema.Schema) (*Validator, error) {
	resolved, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err == nil {
		err = checkTypeNames(reflect.ValueOf(s), map[*jsonschema.Schema]bool{})
	}
	if err == nil {
		err = checkInPlaceCycles(s)
	}
	if err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	v := &Validator{schema: s, resolved: resolved}
	c := &compiler{root: s, nodes: map[*jsonschema.Schema]*vnode{}}
	root, err := c.compile(s)
	if err != nil {
		v.unsupported = err.Error()
	} else {
		v.root = root
	}
	v.defaults = c.defaults
	return v, nil
}

var schemaPtrType = reflect.TypeFor[*jsonschema.Schema]()

// checkTypeNames rejects unknown names in "type", which jsonschema-go accepts and then never
// matches: a schema in another dialect ("dict", "float") would reject every argument.
func checkTypeNames(v reflect.Value, seen map[*jsonschema.Schema]bool) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() != schemaPtrType {
			return nil
		}
		s := v.Interface().(*jsonschema.Schema)
		if seen[s] {
			return nil
		}
		seen[s] = true
		for _, name := range append([]string{s.Type}, s.Types...) {
			if _, ok := typeBit(name); name != "" && !ok {
				return fmt.Errorf("unknown type %q", name)
			}
		}
		e := v.Elem()
		for i := range e.NumField() {
			if err := checkTypeNames(e.Field(i), seen); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if v.Type().Elem() == schemaPtrType {
			for i := range v.Len() {
				if err := checkTypeNames(v.Index(i), seen); err != nil {
					return err
				}
			}
		}
	case reflect.Map:
		if v.Type().Elem() == schemaPtrType {
			for it := v.MapRange(); it.Next(); {
				if err := checkTypeNames(it.Value(), seen); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkInPlaceCycles rejects schemas that apply themselves to the same value without end, such
// as {"$ref":"#"}: validating with them never finishes (in jsonschema-go either). It looks for a
// cycle among the keywords that apply a subschema to the value itself.
func checkInPlaceCycles(root *jsonschema.Schema) error {
	var all []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	var collect func(v reflect.Value)
	collect = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || v.Type() != schemaPtrType {
				return
			}
			s := v.Interface().(*jsonschema.Schema)
			if seen[s] {
				return
			}
			seen[s] = true
			all = append(all, s)
			e := v.Elem()
			for i := range e.NumField() {
				collect(e.Field(i))
			}
		case reflect.Slice:
			if v.Type().Elem() == schemaPtrType {
				for i := range v.Len() {
					collect(v.Index(i))
				}
			}
		case reflect.Map:
			if v.Type().Elem() == schemaPtrType {
				for it := v.MapRange(); it.Next(); {
					collect(it.Value())
				}
			}
		}
	}
	collect(reflect.ValueOf(root))
	state := map[*jsonschema.Schema]int{}
	var visit func(s *jsonschema.Schema) error
	visit = func(s *jsonschema.Schema) error {
		if s == nil {
			return nil
		}
		switch state[s] {
		case 1:
			return errors.New("the schema applies itself to the same value endlessly (through $ref, allOf, anyOf, oneOf, not or if)")
		case 2:
			return nil
		}
		state[s] = 1
		next := slices.Concat(s.AllOf, s.AnyOf, s.OneOf, []*jsonschema.Schema{s.Not, s.If, s.Then, s.Else})
		if s.Ref != "" {
			next = append(next, lookupRef(root, s.Ref))
		}
		for _, d := range s.DependentSchemas {
			next = append(next, d)
		}
		for _, n := range next {
			if err := visit(n); err != nil {
				return err
			}
		}
		state[s] = 2
		return nil
	}
	for _, s := range all {
		if err := visit(s); err != nil {
			return err
		}
	}
	return nil
}

// Schema returns the schema the validator checks against; it must not be modified.
func (v *Validator) Schema() *jsonschema.Schema { return v.schema }

// Validate reports whether args, the JSON text of a tool's arguments, is valid for the schema.
// Empty or blank args count as {}, which is what models send for tools without parameters. The
// error is an [*ArgumentError].
func (v *Validator) Validate(args []byte) error {
	_, err := v.Prepare(string(args))
	return err
}

// ValidateString is [Validator.Validate] for text held in a string.
func (v *Validator) ValidateString(args string) error {
	_, err := v.Prepare(args)
	return err
}

const emptyObject = "{}"

// Prepare validates args like [Validator.Validate] and returns them with the defaults of
// missing optional properties filled in, ready to decode. When there is nothing to fill in, the
// result is args itself (or {} for blank args).
func (v *Validator) Prepare(args string) (string, error) {
	if isBlank(args) {
		args = emptyObject
	}
	if v.root == nil {
		return v.prepareGeneral(args)
	}
	st := vstate{data: args}
	pos := skipWS(args, 0)
	end := st.value(v.root, pos)
	if end >= 0 {
		if end = skipWS(args, end); end < len(args) {
			st.syntaxError(end, "unexpected data after the arguments object")
		}
	}
	if st.err != nil {
		return "", st.err
	}
	if len(st.edits) > 0 {
		return st.applyEdits(), nil
	}
	return args, nil
}

func isBlank(b string) bool {
	for i := 0; i < len(b); i++ {
		if c := b[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// prepareGeneral validates with jsonschema-go, for schemas the single-pass validator does not
// cover. The syntax is checked by the scanner first, for its precise messages.
func (v *Validator) prepareGeneral(args string) (string, error) {
	st := vstate{data: args}
	pos := skipWS(args, 0)
	end := st.value(anyNode, pos)
	if end >= 0 {
		if end = skipWS(args, end); end < len(args) {
			st.syntaxError(end, "unexpected data after the arguments object")
		}
	}
	if st.err != nil {
		return "", st.err
	}
	var inst any
	if err := json.Unmarshal([]byte(args), &inst); err != nil {
		// The scanner accepted it, so this is a number beyond float64.
		return "", &ArgumentError{Issues: []Issue{{Message: err.Error(), Keyword: "decode"}}}
	}
	if err := v.resolved.Validate(inst); err != nil {
		return "", &ArgumentError{Issues: []Issue{{Message: generalMessage(err), Keyword: generalKeyword(err)}}}
	}
	if !v.defaults {
		return args, nil
	}
	if !applyDefaults(inst, v.schema, v.schema, 0) {
		return args, nil
	}
	out, err := json.Marshal(inst)
	if err != nil {
		return "", fmt.Errorf("encoding arguments with defaults: %w", err)
	}
	return string(out), nil
}

// generalMessage shortens jsonschema-go's error, whose outer lines name schema locations the
// model never saw.
func generalMessage(err error) string {
	msg := err.Error()
	for {
		_, rest, ok := strings.Cut(msg, ": ")
		if !ok || !strings.HasPrefix(msg, "validating ") {
			break
		}
		msg = rest
	}
	return msg
}

// generalKeyword is the keyword jsonschema-go's error names first ("anyOf: did not validate…").
func generalKeyword(err error) string {
	kw, _, ok := strings.Cut(generalMessage(err), ":")
	if !ok || strings.ContainsAny(kw, " \"'") {
		return ""
	}
	return kw
}

// applyDefaults fills in the defaults of missing optional properties in the decoded instance,
// following properties, items, additionalProperties, allOf and local $refs, like the single-pass
// validator. It reports whether it changed anything.
func applyDefaults(inst any, s, root *jsonschema.Schema, depth int) bool {
	if s == nil || depth > maxDepth {
		return false
	}
	changed := false
	if s.Ref != "" {
		if target := lookupRef(root, s.Ref); target != nil {
			changed = applyDefaults(inst, target, root, depth+1) || changed
		}
	}
	for _, sub := range s.AllOf {
		changed = applyDefaults(inst, sub, root, depth+1) || changed
	}
	switch x := inst.(type) {
	case map[string]any:
		for name, val := range x {
			if ps, ok := s.Properties[name]; ok {
				changed = applyDefaults(val, ps, root, depth+1) || changed
			} else if s.AdditionalProperties != nil {
				changed = applyDefaults(val, s.AdditionalProperties, root, depth+1) || changed
			}
		}
		for name, ps := range s.Properties {
			if _, ok := x[name]; ok || ps.Default == nil || slices.Contains(s.Required, name) {
				continue
			}
			var d any
			if json.Unmarshal(ps.Default, &d) == nil {
				x[name] = d
				changed = true
			}
		}
	case []any:
		for i, val := range x {
			is := s.Items
			if i < len(s.PrefixItems) {
				is = s.PrefixItems[i]
			}
			changed = applyDefaults(val, is, root, depth+1) || changed
		}
	}
	return changed
}

// lookupRef resolves the local references the single-pass validator supports: "#" and
// "#/$defs/name" (or "#/definitions/name").
func lookupRef(root *jsonschema.Schema, ref string) *jsonschema.Schema {
	if ref == "#" {
		return root
	}
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok && !strings.Contains(name, "/") {
			name = strings.NewReplacer("~1", "/", "~0", "~").Replace(name)
			defs := root.Defs
			if prefix == "#/definitions/" {
				defs = root.Definitions
			}
			return defs[name]
		}
	}
	return nil
}

// JSON types as a bit set.
const (
	tNull uint8 = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tInteger
	tString
)

var typeNames = []string{"null", "boolean", "object", "array", "number", "integer", "string"}

func typeBit(name string) (uint8, bool) {
	i := slices.Index(typeNames, name)
	if i < 0 {
		return 0, false
	}
	return 1 << i, true
}

func typeList(mask uint8) string {
	var names []string
	for i, n := range typeNames {
		if mask&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// scalar is a JSON scalar from an enum or const.
type scalar struct {
	kind uint8 // tNull, tBoolean, tNumber or tString
	s    string
	n    float64
	b    bool
	json string // as written in messages
}

// vnode is a schema compiled for the single-pass validator.
type vnode struct {
	types uint8 // allowed types; 0 allows any
	never bool  // the false schema

	hasEnum  bool
	enum     []scalar
	hasConst bool
	constv   scalar

	hasMin, hasMax, hasExMin, hasExMax, hasMult bool
	min, max, exMin, exMax, mult                float64

	minLen, maxLen int // -1 when absent
	pattern        *regexp.Regexp

	prefix             []*vnode
	items              *vnode
	minItems, maxItems int

	props        []vprop
	propIndex    map[string]int // for objects with many properties
	reqExtra     []string       // required names that properties does not declare
	additional   *vnode         // nil allows any value
	noAdditional bool
	minProps     int
	maxProps     int
	hasDefaults  bool

	ref   *vnode
	allOf []*vnode
	anyOf []*vnode
	oneOf []*vnode
	not   *vnode

	// onlyRef: the node is a $ref and nothing else that validates.
	onlyRef bool
	// applicators: ref or a combinator is present, so the value is visited more than once.
	applicators bool
	// needNum: the number's value is needed.
	needNum bool
}

type vprop struct {
	name     string
	node     *vnode
	required bool
	def      string
	quoted   string // "name": prefix for inserting a default
}

var anyNode = &vnode{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}

type compiler struct {
	root     *jsonschema.Schema
	nodes    map[*jsonschema.Schema]*vnode
	defaults bool
}

// errUnsupported reports a schema feature the single-pass validator leaves to jsonschema-go.
type errUnsupported string

func (e errUnsupported) Error() string { return "unsupported keyword " + string(e) }

func (c *compiler) compile(s *jsonschema.Schema) (*vnode, error) {
	if s == nil {
		return anyNode, nil
	}
	if n, ok := c.nodes[s]; ok {
		return n, nil
	}
	n := &vnode{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	c.nodes[s] = n
	if s.Default != nil {
		c.defaults = true
	}
	switch {
	case s.Schema != "" && s != c.root,
		s.Schema != "" && !strings.Contains(s.Schema, "2020-12"):
		return nil, errUnsupported("$schema " + s.Schema)
	case s.ID != "" && s != c.root:
		return nil, errUnsupported("$id")
	case s.Anchor != "", s.DynamicAnchor != "", s.DynamicRef != "":
		return nil, errUnsupported("anchors")
	case s.DependencySchemas != nil, s.DependencyStrings != nil, s.DependentRequired != nil,
		s.DependentSchemas != nil:
		return nil, errUnsupported("dependencies")
	case s.PatternProperties != nil, s.PropertyNames != nil, s.UnevaluatedProperties != nil:
		return nil, errUnsupported("patternProperties/propertyNames/unevaluatedProperties")
	case s.UnevaluatedItems != nil, s.Contains != nil, s.MinContains != nil, s.MaxContains != nil,
		s.UniqueItems, s.AdditionalItems != nil, s.ItemsArray != nil:
		return nil, errUnsupported("contains/uniqueItems/unevaluatedItems/items array")
	case s.If != nil, s.Then != nil, s.Else != nil:
		return nil, errUnsupported("if/then/else")
	}
	if s.Not != nil && isEmptySchema(s.Not) && isFalseOnly(s) {
		n.never = true
		return n, nil
	}
	if s.Type != "" {
		b, ok := typeBit(s.Type)
		if !ok {
			return nil, errUnsupported("type " + s.Type)
		}
		n.types = b
	}
	for _, t := range s.Types {
		b, ok := typeBit(t)
		if !ok {
			return nil, errUnsupported("type " + t)
		}
		n.types |= b
	}
	if s.Types != nil && n.types == 0 {
		n.never = true
	}
	if n.types&tNumber != 0 {
		n.types |= tInteger // "number" subsumes integers
	}
	if s.Enum != nil {
		n.hasEnum = true
		for _, e := range s.Enum {
			sc, err := toScalar(e)
			if err != nil {
				return nil, err
			}
			n.enum = append(n.enum, sc)
			if sc.kind == tNumber {
				n.needNum = true
			}
		}
	}
	if s.Const != nil {
		sc, err := toScalar(*s.Const)
		if err != nil {
			return nil, err
		}
		n.hasConst, n.constv = true, sc
		if sc.kind == tNumber {
			n.needNum = true
		}
	}
	if s.Minimum != nil {
		n.hasMin, n.min = true, *s.Minimum
	}
	if s.Maximum != nil {
		n.hasMax, n.max = true, *s.Maximum
	}
	if s.ExclusiveMinimum != nil {
		n.hasExMin, n.exMin = true, *s.ExclusiveMinimum
	}
	if s.ExclusiveMaximum != nil {
		n.hasExMax, n.exMax = true, *s.ExclusiveMaximum
	}
	if s.MultipleOf != nil {
		n.hasMult, n.mult = true, *s.MultipleOf
	}
	n.needNum = n.needNum || n.hasMin || n.hasMax || n.hasExMin || n.hasExMax || n.hasMult ||
		(n.types&tInteger != 0 && n.types&tNumber == 0)
	if s.MinLength != nil {
		n.minLen = *s.MinLength
	}
	if s.MaxLength != nil {
		n.maxLen = *s.MaxLength
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil, errUnsupported("pattern " + s.Pattern)
		}
		n.pattern = re
	}
	var err error
	for _, p := range s.PrefixItems {
		pn, err := c.compile(p)
		if err != nil {
			return nil, err
		}
		n.prefix = append(n.prefix, pn)
	}
	if s.Items != nil {
		if n.items, err = c.compile(s.Items); err != nil {
			return nil, err
		}
	}
	if s.MinItems != nil {
		n.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		n.maxItems = *s.MaxItems
	}
	if s.MinProperties != nil {
		n.minProps = *s.MinProperties
	}
	if s.MaxProperties != nil {
		n.maxProps = *s.MaxProperties
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	// Declared order when known, for messages listing the allowed names.
	slices.SortFunc(names, func(a, b string) int {
		ia, ib := slices.Index(s.PropertyOrder, a), slices.Index(s.PropertyOrder, b)
		if ia != ib {
			if ia < 0 {
				return 1
			}
			if ib < 0 {
				return -1
			}
			return ia - ib
		}
		return strings.Compare(a, b)
	})
	for _, name := range names {
		ps := s.Properties[name]
		pn, err := c.compile(ps)
		if err != nil {
			return nil, err
		}
		p := vprop{name: name, node: pn, required: slices.Contains(s.Required, name)}
		if ps.Default != nil && !p.required {
			p.def = string(ps.Default)
			q, _ := json.Marshal(name)
			p.quoted = string(q) + ":"
			n.hasDefaults = true
		}
		n.props = append(n.props, p)
	}
	for _, r := range s.Required {
		if s.Properties[r] == nil && !slices.Contains(n.reqExtra, r) {
			n.reqExtra = append(n.reqExtra, r)
		}
	}
	if len(n.props) > 8 {
		n.propIndex = make(map[string]int, len(n.props))
		for i, p := range n.props {
			n.propIndex[p.name] = i
		}
	}
	if len(n.props) > 64 || len(n.reqExtra) > 64 {
		return nil, errUnsupported("more than 64 properties")
	}
	if a := s.AdditionalProperties; a != nil {
		if a.Not != nil && isEmptySchema(a.Not) && isFalseOnly(a) {
			n.noAdditional = true
		} else if n.additional, err = c.compile(a); err != nil {
			return nil, err
		}
	}
	if s.Ref != "" {
		target := lookupRef(c.root, s.Ref)
		if target == nil {
			return nil, errUnsupported("$ref " + s.Ref)
		}
		if n.ref, err = c.compile(target); err != nil {
			return nil, err
		}
	}
	for _, list := range []struct {
		src []*jsonschema.Schema
		dst *[]*vnode
	}{{s.AllOf, &n.allOf}, {s.AnyOf, &n.anyOf}, {s.OneOf, &n.oneOf}} {
		for _, sub := range list.src {
			sn, err := c.compile(sub)
			if err != nil {
				return nil, err
			}
			*list.dst = append(*list.dst, sn)
		}
	}
	if s.Not != nil {
		if n.not, err = c.compile(s.Not); err != nil {
			return nil, err
		}
	}
	n.applicators = n.ref != nil || n.allOf != nil || n.anyOf != nil || n.oneOf != nil || n.not != nil
	n.onlyRef = n.ref != nil && n.allOf == nil && n.anyOf == nil && n.oneOf == nil && n.not == nil &&
		n.types == 0 && !n.never && !n.hasEnum && !n.hasConst && !n.needNum && n.minLen < 0 &&
		n.maxLen < 0 && n.pattern == nil && n.prefix == nil && n.items == nil && n.minItems < 0 &&
		n.maxItems < 0 && n.props == nil && n.reqExtra == nil && n.additional == nil &&
		!n.noAdditional && n.minProps < 0 && n.maxProps < 0
	return n, nil
}

// isEmptySchema reports the schema that accepts everything ({} or true).
func isEmptySchema(s *jsonschema.Schema) bool {
	b, err := json.Marshal(s)
	return err == nil && string(b) == "true"
}

// isFalseOnly reports whether s is exactly {"not": {}}, jsonschema-go's form of false.
func isFalseOnly(s *jsonschema.Schema) bool {
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

func toScalar(v any) (scalar, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return scalar{}, errUnsupported("enum value")
	}
	sc := scalar{json: string(b)}
	switch x := v.(type) {
	case nil:
		sc.kind = tNull
	case bool:
		sc.kind, sc.b = tBoolean, x
	case string:
		sc.kind, sc.s = tString, x
	case float64:
		sc.kind, sc.n = tNumber, x
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return scalar{}, errUnsupported("enum value " + string(x))
		}
		sc.kind, sc.n = tNumber, f
	case int:
		sc.kind, sc.n = tNumber, float64(x)
	case int64:
		sc.kind, sc.n = tNumber, float64(x)
	default:
		return scalar{}, errUnsupported("enum or const of objects or arrays")
	}
	return sc, nil
}

func scalarList(list []scalar) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s.json)
	}
	b.WriteByte(']')
	return b.String()
}

func formatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// General returns why the schema is checked by jsonschema-go instead of the single pass, or ""
// when the single pass checks it: for tests and diagnostics.
func (v *Validator) General() string {
	if v.root != nil {
		return ""
	}
	return v.unsupported
}
