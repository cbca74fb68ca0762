package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Validator checks JSON arguments against a JSON Schema compiled once. Schemas made of the
// common keywords (type, enum, const, properties, required, additionalProperties,
// propertyNames without applicators inside, items, prefixItems, the numeric, string-length,
// pattern, item-count and property-count bounds, $ref in every form with $defs, $id and
// $anchor, allOf, anyOf, oneOf, not) are checked in a single
// pass over the JSON text without decoding it; any other schema is checked by
// github.com/google/jsonschema-go on the decoded value, with the same verdicts.
//
// Validation has a bounded cost, whatever the schema: the single pass works out each (schema
// node, value) pair at most twice and stops beyond a number of steps proportional to the size
// of the arguments; the general validator is used only for schemas that are not recursive and
// whose number of paths, times the number of values in the arguments, is bounded. Arguments
// beyond these bounds are refused with an [*ArgumentError] (keyword "limit"). A Validator is
// safe for concurrent use.
type Validator struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	res      *resolution
	root     *vnode // nil when the schema needs the general validator
	defaults bool   // the schema has defaults somewhere
	// recheck: a default may change the verdict of some keyword (a count of members, a visit
	// of one value by several nodes, any keyword only jsonschema-go checks), so arguments
	// completed with defaults are validated again.
	recheck bool
	// applicators: some node visits a value more than once (through $ref with other keywords,
	// allOf, anyOf, oneOf or not), so the first scan indexes the arguments.
	applicators bool
	// paths bounds how many times the general validator may visit one value.
	paths int
	// recursive: the schema applies itself to the items or members of a value.
	recursive bool
	// unsupported says why the fast path is not used, for tests and diagnostics.
	unsupported string
}

// Compile prepares a JSON Schema (2020-12, or draft-07 through its $schema) for validating
// arguments. It fails when the schema is not a valid schema, including when a default does not
// match the schema it sits in, and when validating with it could not finish in bounded time:
// a schema that applies itself to a value endlessly (through any form of reference), or a
// recursive or very large schema that only the general validator could check.
func Compile(schema json.RawMessage) (*Validator, error) {
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(schema, s); err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	return compileSchema(s)
}

// maxGeneralPaths bounds the number of paths from the root through a schema the general
// validator checks; maxGeneralVisits bounds paths times values for one call.
const (
	maxGeneralPaths  = 1 << 14
	maxGeneralVisits = 1 << 17
)

func compileSchema(s *jsonschema.Schema) (*Validator, error) {
	v, err := compileChecked(s)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	return v, nil
}

func compileChecked(s *jsonschema.Schema) (*Validator, error) {
	// jsonschema-go checks the structure and resolves references first; defaults are checked
	// below, once the schema is known to be safe to validate with.
	resolved, err := resolveSafely(s, nil)
	if err != nil {
		return nil, err
	}
	res, err := resolveRefs(s)
	if err != nil {
		return nil, err
	}
	if err := checkTypeNames(res); err != nil {
		return nil, err
	}
	if err := checkBounds(res); err != nil {
		return nil, err
	}
	recursive, err := res.checkCycles()
	if err != nil {
		return nil, err
	}
	v := &Validator{schema: s, resolved: resolved, res: res}
	c := &compiler{res: res, root: s, nodes: map[*jsonschema.Schema]*vnode{}}
	root, cerr := c.compile(s)
	if cerr == nil {
		v.root, v.applicators, v.defaults, v.recursive = root, c.applicators, c.defaults, recursive
		v.recheck = c.defaults && (c.applicators || c.members)
		return v, c.checkDefaults()
	}
	v.unsupported = cerr.Error()
	// The general validator neither remembers what it has worked out nor stops: it is used
	// only where its cost has a bound.
	if recursive {
		return nil, fmt.Errorf("the schema is recursive and uses %s, which wield checks only in schemas that are not recursive", strings.TrimPrefix(v.unsupported, "unsupported keyword "))
	}
	if res.dynamic != nil {
		return nil, errors.New("$dynamicRef is supported only in schemas the single-pass validator checks")
	}
	if v.paths = res.pathCount(s, maxGeneralPaths); v.paths > maxGeneralPaths {
		return nil, fmt.Errorf("the schema has more than %d paths through its subschemas and uses %s", maxGeneralPaths, strings.TrimPrefix(v.unsupported, "unsupported keyword "))
	}
	// Let jsonschema-go follow exactly the references checked above: each becomes a JSON Pointer
	// from the root, and the identifiers that scoped them go.
	for _, n := range res.all {
		if t := res.ref[n]; t != nil {
			n.Ref = (&url.URL{Fragment: res.path[t]}).String()
			if n.Ref == "" {
				n.Ref = "#"
			}
		}
		if n != s {
			n.ID = ""
		}
		n.Anchor = ""
		if n.Default != nil {
			v.defaults = true
		}
	}
	if v.resolved, err = resolveSafely(s, &jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		return nil, err
	}
	v.recursive = recursive
	v.recheck = v.defaults
	return v, nil
}

