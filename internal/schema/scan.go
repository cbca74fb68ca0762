package schema

import (
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The single-pass validator: it reads the JSON text once, checking its syntax (RFC 8259, UTF-8
// included) and the compiled schema together, without building any value. It allocates only
// to report problems or to fill in defaults.

// maxDepth bounds nesting, like encoding/json.
const maxDepth = 10000

// pathSeg is one step of the path to the current value: an object key, as data[start:end]
// (the raw text between its quotes), or an array index. It holds no pointer, so that setting
// it costs no write barrier.
type pathSeg struct {
	start, end int32
	index      int32
	isKey      bool
	esc        bool // the key has escapes
}

// edit is a change Prepare makes to the arguments: a default inserted into an object (end ==
// at, just after its '{') or an integral number in an integer slot rewritten as an integer.
type edit struct {
	at, end int
	text    string
	more    bool // an insert into an object with members: a comma follows
}

type vstate struct {
	data string
	// The path to the current value: the first segments in a fixed array (no allocation for
	// ordinary nesting), deeper ones in more.
	path    [8]pathSeg
	npath   int
	more    []pathSeg
	err     *ArgumentError
	quiet   int // inside anyOf, oneOf or not: failures are counted, not reported
	fails   int // failures found, reported or not
	depth   int
	edits   []edit
	scratch []byte

	// Bounded cost. Every visit of a value by a schema node counts against budget. When some
	// node has applicators (and may visit a value again through other branches), a first scan
	// checks the syntax and indexes every value (at maps its offset to its entry in vals, which
	// holds its end), and what each such node found at each value is remembered, so that each
	// (node, value) pair is worked out at most once quietly and once loudly, and skipping a value
	// costs a lookup.
	work, budget int
	values       int // values scanned
	at           []int32
	vals         []valInfo
	memo         []memoItem
	indexing     bool // the first scan, building the index
	indexed      bool // the first scan is done: every value's syntax is known to be good
	aborted      bool // over budget: the scan stops

	// Decoding while validating: the value about to be scanned is decoded by dec into dst
	// (dec nil: not decoded). decErr is the first value Go cannot hold; it is reported only if
	// the arguments are otherwise valid.
	dec    *dnode
	dst    reflect.Value
	decErr *ArgumentError
}

// valInfo is one value of the arguments, as the first scan found it. Neither it nor memoItem
// holds a pointer, so that the collector never scans the index.
type valInfo struct {
	end  int32
	memo int32 // first of the value's memoItems, -1 for none
}

// memoItem is what the node with id node found at one value; items of a value form a list.
type memoItem struct {
	node        int32
	next        int32
	ok          bool // no failure
	quiet, loud bool // worked out quietly, loudly
}

// minBudget is the number of value visits any arguments may take, however small (a few
// milliseconds' work); larger arguments may take budgetPerByte visits per byte. Ordinary
// schemas take one visit per value, and a value takes at least two bytes but the last; an
// alternative of the wrong type costs a step but no visit.
const (
	minBudget     = 1 << 17
	budgetPerByte = 1
	patternCost   = 16 // per byte of a string matched against a pattern
)

// overBudget stops a scan whose cost has grown beyond what the arguments' size allows.
func (st *vstate) overBudget() int {
	if !st.aborted {
		st.aborted = true
		st.err = &ArgumentError{Issues: []Issue{{
			Message: "the arguments are too large or too deeply nested to be checked against this tool's schema",
			Keyword: "limit",
		}}}
	}
	return -1
}

// skip returns the end of the value at pos, which the first scan has checked.
func (st *vstate) skip(pos int) int {
	return int(st.vals[st.at[pos]-1].end)
}

func skipWS(d string, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (st *vstate) syntaxError(pos int, msg string) int {
	if st.err == nil || !st.err.Syntax {
		st.err = &ArgumentError{Syntax: true, Offset: pos, Issues: []Issue{{Message: msg, Keyword: "syntax"}}}
	}
	return -1
}

func (st *vstate) unexpected(pos int, context string) int {
	if pos >= len(st.data) {
		return st.syntaxError(pos, "unexpected end of input")
	}
	c := st.data[pos]
	var what string
	if c < utf8.RuneSelf && c >= 0x20 {
		what = "invalid character " + strconv.QuoteRune(rune(c))
	} else {
		what = "invalid byte " + strconv.Quote(string(c))
	}
	return st.syntaxError(pos, what+" "+context)
}

// report notes a schema violation and says whether to describe it: inside alternatives only
// the verdict counts, and once the error lists maxIssues problems no more are kept, so building
// their messages would be wasted work (a message per value of a large argument).
func (st *vstate) report() bool {
	st.fails++
	return st.quiet == 0 && (st.err == nil || !st.err.Syntax && len(st.err.Issues) < maxIssues)
}

// fail records a schema violation at the current path.
func (st *vstate) fail(keyword, msg string) {
	if st.err == nil {
		st.err = &ArgumentError{}
	}
	if st.err.Syntax || len(st.err.Issues) >= maxIssues {
		return
	}
	st.err.Issues = append(st.err.Issues, Issue{Path: st.pointer(), Message: msg, Keyword: keyword})
}

func (st *vstate) pointer() string {
	var b strings.Builder
	segs := append(st.path[:min(st.npath, len(st.path)):min(st.npath, len(st.path))], st.more...)
	for _, s := range segs {
		b.WriteByte('/')
		if !s.isKey {
			b.WriteString(strconv.Itoa(int(s.index)))
			continue
		}
		k := st.data[s.start:s.end]
		if s.esc {
			k = string(unescape(nil, k))
		}
		k = strings.ReplaceAll(k, "~", "~0")
		b.WriteString(strings.ReplaceAll(k, "/", "~1"))
	}
	return b.String()
}

// value validates the JSON value at pos against n and returns the offset after it, or -1 on a
// syntax error.
func (st *vstate) value(n *vnode, pos int) int {
	for n.onlyRef {
		n = n.ref
	}
	if d := st.dec; d != nil && (d.kind == dSpan || n.applicators || n == anyNode) {
		return st.spanValue(d, n, pos)
	}
	if n == anyNode {
		return st.own(n, pos)
	}
	if st.work++; st.work > st.budget {
		return st.overBudget()
	}
	if !n.applicators {
		return st.own(n, pos)
	}
	v := &st.vals[st.at[pos]-1]
	end := int(v.end)
	item := v.memo
	for item >= 0 && st.memo[item].node != n.id {
		item = st.memo[item].next
	}
	if item >= 0 {
		if e := st.memo[item]; e.loud || st.quiet > 0 {
			if !e.ok {
				st.fails++
			}
			return end
		}
	} else {
		item = int32(len(st.memo))
		st.memo = append(st.memo, memoItem{node: n.id, next: v.memo})
		v.memo = item
	}
	// The value is visited once per applicator; the first scan has checked its syntax.
	before := st.fails
	if n.ref != nil {
		st.value(n.ref, pos)
	}
	for _, s := range n.allOf {
		st.value(s, pos)
	}
	if n.anyOf != nil {
		ok := false
		for _, s := range n.anyOf {
			if st.quietValid(s, pos) {
				ok = true
				break
			}
		}
		if !ok {
			if st.report() {
				st.fail("anyOf", alternativesMessage(n.anyOf, st.data[pos], "does not match any of the allowed alternatives (anyOf)"))
			}
		}
	}
	if n.oneOf != nil {
		count := 0
		for _, s := range n.oneOf {
			if st.quietValid(s, pos) {
				count++
			}
		}
		switch {
		case count == 0:
			if st.report() {
				st.fail("oneOf", alternativesMessage(n.oneOf, st.data[pos], "does not match any of the alternatives (oneOf)"))
			}
		case count > 1:
			if st.report() {
				st.fail("oneOf", "matches more than one of the alternatives (oneOf); it must match exactly one")
			}
		}
	}
	if n.not != nil && st.quietValid(n.not, pos) {
		if st.report() {
			st.fail("not", "matches a schema it must not match (not)")
		}
	}
	if !st.aborted {
		st.own(n, pos)
	}
	if st.aborted {
		return -1
	}
	e := &st.memo[item]
	e.ok = st.fails == before
	e.quiet = true
	e.loud = e.loud || st.quiet == 0
	return end
}

// quietValid reports whether the value at pos is valid for n, reporting nothing.
func (st *vstate) quietValid(n *vnode, pos int) bool {
	for n.onlyRef {
		n = n.ref
	}
	if n.types != 0 && n.types&kindBits(st.data[pos]) == 0 {
		// The wrong type: no need to look further, but trying it costs a step too.
		if st.work++; st.work > st.budget {
			st.overBudget()
		}
		return false
	}
	before := st.fails
	st.quiet++
	nedits := len(st.edits)
	st.dec = nil
	st.value(n, pos)
	ok := st.fails == before
	st.edits = st.edits[:nedits] // edits apply only outside alternatives
	st.quiet--
	st.fails = before // the alternative's failures are not the value's
	return ok
}

// alternativesMessage says which types would do when every alternative has a plain type.
func alternativesMessage(alts []*vnode, first byte, fallback string) string {
	var mask uint8
	for _, a := range alts {
		if a.types == 0 {
			return fallback
		}
		mask |= a.types
	}
	if mask&tNumber != 0 {
		mask &^= tInteger
	}
	return "expected " + typeList(mask) + ", got " + kindName(first)
}

// kindBits returns the types a value starting with c may have.
func kindBits(c byte) uint8 {
	switch c {
	case '{':
		return tObject
	case '[':
		return tArray
	case '"':
		return tString
	case 't', 'f':
		return tBoolean
	case 'n':
		return tNull
	}
	return tNumber | tInteger
}

func kindName(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// typeOK checks the value's type against n, reporting a mismatch.
func (st *vstate) typeOK(n *vnode, got uint8, pos, end int) bool {
	if n.never {
		if st.report() {
			st.fail("false", "no value is allowed here")
		}
		return false
	}
	if n.types == 0 || n.types&got != 0 {
		return true
	}
	if st.report() {
		st.fail("type", "expected "+typeList(n.types&^impliedInteger(n.types))+", got "+describe(st.data[pos:end]))
	}
	return false
}

func impliedInteger(mask uint8) uint8 {
	if mask&tNumber != 0 {
		return tInteger
	}
	return 0
}

// describe renders a value for a message: short scalars as written, others by kind.
func describe(v string) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		if len(v) > 40 {
			return "a string " + truncateUTF8(v, 37) + `…"`
		}
		return "the string " + v
	}
	if len(v) > 40 {
		return v[:37] + "…"
	}
	return v
}

func truncateUTF8(b string, n int) string {
	if len(b) <= n {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// own validates the value at pos against n's own keywords (not its applicators).
func (st *vstate) own(n *vnode, pos int) int {
	if st.indexing {
		return st.index(pos)
	}
	return st.scan(n, pos)
}

// index scans the value at pos for syntax, recording it and every value inside it.
func (st *vstate) index(pos int) int {
	k := len(st.vals)
	st.vals = append(st.vals, valInfo{memo: -1})
	if pos < len(st.at) {
		st.at[pos] = int32(k + 1)
	}
	end := st.scan(anyNode, pos)
	st.vals[k].end = int32(end)
	return end
}

func (st *vstate) scan(n *vnode, pos int) int {
	d := st.data
	st.values++
	if pos >= len(d) {
		return st.syntaxError(pos, "unexpected end of input")
	}
	var end int
	switch c := d[pos]; c {
	case '{':
		return st.object(n, pos)
	case '[':
		return st.array(n, pos)
	case '"':
		end = st.str(n, pos)
	case 't':
		end = st.literal(n, pos, "true", tBoolean)
	case 'f':
		end = st.literal(n, pos, "false", tBoolean)
	case 'n':
		end = st.literal(n, pos, "null", tNull)
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			end = st.number(n, pos)
		} else {
			return st.unexpected(pos, "looking for the beginning of a value")
		}
	}
	if dec := st.dec; dec != nil {
		st.dec = nil
		if end >= 0 && st.err == nil {
			st.store(dec, pos, end)
		}
	}
	return end
}

func (st *vstate) literal(n *vnode, pos int, lit string, kind uint8) int {
	d := st.data
	end := pos + len(lit)
	if end > len(d) || d[pos:end] != lit {
		for i := 0; i < len(lit); i++ {
			if pos+i >= len(d) || d[pos+i] != lit[i] {
				return st.unexpected(pos+i, "in literal "+lit)
			}
		}
	}
	if n == anyNode || !st.typeOK(n, kind, pos, end) {
		return end
	}
	if n.hasEnum || n.hasConst {
		match := func(sc scalar) bool {
			return sc.kind == kind && (kind == tNull || sc.b == (lit == "true"))
		}
		st.checkEnum(n, scalar{kind: kind, b: kind == tBoolean && lit == "true"}, match, lit)
	}
	return end
}

// checkEnum checks the value key (a scalar of its kind; the zero scalar for arrays and objects)
// against the node's enum and const; match compares it with one scalar.
func (st *vstate) checkEnum(n *vnode, key scalar, match func(scalar) bool, shown string) {
	if n.hasEnum {
		found := false
		if n.enumSet != nil {
			_, found = n.enumSet[key.key()]
		} else {
			for _, e := range n.enum {
				if match(e) {
					found = true
					break
				}
			}
		}
		if !found && st.report() {
			st.fail("enum", shown+" is not one of "+scalarList(n.enum))
		}
	}
	if n.hasConst && !match(n.constv) && st.report() {
		st.fail("const", shown+" is not the required value "+n.constv.json)
	}
}

func (st *vstate) number(n *vnode, pos int) int {
	end, plainInt := st.scanNumber(pos)
	if end < 0 || n == anyNode {
		return end
	}
	lit := st.data[pos:end]
	plainLit := plainInt
	var f float64
	if plainInt && len(lit) <= 15 {
		// Up to 15 digits, an integer is exact in a float64: no need for ParseFloat.
		if n.needNum {
			f = parseSmallInt(lit)
		}
	} else {
		var err error
		f, err = strconv.ParseFloat(lit, 64)
		if err != nil {
			if st.report() {
				st.fail("type", "the number "+describe(lit)+" is out of range")
			}
			return end
		}
		// Whether the number is an integer is read from what was written: 1e-400 and
		// 1.0000000000000001 round to integral floats but are not integers.
		plainInt = integralLiteral(lit)
	}
	kind := tNumber
	if plainInt {
		kind = tInteger
	}
	if !st.typeOK(n, kind, pos, end) {
		return end
	}
	if (!plainLit || lit[0] == '-' && f == 0) && kind == tInteger && n.types&tNumber == 0 &&
		n.types != 0 && st.quiet == 0 && math.Abs(f) <= 1<<53 {
		// An integer written as 2.0 or 1e3 is valid for the schema but not for Go's integer
		// types, nor is -0 for unsigned ones: hand the decoder the plain integer, exact since
		// it is integral and within 2^53.
		st.addRewrite(pos, end, strconv.FormatFloat(f+0, 'f', -1, 64))
	}
	if n.hasEnum || n.hasConst {
		st.checkEnum(n, scalar{kind: tNumber, n: f}, func(sc scalar) bool { return sc.kind == tNumber && sc.n == f }, lit)
	}
	if n.hasMult {
		if !isMultiple(lit, f, n) {
			if st.report() {
				st.fail("multipleOf", lit+" is not a multiple of "+formatNumber(n.mult))
			}
		}
	}
	if n.hasMin || n.hasMax || n.hasExMin || n.hasExMax {
		st.checkBounds(n, lit, f)
	}
	return end
}

// scanNumber reads the syntax of the number at pos, returning its end (-1 on a syntax error)
// and whether it is written as a plain integer (no fraction, no exponent).
func (st *vstate) scanNumber(pos int) (int, bool) {
	d := st.data
	i := pos
	if d[i] == '-' {
		i++
	}
	plainInt := true
	switch {
	case i >= len(d):
		return st.syntaxError(i, "unexpected end of input in number"), false
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		for i++; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	default:
		return st.unexpected(i, "in number"), false
	}
	if i < len(d) && d[i] == '.' {
		plainInt = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return st.unexpected(i, "after decimal point in number"), false
		}
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		plainInt = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return st.unexpected(i, "in exponent of number"), false
		}
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	}
	return i, plainInt
}

// checkBounds checks the number lit, whose value is f, against minimum, maximum and their
// exclusive forms.
func (st *vstate) checkBounds(n *vnode, lit string, f float64) {
	// A number that rounds to a bound is compared with it exactly: 1.0000000000000001 is
	// greater than the maximum 1.
	if n.hasMin && (f < n.min || f == n.min && cmpExact(lit, f) < 0) {
		if st.report() {
			st.fail("minimum", lit+" is less than the minimum "+formatNumber(n.min))
		}
	}
	if n.hasMax && (f > n.max || f == n.max && cmpExact(lit, f) > 0) {
		if st.report() {
			st.fail("maximum", lit+" is greater than the maximum "+formatNumber(n.max))
		}
	}
	if n.hasExMin && (f < n.exMin || f == n.exMin && cmpExact(lit, f) <= 0) {
		if st.report() {
			st.fail("exclusiveMinimum", lit+" must be greater than "+formatNumber(n.exMin))
		}
	}
	if n.hasExMax && (f > n.exMax || f == n.exMax && cmpExact(lit, f) >= 0) {
		if st.report() {
			st.fail("exclusiveMaximum", lit+" must be less than "+formatNumber(n.exMax))
		}
	}
}

// integralLiteral reports whether the JSON number lit is an integer, exactly: every digit after
// the decimal point, once the exponent has moved it, is zero.
func integralLiteral(lit string) bool {
	mant, exp := lit, 0
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant = lit[:i]
		e := lit[i+1:]
		neg := e != "" && e[0] == '-'
		if e != "" && (e[0] == '-' || e[0] == '+') {
			e = e[1:]
		}
		for j := 0; j < len(e) && exp < 1<<30; j++ {
			exp = exp*10 + int(e[j]-'0')
		}
		if neg {
			exp = -exp
		}
	}
	mant = strings.TrimPrefix(mant, "-")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	point := len(intPart) + exp // digits at and after point are fractional
	for i := max(point, 0); i < len(digits); i++ {
		if digits[i] != '0' {
			return false
		}
	}
	return true
}

