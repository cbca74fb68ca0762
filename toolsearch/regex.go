package toolsearch

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wield-ai/wield/tool"
)

// MaxRegexLength bounds the length of a regex query. Go's regular expressions run in linear
// time, but a huge pattern still costs memory to compile.
const MaxRegexLength = 1000

// RegexIndex is an [Index] whose queries are regular expressions (Go's RE2 syntax), matched
// without regard to case unless the pattern says otherwise with (?-i). Tools whose name matches
// rank first (a whole-name match before a partial one, an earlier match before a later one);
// tools whose description alone matches follow, ranked the same way.
//
// It suits models that know the naming scheme of a catalog ("github_.*issue") and catalogs
// whose names are the vocabulary, and it needs no tuning. Prose queries find little: use a
// [KeywordIndex] for those.
//
// A search does not run the expression on every tool: the strings every match must contain are
// worked out from the pattern and looked up in an index of the texts' trigrams, and a pattern
// that is nothing but strings ("weather|forecast", "issues?") is answered by substring search.
// Results are always those of matching every tool with the expression.
type RegexIndex struct {
	store store[*regexSet]
}

type regexSet struct {
	defs []tool.Definition
	// name and desc hold the lower-cased names and descriptions for the literal prefilter; ""
	// for a text that is not ASCII, which always goes to the regular expression.
	name, desc []string
	// nameSig and descSig tell which texts may contain a literal, by their trigrams.
	nameSig, descSig trigramIndex
}

// NewRegexIndex returns an empty regex index.
func NewRegexIndex() *RegexIndex { return &RegexIndex{} }

// SearchToolDescription returns [RegexSearchToolDescription], which asks the model for a
// regular expression ([QueryDescriber]).
func (x *RegexIndex) SearchToolDescription() string { return RegexSearchToolDescription }

// IndexTools implements [Index].
func (x *RegexIndex) IndexTools(ctx context.Context, session string, defs []tool.Definition) error {
	return x.store.index(ctx, session, defs, func(sorted []tool.Definition) (*regexSet, error) {
		set := &regexSet{defs: sorted, name: make([]string, len(sorted)), desc: make([]string, len(sorted))}
		for i, d := range sorted {
			set.name[i] = lowerASCII(d.Name)
			set.desc[i] = lowerASCII(d.Description)
		}
		set.nameSig = newTrigramIndex(set.name, nameSignatureBits)
		set.descSig = newTrigramIndex(set.desc, descSignatureBits)
		return set, nil
	})
}

// lowerASCII returns s lower-cased if it is ASCII, else "".
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return ""
		}
	}
	return strings.ToLower(s)
}

// Search implements [Index]. A pattern that does not compile is an error wrapping
// [ErrInvalidQuery], with the compiler's message for the model to correct it.
func (x *RegexIndex) Search(ctx context.Context, req SearchRequest) ([]Hit, error) {
	set, err := x.store.get(ctx, req.Session)
	if err != nil {
		return nil, err
	}
	q, err := compileRegexQuery(req.Query)
	if err != nil {
		return nil, err
	}
	// The literals' trigrams rule out most texts before any search runs in them: inName and
	// inDesc hold the tools whose name or description may contain one of the literals, and
	// nameLit and descLit the tools each literal may be in.
	inName, inDesc := set.nameSig.all(), set.descSig.all()
	var nameLit, descLit [][]uint64
	if q.lits != nil {
		inName, nameLit = set.nameSig.candidates(q.lits)
		inDesc, descLit = set.descSig.candidates(q.lits)
	}
	top := regexMatches{k: req.limit()}
	top.ms = make([]regexMatch, 0, min(top.k, 64))
	for w := range inName {
		for either := inName[w] | inDesc[w]; either != 0; either &= either - 1 {
			bit := uint64(1) << bits.TrailingZeros64(either)
			i := w*64 + bits.TrailingZeros64(either)
			d := set.defs[i]
			if req.Filter != nil && !req.Filter(d) {
				continue
			}
			if inName[w]&bit != 0 {
				if start, end, ok := q.find(d.Name, set.name[i], i, nameLit); ok {
					rank := 1
					if start == 0 && end == len(d.Name) {
						rank = 0
					}
					top.offer(regexMatch{i, rank, start})
					continue
				}
			}
			if inDesc[w]&bit != 0 {
				if start, _, ok := q.find(d.Description, set.desc[i], i, descLit); ok {
					top.offer(regexMatch{i, 2, start})
				}
			}
		}
	}
	hits := make([]Hit, len(top.ms))
	for i, m := range top.ms {
		// 3, 2 or 1 by rank, less a little for a later match: the order above as a number.
		hits[i] = Hit{Name: set.defs[m.def].Name, Score: float64(3-m.rank) + 0.5/float64(1+m.pos)}
	}
	return hits, nil
}