// resolveSafely is s.Resolve, with a panic of jsonschema-go on a hostile schema turned into an
// error.
func resolveSafely(s *jsonschema.Schema, opts *jsonschema.ResolveOptions) (r *jsonschema.Resolved, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("jsonschema-go cannot resolve the schema: %v", p)
		}
	}()
	return s.Resolve(opts)
}

// validateGeneral is v.resolved.Validate, with a panic of jsonschema-go turned into an error.
func (v *Validator) validateGeneral(inst any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("jsonschema-go cannot validate the arguments: %v", p)
		}
	}()
	return v.resolved.Validate(inst)
}

// checkTypeNames rejects unknown names in "type", which jsonschema-go accepts and then never
// matches: a schema in another dialect ("dict", "float") would reject every argument.
func checkTypeNames(res *resolution) error {
	for _, s := range res.all {
		if _, ok := typeBit(s.Type); s.Type != "" && !ok {
			return fmt.Errorf("unknown type %q", s.Type)
		}
		for _, name := range s.Types {
			if _, ok := typeBit(name); !ok {
				return fmt.Errorf("unknown type %q", name)
			}
		}
	}
	return nil
}

// checkBounds rejects keyword values JSON Schema forbids and jsonschema-go accepts: a
// multipleOf that is not greater than 0 (0 rejects every number), and negative lengths and
// counts.
func checkBounds(res *resolution) error {
	for _, s := range res.all {
		if m := s.MultipleOf; m != nil && !(*m > 0) {
			return fmt.Errorf("multipleOf %v is not greater than 0", *m)
		}
		for _, b := range []struct {
			name string
			v    *int
		}{{"minLength", s.MinLength}, {"maxLength", s.MaxLength}, {"minItems", s.MinItems},
			{"maxItems", s.MaxItems}, {"minProperties", s.MinProperties}, {"maxProperties", s.MaxProperties},
			{"minContains", s.MinContains}, {"maxContains", s.MaxContains}} {
			if b.v != nil && *b.v < 0 {
				return fmt.Errorf("%s %d is negative", b.name, *b.v)
			}
		}
	}
	return nil
}

// pathCount returns the number of paths from root to the schemas it applies (directly, to items
// and members, or through references and logical keywords), up to a little over limit. The
// general validator visits a value at most this many times. The schema must not be recursive.
//
// A schema with an enum counts once more for each value of its enum: jsonschema-go compares a
// value with each of them in turn, so a large enum costs as much as as many paths.
func (res *resolution) pathCount(root *jsonschema.Schema, limit int) int {
	memo := map[*jsonschema.Schema]int{}
	var count func(s *jsonschema.Schema) int // paths starting at s
	count = func(s *jsonschema.Schema) int {
		if n, ok := memo[s]; ok {
			return n
		}
		n := 1 + len(s.Enum)
		for _, c := range slices.Concat(res.inPlace(s), children(s)) {
			if n += count(c); n > limit {
				n = limit + 1
				break
			}
		}
		memo[s] = n
		return n
	}
	return count(root)
}