// cmpExact compares the number lit with f, the float64 it rounds to: -1, 0 or +1 as lit is less
// than, equal to or greater than f. Literals too long or with too large an exponent to compare
// cheaply count as equal.
func cmpExact(lit string, f float64) int {
	if len(lit) > 64 || math.IsInf(f, 0) {
		return 0
	}
	if i := strings.IndexAny(lit, "eE"); i >= 0 && len(lit)-i > 5 {
		return 0
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return 0
	}
	return r.Cmp(new(big.Rat).SetFloat64(f))
}

// isMultiple reports whether the number lit (f as a float64) is a multiple of n's multipleOf.
// Float division gets decimals wrong (19.99 / 0.01 is 1998.9999999999998), so the check is
// exact, against the decimal the schema's float64 stands for, for any number of moderate
// length and exponent; others, which no model writes, take the float check.
func isMultiple(lit string, f float64, n *vnode) bool {
	if n.multRat != nil && len(lit) <= 64 {
		if i := strings.IndexAny(lit, "eE"); i < 0 || len(lit)-i <= 5 { // |exponent| < 1000
			r, ok := new(big.Rat).SetString(lit)
			if ok {
				return r.Quo(r, n.multRat).IsInt()
			}
		}
	}
	q := f / n.mult
	if math.IsInf(q, 0) {
		return false
	}
	_, frac := math.Modf(q)
	return frac == 0
}