// regexQuery is a compiled search pattern with the literals that narrow where it can match.
type regexQuery struct {
	re    *regexp.Regexp
	lits  []string // one of them is in every match, lower-cased
	exact bool     // lits are the pattern's matches, in the order RE2 prefers them
}

func compileRegexQuery(query string) (regexQuery, error) {
	if len(query) > MaxRegexLength {
		return regexQuery{}, fmt.Errorf("%w: pattern longer than %d bytes", ErrInvalidQuery, MaxRegexLength)
	}
	if strings.TrimSpace(query) == "" {
		return regexQuery{}, fmt.Errorf("%w: empty pattern", ErrInvalidQuery)
	}
	pattern := "(?i)" + query
	re, err := regexp.Compile(pattern)
	if err != nil {
		return regexQuery{}, fmt.Errorf("%w: %w", ErrInvalidQuery, err)
	}
	q := regexQuery{re: re}
	if tree, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		a := analyze(tree)
		q.lits, q.exact = a.required(), a.exact != nil
		if q.exact {
			q.lits = a.exact
		}
	}
	return q, nil
}

// find returns where the query matches text, the name or description of tool i, where in holds
// for each literal the tools whose text may contain it. lower is text lower-cased if it is
// ASCII, else "". A text that contains none of the literals every match needs cannot match;
// when the literals are the pattern's matches, the leftmost one found is the match. Only ASCII
// texts take these shortcuts, since only for them is lower-casing the same as Go's case folding.
func (q *regexQuery) find(text, lower string, i int, in [][]uint64) (start, end int, ok bool) {
	if q.lits == nil || lower == "" {
		return regexIndex(q.re, text)
	}
	w, bit := i/64, uint64(1)<<(i%64)
	if q.exact {
		start = -1
		for j, l := range q.lits {
			// Leftmost match; at one position the first in order, as RE2 picks.
			if in[j][w]&bit == 0 {
				continue
			}
			if at := strings.Index(lower, l); at >= 0 && (start < 0 || at < start) {
				start, end = at, at+len(l)
			}
		}
		return start, end, start >= 0
	}
	for j, l := range q.lits {
		if in[j][w]&bit != 0 && strings.Contains(lower, l) {
			return regexIndex(q.re, text)
		}
	}
	return 0, 0, false
}

type regexMatch struct {
	def  int
	rank int // 0 whole name, 1 part of name, 2 description
	pos  int
}

func (a regexMatch) compare(b regexMatch) int {
	return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.pos, b.pos), cmp.Compare(a.def, b.def))
}

// regexMatches keeps the best matches, sorted, at most k: a search for a common word matches
// thousands of tools, which need not all be sorted.
type regexMatches struct {
	k  int
	ms []regexMatch
}

func (t *regexMatches) offer(m regexMatch) {
	k := t.k
	if len(t.ms) == k && m.compare(t.ms[k-1]) >= 0 {
		return
	}
	at, _ := slices.BinarySearchFunc(t.ms, m, regexMatch.compare)
	if len(t.ms) == k {
		t.ms = t.ms[:k-1]
	}
	t.ms = slices.Insert(t.ms, at, m)
}

func regexIndex(re *regexp.Regexp, text string) (start, end int, ok bool) {
	loc := re.FindStringIndex(text)
	if loc == nil {
		return 0, 0, false
	}
	return loc[0], loc[1], true
}

// Bounds of the literal analysis: larger sets cost more to test than they save.
const (
	maxExactStrings = 32 // strings in an exact set
	maxClassChars   = 10 // characters of a class spelled out as strings
)

// literals is what the prefilter knows of a pattern or part of one, as lower-case ASCII
// strings. It is the prefilter of code search engines, reduced to what tool-search patterns use.
type literals struct {
	// exact, when not nil, holds every string the part matches in an ASCII text, lower-cased,
	// in the order a backtracking matcher tries them, which is the order RE2 prefers them: a
	// text lower-cased contains one where and only where the part matches.
	exact []string
	// req, when not nil, holds strings one of which every match contains.
	req []string
}

// required returns strings one of which every match contains, or nil when there are none.
func (l literals) required() []string {
	if l.exact != nil {
		if slices.Contains(l.exact, "") {
			return nil
		}
		return l.exact
	}
	return l.req
}