// checkDefaults validates every default against the schema it sits in, with the single pass.
func (c *compiler) checkDefaults() error {
	for _, s := range c.res.all {
		if s.Default == nil {
			continue
		}
		n, err := c.compile(s)
		if err != nil {
			continue // a subschema nothing applies, in a form the single pass does not check
		}
		state := newState(string(s.Default))
		st := &state
		pos := skipWS(st.data, 0)
		if c.applicators {
			st.buildIndex(pos)
		} else {
			st.checkSyntax(pos)
		}
		if st.err == nil {
			st.value(n, pos)
		}
		if bad := st.err; bad != nil {
			return fmt.Errorf("the default of %q does not match its schema: %w", "#"+c.res.path[s], bad)
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
// missing optional properties filled in, ready to decode. The result is always valid: a default
// that would make it invalid (beside maxProperties, not, oneOf, propertyNames…) is left out.
// When there is nothing to fill in, the result is args itself (or {} for blank args).
func (v *Validator) Prepare(args string) (string, error) {
	args, err := scanned(args)
	if err != nil {
		return "", err
	}
	if v.root == nil {
		return v.prepareGeneral(args)
	}
	state := newState(args)
	st := &state
	v.scan(st, nil, reflect.Value{})
	if st.err != nil {
		return "", st.err
	}
	if len(st.edits) == 0 {
		return args, nil
	}
	if v.recheck {
		return v.keepValid(st), nil
	}
	return st.applyEdits(), nil
}

// maxDefaultTrials bounds how many times arguments are validated again to find which defaults
// keep them valid, and maxDefaultBytes how many bytes those validations read in all; the
// defaults not tried by then are left out.
const (
	maxDefaultTrials = 64
	maxDefaultBytes  = 16 << 20
)

// keepValid returns st's arguments with the edits the scan found made, as long as the result
// is valid. Otherwise the defaults are added one at a time, in the order of the text, and each
// that would make the arguments invalid is left out: the arguments were valid without any, and
// a default is a convenience of the schema, never a reason to refuse what the model sent.
func (v *Validator) keepValid(st *vstate) string {
	out := st.applyEdits()
	if v.validText(out) {
		return out
	}
	var kept, inserts []edit
	for _, e := range st.edits {
		if e.end == e.at {
			inserts = append(inserts, e)
		} else {
			kept = append(kept, e) // an integer rewritten as such: the same value
		}
	}
	out = (&vstate{data: st.data, edits: slices.Clone(kept)}).applyEdits()
	read := len(out)
	for i, e := range inserts {
		if read > maxDefaultBytes || i >= maxDefaultTrials {
			break
		}
		try := (&vstate{data: st.data, edits: append(slices.Clone(kept), e)}).applyEdits()
		read += len(try)
		if v.validText(try) {
			kept, out = append(kept, e), try
		}
	}
	return out
}

// validText reports whether the arguments args are valid, on the single pass.
func (v *Validator) validText(args string) bool {
	state := newState(args)
	st := &state
	v.scan(st, nil, reflect.Value{})
	return st.err == nil
}

// scanned returns the arguments to scan for args: {} for blank ones, an error for those too
// large for the scanner.
func scanned(args string) (string, error) {
	if isBlank(args) {
		return emptyObject, nil
	}
	if len(args) >= math.MaxInt32 {
		return "", errTooLarge()
	}
	return args, nil
}

// scan checks st's arguments against the root schema and, with a plan, decodes them into dst.
func (v *Validator) scan(st *vstate, plan *dnode, dst reflect.Value) {
	pos := skipWS(st.data, 0)
	if v.applicators {
		// Check the syntax and find every container's extent first: nodes with applicators
		// visit a value more than once and skip it in constant time.
		st.buildIndex(pos)
		if st.err != nil {
			return
		}
	}
	st.dec, st.dst = plan, dst
	end := st.value(v.root, pos)
	if !v.applicators { // the index checked what follows
		st.atEnd(end)
	}
}

// atEnd fails the scan unless only white space follows the arguments value, which ended at end
// (-1 when the scan failed).
func (st *vstate) atEnd(end int) {
	if end >= 0 {
		if end = skipWS(st.data, end); end < len(st.data) {
			st.syntaxError(end, "unexpected data after the arguments object")
		}
	}
}

// buildIndex checks the syntax of the value at pos and what follows, and indexes its values.
func (st *vstate) buildIndex(pos int) {
	if len(st.data) >= math.MaxInt32 {
		st.overBudget()
		return
	}
	if cap(st.at) >= len(st.data) {
		st.at = st.at[:len(st.data)]
		clear(st.at)
	} else {
		st.at = make([]int32, len(st.data))
	}
	if guess := len(st.data) / 4; cap(st.vals) < guess {
		st.vals = make([]valInfo, 0, guess)
		st.memo = make([]memoItem, 0, guess)
	}
	st.indexing = true
	st.checkSyntax(pos)
	st.indexing, st.indexed = false, true
}

// decode validates args like Prepare and, in the same pass, decodes them into dst with plan.
func (v *Validator) decode(args string, plan *dnode, dst reflect.Value) error {
	args, err := scanned(args)
	if err != nil {
		return err
	}
	state := newState(args)
	st := &state
	v.scan(st, plan, dst)
	switch {
	case st.err != nil:
		return st.err
	case st.decErr != nil:
		return st.decErr
	}
	return nil
}

// errTooLarge refuses arguments whose offsets do not fit the scanner's 32 bits.
func errTooLarge() error {
	return &ArgumentError{Issues: []Issue{{Message: "the arguments are too large to be checked", Keyword: "limit"}}}
}

// checkSyntax scans the value at pos and what follows it for syntax alone.
func (st *vstate) checkSyntax(pos int) {
	st.atEnd(st.own(anyNode, pos))
}

// newState returns a scan state for data. A state lives on its caller's stack: writing to it
// costs no write barrier, and its path array is small.
func newState(data string) vstate {
	return vstate{data: data, budget: minBudget + budgetPerByte*len(data)}
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
	state := newState(args)
	st := &state
	st.atEnd(st.value(anyNode, skipWS(args, 0)))
	if st.err != nil {
		return "", st.err
	}
	if st.values*v.paths > maxGeneralVisits {
		return "", &ArgumentError{Issues: []Issue{{
			Message: "the arguments are too large to be checked against this tool's schema (" + strconv.Itoa(st.values) + " values)",
			Keyword: "limit",
		}}}
	}
	var inst any
	if err := json.Unmarshal([]byte(args), &inst); err != nil {
		// The scanner accepted it, so this is a number beyond float64.
		return "", &ArgumentError{Issues: []Issue{{Message: err.Error(), Keyword: "decode"}}}
	}
	if err := v.validateGeneral(inst); err != nil {
		return "", &ArgumentError{Issues: []Issue{{Message: generalMessage(err), Keyword: generalKeyword(err)}}}
	}
	if !v.defaults {
		return args, nil
	}
	var added []addedDefault
	v.applyDefaults(inst, v.schema, 0, &added)
	if len(added) == 0 {
		return args, nil
	}
	if v.recheck && v.validateGeneral(inst) != nil {
		// As on the single pass: each default in turn, kept if the arguments stay valid.
		for _, a := range added {
			delete(a.obj, a.name)
		}
		kept := 0
		for i, a := range added {
			if i >= maxDefaultTrials {
				break
			}
			a.obj[a.name] = a.value
			if v.validateGeneral(inst) != nil {
				delete(a.obj, a.name)
			} else {
				kept++
			}
		}
		if kept == 0 {
			return args, nil
		}
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

// addedDefault is a default applyDefaults filled in: obj[name] = value.
type addedDefault struct {
	obj   map[string]any
	name  string
	value any
}

// applyDefaults fills in the defaults of missing optional properties in the decoded instance,
// following properties, items, additionalProperties, allOf and local $refs, like the single-pass
// validator, and lists them in added: those inside members first, members in the order of
// their names.
func (v *Validator) applyDefaults(inst any, s *jsonschema.Schema, depth int, added *[]addedDefault) {
	if s == nil || depth > maxDepth {
		return
	}
	if target := v.res.ref[s]; target != nil {
		v.applyDefaults(inst, target, depth+1, added)
	}
	for _, sub := range s.AllOf {
		v.applyDefaults(inst, sub, depth+1, added)
	}
	switch x := inst.(type) {
	case map[string]any:
		for _, name := range slices.Sorted(maps.Keys(x)) {
			if ps, ok := s.Properties[name]; ok {
				v.applyDefaults(x[name], ps, depth+1, added)
			} else if s.AdditionalProperties != nil {
				v.applyDefaults(x[name], s.AdditionalProperties, depth+1, added)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			ps := s.Properties[name]
			if _, ok := x[name]; ok || ps.Default == nil || slices.Contains(s.Required, name) {
				continue
			}
			var d any
			if json.Unmarshal(ps.Default, &d) == nil {
				x[name] = d
				*added = append(*added, addedDefault{x, name, d})
			}
		}
	case []any:
		for i, val := range x {
			is := s.Items
			if i < len(s.PrefixItems) {
				is = s.PrefixItems[i]
			}
			v.applyDefaults(val, is, depth+1, added)
		}
	}
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

// scalarKey is a scalar's value, for looking it up in a large enum.
type scalarKey struct {
	kind uint8
	s    string
	n    float64
	b    bool
}

func (sc scalar) key() scalarKey { return scalarKey{sc.kind, sc.s, sc.n, sc.b} }

// Enums longer than maxEnumScan are looked up in a set: scanning them for every value would make
// validation cost the size of the arguments times the size of the enum.
const maxEnumScan = 16

// vnode is a schema compiled for the single-pass validator.
type vnode struct {
	id    int32 // unique within a compiled schema
	types uint8 // allowed types; 0 allows any
	never bool  // the false schema

	hasEnum  bool
	enum     []scalar
	enumSet  map[scalarKey]struct{} // for enums longer than maxEnumScan
	hasConst bool
	constv   scalar

	hasMin, hasMax, hasExMin, hasExMax, hasMult bool
	min, max, exMin, exMax, mult                float64
	multRat                                     *big.Rat // mult as the decimal it was written as; read only

	minLen, maxLen int // -1 when absent
	pattern        *regexp.Regexp

	prefix             []*vnode
	items              *vnode
	minItems, maxItems int

	props        []vprop
	propIndex    map[string]int // for objects with many properties
	reqExtra     []string       // required names that properties does not declare
	additional   *vnode         // nil allows any value
	names        *vnode         // propertyNames, without applicators; nil allows any name
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
	// inside: an array or object value is checked inside (items, members, counts) or as a
	// whole (enum, const), not only for its type.
	inside bool
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
	res         *resolution
	root        *jsonschema.Schema
	nodes       map[*jsonschema.Schema]*vnode
	defaults    bool
	applicators bool
	// members: some node bounds the number of members or their names, which a default
	// changes.
	members bool
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
	n.id = int32(len(c.nodes))
	c.nodes[s] = n
	if s.Default != nil {
		c.defaults = true
	}
	if err := c.supported(s); err != nil {
		return nil, err
	}
	if s.Not != nil && isEmptySchema(s.Not) && isFalseOnly(s) {
		n.never = true
		return n, nil
	}
	for _, step := range []func(*vnode, *jsonschema.Schema) error{
		compileTypes, compileValues, compileScalars, c.compileArray, c.compileObject,
		c.compileApplicators,
	} {
		if err := step(n, s); err != nil {
			return nil, err
		}
	}
	n.summarize()
	c.applicators = c.applicators || (n.applicators && !n.onlyRef)
	return n, nil
}

// supported refuses the keywords the single-pass validator leaves to jsonschema-go.
func (c *compiler) supported(s *jsonschema.Schema) error {
	switch {
	case s.Schema != "" && s != c.root,
		s.Schema != "" && !strings.Contains(s.Schema, "2020-12"):
		return errUnsupported("$schema " + s.Schema)
	case s.DynamicRef != "":
		return errUnsupported("$dynamicRef")
	case s.DependencySchemas != nil, s.DependencyStrings != nil, s.DependentRequired != nil,
		s.DependentSchemas != nil:
		return errUnsupported("dependencies")
	case s.PatternProperties != nil, s.UnevaluatedProperties != nil:
		return errUnsupported("patternProperties/unevaluatedProperties")
	case s.UnevaluatedItems != nil, s.Contains != nil, s.MinContains != nil, s.MaxContains != nil,
		s.UniqueItems, s.AdditionalItems != nil, s.ItemsArray != nil:
		return errUnsupported("contains/uniqueItems/unevaluatedItems/items array")
	case s.If != nil, s.Then != nil, s.Else != nil:
		return errUnsupported("if/then/else")
	}
	return nil
}

func compileTypes(n *vnode, s *jsonschema.Schema) error {
	if s.Type != "" {
		b, ok := typeBit(s.Type)
		if !ok {
			return errUnsupported("type " + s.Type)
		}
		n.types = b
	}
	for _, t := range s.Types {
		b, ok := typeBit(t)
		if !ok {
			return errUnsupported("type " + t)
		}
		n.types |= b
	}
	if s.Types != nil && n.types == 0 {
		n.never = true
	}
	if n.types&tNumber != 0 {
		n.types |= tInteger // "number" subsumes integers
	}
	return nil
}

// compileValues compiles enum and const.
func compileValues(n *vnode, s *jsonschema.Schema) error {
	if s.Enum != nil {
		n.hasEnum = true
		for _, e := range s.Enum {
			sc, err := toScalar(e)
			if err != nil {
				return err
			}
			n.enum = append(n.enum, sc)
			if sc.kind == tNumber {
				n.needNum = true
			}
		}
		if len(n.enum) > maxEnumScan {
			n.enumSet = make(map[scalarKey]struct{}, len(n.enum))
			for _, sc := range n.enum {
				n.enumSet[sc.key()] = struct{}{}
			}
		}
	}
	if s.Const != nil {
		sc, err := toScalar(*s.Const)
		if err != nil {
			return err
		}
		n.hasConst, n.constv = true, sc
		if sc.kind == tNumber {
			n.needNum = true
		}
	}
	return nil
}

// compileScalars compiles the number and string keywords.
func compileScalars(n *vnode, s *jsonschema.Schema) error {
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
		n.multRat, _ = new(big.Rat).SetString(strconv.FormatFloat(n.mult, 'g', -1, 64))
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
			return errUnsupported("pattern " + s.Pattern)
		}
		n.pattern = re
	}
	return nil
}

func (c *compiler) compileArray(n *vnode, s *jsonschema.Schema) error {
	for _, p := range s.PrefixItems {
		pn, err := c.compile(p)
		if err != nil {
			return err
		}
		n.prefix = append(n.prefix, pn)
	}
	if s.Items != nil {
		var err error
		if n.items, err = c.compile(s.Items); err != nil {
			return err
		}
	}
	if s.MinItems != nil {
		n.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		n.maxItems = *s.MaxItems
	}
	return nil
}

func (c *compiler) compileObject(n *vnode, s *jsonschema.Schema) error {
	if s.MinProperties != nil {
		n.minProps = *s.MinProperties
	}
	if s.MaxProperties != nil {
		n.maxProps = *s.MaxProperties
		c.members = true
	}
	if err := c.compileProperties(n, s); err != nil {
		return err
	}
	if s.PropertyNames != nil {
		pn, err := c.compile(s.PropertyNames)
		if err != nil {
			return err
		}
		// A name is a string, checked where it is read: by a node's own keywords only.
		if pn = pn.deref(); pn.applicators {
			return errUnsupported("propertyNames with applicators")
		}
		if pn != anyNode && !isEmptySchema(s.PropertyNames) {
			n.names = pn
			c.members = true
		}
	}
	if a := s.AdditionalProperties; a != nil {
		if a.Not != nil && isEmptySchema(a.Not) && isFalseOnly(a) {
			n.noAdditional = true
		} else {
			var err error
			if n.additional, err = c.compile(a); err != nil {
				return err
			}
		}
	}
	return nil
}

// compileProperties compiles properties and required.
func (c *compiler) compileProperties(n *vnode, s *jsonschema.Schema) error {
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
			return err
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
		return errUnsupported("more than 64 properties")
	}
	return nil
}

// compileApplicators compiles $ref, allOf, anyOf, oneOf and not.
func (c *compiler) compileApplicators(n *vnode, s *jsonschema.Schema) error {
	var err error
	if s.Ref != "" {
		target := c.res.ref[s]
		if target == nil {
			return errUnsupported("$ref " + s.Ref)
		}
		if n.ref, err = c.compile(target); err != nil {
			return err
		}
	}
	for _, list := range []struct {
		src []*jsonschema.Schema
		dst *[]*vnode
	}{{s.AllOf, &n.allOf}, {s.AnyOf, &n.anyOf}, {s.OneOf, &n.oneOf}} {
		for _, sub := range list.src {
			sn, err := c.compile(sub)
			if err != nil {
				return err
			}
			*list.dst = append(*list.dst, sn)
		}
	}
	if s.Not != nil {
		if n.not, err = c.compile(s.Not); err != nil {
			return err
		}
	}
	return nil
}

// summarize sets the flags the validator reads to choose its path through a value.
func (n *vnode) summarize() {
	n.applicators = n.ref != nil || n.allOf != nil || n.anyOf != nil || n.oneOf != nil || n.not != nil
	n.onlyRef = n.ref != nil && n.allOf == nil && n.anyOf == nil && n.oneOf == nil && n.not == nil &&
		n.types == 0 && !n.never && !n.hasEnum && !n.hasConst && !n.needNum && n.minLen < 0 &&
		n.maxLen < 0 && n.pattern == nil && n.prefix == nil && n.items == nil && n.minItems < 0 &&
		n.maxItems < 0 && n.props == nil && n.reqExtra == nil && n.additional == nil &&
		!n.noAdditional && n.minProps < 0 && n.maxProps < 0 && n.names == nil
	n.inside = n.prefix != nil || n.items != nil || n.minItems >= 0 || n.maxItems >= 0 ||
		n.props != nil || n.reqExtra != nil || n.additional != nil || n.noAdditional ||
		n.names != nil || n.minProps >= 0 || n.maxProps >= 0 || n.hasEnum || n.hasConst
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

// scalarList writes the first maxListedScalars of list, and how many more there are: a message
// is built for each failing value, and a model needs examples, not all of a long enum.
func scalarList(list []scalar) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range list {
		if i == maxListedScalars {
			b.WriteString(", … " + strconv.Itoa(len(list)-i) + " more")
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s.json)
	}
	b.WriteByte(']')
	return b.String()
}

const maxListedScalars = 20

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