// load64 returns the eight bytes of d at i as a little-endian word (one load on the machines
// that matter).
func load64(d string, i int) uint64 {
	b := d[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// haszero has the high bit set in some byte if a byte of w is zero (and only then some byte
// has it).
func haszero(w uint64) uint64 { return (w - 0x0101010101010101) &^ w }

// scanString checks the string at pos (at its opening quote) and returns the offset after the
// closing quote and whether it has escapes.
func (st *vstate) scanString(pos int) (end int, esc bool) {
	d := st.data
	i := pos + 1
	for {
		// Eight bytes at a time while none needs a look (a quote, a backslash, a control
		// character or a byte of a multi-byte UTF-8 sequence), then one at a time.
		for i+8 <= len(d) {
			w := load64(d, i)
			if (w|(w-0x2020202020202020)|haszero(w^0x2222222222222222)|haszero(w^0x5c5c5c5c5c5c5c5c))&0x8080808080808080 != 0 {
				break
			}
			i += 8
		}
		for i < len(d) && strSafe[d[i]] {
			i++
		}
		if i >= len(d) {
			return st.syntaxError(i, "unexpected end of input in string"), false
		}
		switch c := d[i]; {
		case c == '"':
			return i + 1, esc
		case c == '\\':
			esc = true
			if i+1 >= len(d) {
				return st.syntaxError(i+1, "unexpected end of input in string escape"), false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r, ok := hex4(d, i+2)
				if !ok {
					return st.syntaxError(i, "invalid \\u escape in string"), false
				}
				i += 6
				if utf16IsSurrogate(r) {
					r2, ok := rune(0), false
					if i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' {
						r2, ok = hex4(d, i+2)
					}
					if !ok || r >= 0xDC00 || r2 < 0xDC00 || r2 > 0xDFFF {
						return st.syntaxError(i-6, "invalid surrogate pair in string"), false
					}
					i += 6
				}
			default:
				return st.syntaxError(i, "invalid escape "+strconv.Quote(d[i:i+2])+" in string"), false
			}
		case c < 0x20:
			return st.syntaxError(i, "control character "+strconv.QuoteRune(rune(c))+" in string (it must be escaped)"), false
		default:
			r, size := utf8.DecodeRuneInString(d[i:])
			if r == utf8.RuneError && size == 1 {
				return st.syntaxError(i, "invalid UTF-8 in string"), false
			}
			i += size
		}
	}
}

// parseSmallInt parses an integer literal of at most 15 digits (and a sign).
func parseSmallInt(lit string) float64 {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	var v int64
	for _, c := range lit {
		v = v*10 + int64(c-'0')
	}
	if neg {
		return -float64(v)
	}
	return float64(v)
}

func utf16IsSurrogate(r rune) bool { return r >= 0xD800 && r <= 0xDFFF }

func hex4(d string, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for j := i; j < i+4; j++ {
		c := d[j]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// strSafe marks bytes that need no attention inside a string: ASCII other than controls, quote
// and backslash.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// unescape appends the decoded content of a string body (between the quotes) already checked
// by scanString.
func unescape(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		switch s[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hex4(s, i+2)
			i += 6
			if utf16IsSurrogate(r) {
				r2, _ := hex4(s, i+2)
				r = (r-0xD800)<<10 | (r2 - 0xDC00) + 0x10000
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst
}

func (st *vstate) str(n *vnode, pos int) int {
	end, esc := st.scanString(pos)
	if end < 0 || n == anyNode {
		return end
	}
	if !st.typeOK(n, tString, pos, end) {
		return end
	}
	if !n.hasEnum && !n.hasConst && n.minLen < 0 && n.maxLen < 0 && n.pattern == nil {
		return end
	}
	// Long strings cost in proportion to their length, patterns most (Go's regular
	// expressions take linear time, but a large constant of it).
	if n.pattern != nil {
		st.work += patternCost * (end - pos)
	} else {
		st.work += (end - pos) >> 4
	}
	if st.work > st.budget {
		return st.overBudget()
	}
	s := st.data[pos+1 : end-1]
	if esc {
		st.scratch = unescape(st.scratch[:0], s)
		s = string(st.scratch)
	}
	shown := describeString(st.data[pos:end])
	if n.hasEnum || n.hasConst {
		st.checkEnum(n, scalar{kind: tString, s: s}, func(sc scalar) bool { return sc.kind == tString && sc.s == s }, shown)
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		count := utf8.RuneCountInString(s)
		if n.minLen >= 0 && count < n.minLen {
			if st.report() {
				st.fail("minLength", shown+" is shorter than the minimum length "+strconv.Itoa(n.minLen))
			}
		}
		if n.maxLen >= 0 && count > n.maxLen {
			if st.report() {
				st.fail("maxLength", shown+" is longer than the maximum length "+strconv.Itoa(n.maxLen))
			}
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		if st.report() {
			st.fail("pattern", shown+" does not match the pattern "+n.pattern.String())
		}
	}
	return end
}

func describeString(quoted string) string {
	if len(quoted) > 40 {
		return truncateUTF8(quoted, 37) + `…"`
	}
	return quoted
}

func (st *vstate) push(seg pathSeg) {
	if st.npath < len(st.path) {
		st.path[st.npath] = seg
	} else {
		st.more = append(st.more, seg)
	}
	st.npath++
}

// top returns the last step of the path.
func (st *vstate) top() pathSeg {
	if st.npath > len(st.path) {
		return st.more[len(st.more)-1]
	}
	return st.path[st.npath-1]
}

func (st *vstate) pop() {
	st.npath--
	if st.npath >= len(st.path) {
		st.more = st.more[:len(st.more)-1]
	}
}

// enter starts the array or object (typ) at pos: it takes the decoding target and checks the
// type. done reports that the value needs no further reading, having failed (end -1) or been
// skipped (end past it).
func (st *vstate) enter(n *vnode, typ uint8, pos int) (dec *dnode, dst reflect.Value, check bool, end int, done bool) {
	if st.depth++; st.depth > maxDepth {
		return nil, dst, false, st.syntaxError(pos, "nesting too deep"), true
	}
	dec, dst = derefTarget(st.dec, st.dst)
	st.dec = nil
	check = n != anyNode && st.typeOK(n, typ, pos, pos+1)
	if n != anyNode && st.indexed && (!check || !n.inside) {
		// Nothing inside the value is checked, and the first scan checked its syntax.
		st.depth--
		return nil, dst, false, st.skip(pos), true
	}
	return dec, dst, check, 0, false
}

func (st *vstate) array(n *vnode, pos int) int {
	d := st.data
	dec, dst, check, end, done := st.enter(n, tArray, pos)
	if done {
		return end
	}
	if dec != nil && (!check || dec.kind != dSlice) {
		dec = nil
	}
	if dec != nil {
		dst.Set(reflect.MakeSlice(dec.typ, 0, 0))
	}
	before := st.fails
	i := skipWS(d, pos+1)
	count := 0
	if i < len(d) && d[i] == ']' {
		i++
	} else {
		for {
			item := anyNode
			if check {
				if count < len(n.prefix) {
					item = n.prefix[count]
				} else if n.items != nil {
					item = n.items
				}
			}
			if dec != nil {
				dst.Grow(1)
				dst.SetLen(count + 1)
				st.dec, st.dst = dec.elem, dst.Index(count)
			}
			if item != anyNode || dec != nil {
				st.push(pathSeg{index: int32(count)})
				i = st.value(item, i)
				st.pop()
			} else {
				i = st.value(item, i)
			}
			st.dec = nil
			if i < 0 {
				return -1
			}
			if st.quiet > 0 && st.fails != before && st.indexed {
				// Only the verdict counts here, and it is known.
				st.depth--
				return st.skip(pos)
			}
			count++
			if i = skipWS(d, i); i < len(d) && d[i] == ',' {
				i = skipWS(d, i+1)
				continue
			}
			if i = st.closing(i, ']', "array", "array element"); i < 0 {
				return -1
			}
			break
		}
	}
	if check {
		if n.hasEnum || n.hasConst {
			st.checkEnum(n, scalar{}, func(scalar) bool { return false }, "an array")
		}
		st.checkCount(n.minItems, n.maxItems, count, "item", "Items")
	}
	st.depth-- // not on syntax errors, which end the scan
	return i
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if w, ok := strings.CutSuffix(what, "y"); ok {
		return strconv.Itoa(n) + " " + w + "ies"
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func (st *vstate) object(n *vnode, pos int) int {
	d := st.data
	dec, dst, check, end, done := st.enter(n, tObject, pos)
	if done {
		return end
	}
	if dec != nil && (!check || (dec.kind != dStruct && dec.kind != dMap)) {
		dec = nil
	}
	if dec != nil && dec.kind == dMap {
		dst.Set(reflect.MakeMap(dec.typ))
	}
	before := st.fails
	var seen members
	count := 0
	i := skipWS(d, pos+1)
	if i < len(d) && d[i] == '}' {
		i++
	} else {
		for {
			if i >= len(d) || d[i] != '"' {
				return st.unexpected(i, "looking for the beginning of an object key")
			}
			kend, esc := st.scanString(i)
			if kend < 0 {
				return -1
			}
			key := keySpan{start: i, end: kend, esc: esc}
			i = skipWS(d, kend)
			if i >= len(d) || d[i] != ':' {
				return st.unexpected(i, "after object key (expected ':')")
			}
			i = skipWS(d, i+1)
			if !check {
				i = st.value(anyNode, i)
			} else {
				i = st.member(n, dec, dst, key, i, &seen)
			}
			if i < 0 {
				return -1
			}
			if st.quiet > 0 && st.fails != before && st.indexed {
				// Only the verdict counts here, and it is known.
				st.depth--
				return st.skip(pos)
			}
			count++
			if i = skipWS(d, i); i < len(d) && d[i] == ',' {
				i = skipWS(d, i+1)
				continue
			}
			if i = st.closing(i, '}', "object", "object member"); i < 0 {
				return -1
			}
			break
		}
	}
	st.depth-- // not on syntax errors, which end the scan
	if check {
		st.objectEnd(n, dec, dst, pos, count, seen)
	}
	return i
}

// keySpan is an object key in the data: start at its opening quote, end past its closing one.
type keySpan struct {
	start, end int
	esc        bool
}

// members records which declared (props) and undeclared required (extra) properties an object
// has; both are at most 64.
type members struct{ props, extra uint64 }

// member checks (and decodes into dst, when dec is set) the value at i of the member named by
// key, returning the value's end.
func (st *vstate) member(n *vnode, dec *dnode, dst reflect.Value, key keySpan, i int, seen *members) int {
	d := st.data
	lookup := d[key.start+1 : key.end-1]
	if key.esc {
		st.scratch = unescape(st.scratch[:0], lookup)
		lookup = string(st.scratch)
	}
	if n.names != nil && st.checkName(n.names, key.start) < 0 {
		return -1
	}
	idx := n.propIdx(lookup)
	var vn *vnode
	switch {
	case idx >= 0:
		if seen.props&(1<<idx) != 0 && st.report() {
			st.fail("duplicate", "duplicate property "+strconv.Quote(n.props[idx].name))
		}
		seen.props |= 1 << idx
		vn = n.props[idx].node
	default:
		for j, r := range n.reqExtra {
			if r == lookup {
				seen.extra |= 1 << j
			}
		}
		vn = anyNode
		if n.noAdditional {
			if st.report() {
				st.fail("additionalProperties", unexpectedProperty(n, lookup))
			}
		} else if n.additional != nil {
			vn = n.additional
		}
	}
	seg := pathSeg{start: int32(key.start + 1), end: int32(key.end - 1), isKey: true, esc: key.esc}
	if dec != nil && dec.kind == dStruct && idx >= 0 && i < len(d) && d[i] != '{' && d[i] != '[' {
		// A scalar for a field: checked and stored here, without the way through value
		// (what value does for it, it does).
		if f := dec.fields[idx]; f.d != nil && f.d.kind >= dString && f.d.kind <= dDuration {
			if sn := vn.deref(); sn != anyNode && !sn.applicators {
				st.push(seg)
				i = st.scalarField(sn, f.d, dst.Field(f.index), i)
				st.pop()
				return i
			}
		}
	}
	var mapVal reflect.Value
	if dec != nil {
		switch {
		case dec.kind == dStruct && idx >= 0 && dec.fields[idx].d != nil:
			st.dec, st.dst = dec.fields[idx].d, dst.Field(dec.fields[idx].index)
		case dec.kind == dMap && idx < 0 && !n.noAdditional:
			mapVal = reflect.New(dec.elem.typ).Elem()
			st.dec, st.dst = dec.elem, mapVal
		}
	}
	if vn != anyNode || st.dec != nil {
		st.push(seg)
		i = st.value(vn, i)
		if mapVal.IsValid() && i >= 0 {
			st.setMapIndex(dst, lookup, mapVal)
		}
		st.pop()
	} else {
		i = st.value(vn, i)
	}
	st.dec = nil
	return i
}

// objectEnd checks what needs the whole object (pos at its '{'): enum, required members, counts,
// and the defaults of absent members.
func (st *vstate) objectEnd(n *vnode, dec *dnode, dst reflect.Value, pos, count int, seen members) {
	if n.hasEnum || n.hasConst {
		st.checkEnum(n, scalar{}, func(scalar) bool { return false }, "an object")
	}
	for j := range n.props {
		p := &n.props[j]
		if seen.props&(1<<j) != 0 {
			continue
		}
		if p.required {
			if st.report() {
				st.fail("required", "missing required property "+strconv.Quote(p.name))
			}
		} else if p.def != "" && st.quiet == 0 {
			if dec != nil && dec.kind == dStruct {
				if f := dec.fields[j]; f.d != nil {
					st.decodeDefault(f.d, dst.Field(f.index), p)
				}
				continue
			}
			st.addDefault(pos+1, p, count > 0)
		}
	}
	for j, r := range n.reqExtra {
		if seen.extra&(1<<j) == 0 {
			if st.report() {
				st.fail("required", "missing required property "+strconv.Quote(r))
			}
		}
	}
	st.checkCount(n.minProps, n.maxProps, count, "property", "Properties")
}

// checkCount checks an array's or object's count of items or properties against its bounds
// (-1 when absent); keyword is the suffix of the failing keyword's name.
func (st *vstate) checkCount(min, max, count int, what, keyword string) {
	if min >= 0 && count < min {
		if st.report() {
			st.fail("min"+keyword, "has "+plural(count, what)+", fewer than the minimum "+strconv.Itoa(min))
		}
	}
	if max >= 0 && count > max {
		if st.report() {
			st.fail("max"+keyword, "has "+plural(count, what)+", more than the maximum "+strconv.Itoa(max))
		}
	}
}

// closing reads the closing bracket expected at i, once no ',' follows an array element or object
// member: it returns the position past it, or -1 on a syntax error. (The ',' is read in the
// loops themselves: a call per element costs the validator's hot path.)
func (st *vstate) closing(i int, closing byte, in, after string) int {
	if i < len(st.data) && st.data[i] == closing {
		return i + 1
	}
	return st.badSeparator(i, closing, in, after)
}

func (st *vstate) badSeparator(i int, closing byte, in, after string) int {
	if i >= len(st.data) {
		return st.syntaxError(i, "unexpected end of input in "+in)
	}
	return st.unexpected(i, "after "+after+" (expected ',' or '"+string(closing)+"')")
}

// checkName validates the member name at pos (at its opening quote) against propertyNames'
// node n, whose failures are reported at the object, naming the property.
func (st *vstate) checkName(n *vnode, pos int) int {
	if st.work++; st.work > st.budget {
		return st.overBudget()
	}
	issues := 0
	if st.err != nil {
		issues = len(st.err.Issues)
	}
	end := st.str(n, pos)
	if st.err != nil && !st.err.Syntax {
		for i := issues; i < len(st.err.Issues); i++ {
			if msg := st.err.Issues[i].Message; strings.HasPrefix(msg, `"`) {
				st.err.Issues[i].Message = "property name " + msg
			} else {
				st.err.Issues[i].Message = "property name " + describeString(st.data[pos:end]) + ": " + msg
			}
		}
	}
	return end
}

// scalarField validates the scalar at pos against n, which has no applicators, and stores it in
// dst by plan d: what value followed by scan's store does, for a value known not to be a
// container.
func (st *vstate) scalarField(n *vnode, d *dnode, dst reflect.Value, pos int) int {
	if st.work++; st.work > st.budget {
		return st.overBudget()
	}
	end := st.own(n, pos)
	if end >= 0 && st.err == nil {
		st.storeTo(d, dst, pos, end)
	}
	return end
}

// deref follows a node that is only a reference to the node it refers to.
func (n *vnode) deref() *vnode {
	for n.onlyRef {
		n = n.ref
	}
	return n
}

func (n *vnode) propIdx(key string) int {
	if n.propIndex != nil {
		if i, ok := n.propIndex[key]; ok {
			return i
		}
		return -1
	}
	for i := range n.props {
		if n.props[i].name == key {
			return i
		}
	}
	return -1
}

func unexpectedProperty(n *vnode, key string) string {
	msg := "unexpected property " + strconv.Quote(key)
	if len(n.props) == 0 {
		return msg + " (no properties are allowed)"
	}
	if len(n.props) > 20 {
		return msg
	}
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString(" (allowed: ")
	for i, p := range n.props {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(p.name))
	}
	b.WriteString(")")
	return b.String()
}

func (st *vstate) addDefault(at int, p *vprop, more bool) {
	for _, e := range st.edits {
		if e.at == at && e.end == at && strings.HasPrefix(e.text, p.quoted) {
			return // the object was visited twice (through $ref or allOf)
		}
	}
	st.edits = append(st.edits, edit{at: at, end: at, text: p.quoted + p.def, more: more})
}

// addRewrite replaces data[at:end] with text.
func (st *vstate) addRewrite(at, end int, text string) {
	for _, e := range st.edits {
		if e.at == at && e.end == end {
			return
		}
	}
	st.edits = append(st.edits, edit{at: at, end: end, text: text})
}

// applyEdits returns a copy of the data with the edits made. Inserts at one offset go in the
// order they were found, separated by commas, and followed by one if the object has members.
func (st *vstate) applyEdits() string {
	size := len(st.data)
	for _, e := range st.edits {
		size += len(e.text) + 1
	}
	var out strings.Builder
	out.Grow(size)
	// Edits were recorded as values ended, so inner ones come first: sort by offset, keeping
	// the order within one offset.
	es := st.edits
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].at < es[j-1].at; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
	last := 0
	for k, e := range es {
		out.WriteString(st.data[last:e.at])
		out.WriteString(e.text)
		last = e.end
		if e.end == e.at {
			nextInsertHere := k+1 < len(es) && es[k+1].at == e.at && es[k+1].end == e.at
			if nextInsertHere || e.more {
				out.WriteByte(',')
			}
		}
	}
	out.WriteString(st.data[last:])
	return out.String()
}