// requiredLiterals returns lower-case ASCII strings one of which every match of re contains, or
// nil when it cannot tell (a pattern of character classes, say).
func requiredLiterals(re *syntax.Regexp) []string { return analyze(re).required() }

// analyze works out the literals of re. Go's parser factors alternations ("sunset|sunrise"
// becomes "sun(?:set|rise)", "a1|a2" becomes "a[1-2]"), so concatenations of exact parts are
// multiplied out again and small classes spelled out.
func analyze(re *syntax.Regexp) literals {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return literals{exact: []string{""}}
	case syntax.OpLiteral:
		s := string(re.Rune)
		if lowerASCII(s) == "" {
			return literals{}
		}
		lower := strings.ToLower(s)
		if re.Flags&syntax.FoldCase == 0 && lower != strings.ToUpper(s) {
			// Case-sensitive letters: lower-casing the text would match other cases too.
			return literals{req: []string{lower}}
		}
		return literals{exact: []string{lower}}
	case syntax.OpCharClass:
		return literals{exact: classStrings(re.Rune)}
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpQuest:
		sub := analyze(re.Sub[0])
		if sub.exact == nil || len(sub.exact) >= maxExactStrings {
			return literals{}
		}
		if re.Flags&syntax.NonGreedy != 0 {
			return literals{exact: append([]string{""}, sub.exact...)}
		}
		return literals{exact: append(slices.Clone(sub.exact), "")}
	case syntax.OpPlus:
		return literals{req: analyze(re.Sub[0]).required()}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literals{req: analyze(re.Sub[0]).required()}
		}
	case syntax.OpConcat:
		return analyzeConcat(re.Sub)
	case syntax.OpAlternate:
		var exact, req []string
		allExact, allReq := true, true
		for _, sub := range re.Sub {
			l := analyze(sub)
			if l.exact == nil {
				allExact = false
			} else {
				exact = append(exact, l.exact...)
			}
			if r := l.required(); r == nil {
				allReq = false
			} else {
				req = append(req, r...)
			}
		}
		if allExact && len(exact) <= maxExactStrings {
			return literals{exact: dedupe(exact)}
		}
		if allReq {
			return literals{req: dedupe(req)}
		}
	}
	return literals{}
}

// analyzeConcat multiplies out runs of exact parts. The whole is exact if every part is;
// otherwise any run's strings, or any part's required ones, will do: it takes the most selective.
func analyzeConcat(subs []*syntax.Regexp) literals {
	var best []string
	consider := func(c []string) {
		if c != nil && !slices.Contains(c, "") && (best == nil || shortest(c) > shortest(best)) {
			best = c
		}
	}
	run := []string{""} // the run of exact parts so far, multiplied out
	allExact := true
	for _, sub := range subs {
		l := analyze(sub)
		if l.exact != nil && len(run)*len(l.exact) <= maxExactStrings {
			run = product(run, l.exact)
			continue
		}
		allExact = false
		consider(run)
		consider(l.required())
		run = []string{""}
		if l.exact != nil { // too many to multiply in: start the next run with it
			run = l.exact
		}
	}
	if allExact {
		return literals{exact: run}
	}
	consider(run)
	return literals{req: best}
}

// product returns every string of a followed by every string of b, in the order a backtracking
// matcher tries them: a's first string with each of b's, then a's second, and so on.
func product(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return dedupe(out)
}

// dedupe drops later copies of a string, keeping the order.
func dedupe(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// classStrings returns the ASCII characters of a character class (pairs of range bounds) as
// lower-case strings, or nil when lower-casing an ASCII text would not tell the class's
// characters apart from others: a letter whose other case is not in the class, or too many
// characters to spell out. Characters beyond ASCII are left out; texts that hold any are not
// lower-cased and always go to the regular expression.
func classStrings(ranges []rune) []string {
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	var out []string
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < utf8.RuneSelf; r++ {
			lower, upper := unicode.ToLower(r), unicode.ToUpper(r)
			if !in(lower) || !in(upper) {
				return nil
			}
			if s := string(lower); !slices.Contains(out, s) {
				if len(out) == maxClassChars {
					return nil
				}
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func shortest(ss []string) int {
	n := len(ss[0])
	for _, s := range ss[1:] {
		n = min(n, len(s))
	}
	return n
}

// Clear implements [Index].
func (x *RegexIndex) Clear(_ context.Context, session string) error {
	x.store.clear(session)
	return nil
}
