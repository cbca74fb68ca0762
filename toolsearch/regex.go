package toolsearch

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
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
type RegexIndex struct {
	store store[*regexSet]
}

type regexSet struct {
	defs []tool.Definition
	// name and desc hold the lower-cased names and descriptions for the literal prefilter; ""
	// for a text that is not ASCII, which always goes to the regular expression.
	name, desc []string
}

// NewRegexIndex returns an empty regex index.
func NewRegexIndex() *RegexIndex { return &RegexIndex{} }

// IndexTools implements [Index].
func (x *RegexIndex) IndexTools(ctx context.Context, session string, defs []tool.Definition) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	sorted, err := sortDefs(defs)
	if err != nil {
		return err
	}
	return x.store.put(session, contentKey(sorted), func() (*regexSet, error) {
		set := &regexSet{defs: sorted, name: make([]string, len(sorted)), desc: make([]string, len(sorted))}
		for i, d := range sorted {
			set.name[i] = lowerASCII(d.Name)
			set.desc[i] = lowerASCII(d.Description)
		}
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
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	set, err := x.store.get(req.Session)
	if err != nil {
		return nil, err
	}
	if len(req.Query) > MaxRegexLength {
		return nil, fmt.Errorf("%w: pattern longer than %d bytes", ErrInvalidQuery, MaxRegexLength)
	}
	if strings.TrimSpace(req.Query) == "" {
		return nil, fmt.Errorf("%w: empty pattern", ErrInvalidQuery)
	}
	pattern := "(?i)" + req.Query
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidQuery, err)
	}
	var lits []string
	exact := false // the pattern is nothing but case-insensitive literals
	if tree, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		lits = requiredLiterals(tree)
		exact = lits != nil && onlyFoldedLiterals(tree)
	}
	// find returns where re matches text, or nil. lower is text lower-cased if it is ASCII,
	// else "". A text that contains none of the literals every match needs cannot match; when
	// the pattern is only literals, the first literal found is the match. Only ASCII texts take
	// these shortcuts, since only for them is lower-casing the same as Go's case folding.
	find := func(text, lower string) []int {
		if lits == nil || lower == "" {
			return re.FindStringIndex(text)
		}
		if exact {
			var loc []int
			for _, l := range lits {
				// Leftmost match; at one position the first alternative, as RE2 picks.
				if i := strings.Index(lower, l); i >= 0 && (loc == nil || i < loc[0]) {
					loc = []int{i, i + len(l)}
				}
			}
			return loc
		}
		for _, l := range lits {
			if strings.Contains(lower, l) {
				return re.FindStringIndex(text)
			}
		}
		return nil
	}

	type match struct {
		def  int
		rank int // 0 whole name, 1 part of name, 2 description
		pos  int
	}
	var ms []match
	for i, d := range set.defs {
		if req.Filter != nil && !req.Filter(d) {
			continue
		}
		if loc := find(d.Name, set.name[i]); loc != nil {
			rank := 1
			if loc[0] == 0 && loc[1] == len(d.Name) {
				rank = 0
			}
			ms = append(ms, match{i, rank, loc[0]})
		} else if loc := find(d.Description, set.desc[i]); loc != nil {
			ms = append(ms, match{i, 2, loc[0]})
		}
	}
	slices.SortFunc(ms, func(a, b match) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.pos, b.pos), cmp.Compare(a.def, b.def))
	})
	ms = ms[:min(len(ms), req.limit())]
	hits := make([]Hit, len(ms))
	for i, m := range ms {
		// 3, 2 or 1 by rank, less a little for a later match: the order above as a number.
		hits[i] = Hit{Name: set.defs[m.def].Name, Score: float64(3-m.rank) + 0.5/float64(1+m.pos)}
	}
	return hits, nil
}

// requiredLiterals returns lower-case ASCII strings one of which every match of re contains, or
// nil when it cannot tell (a pattern of character classes, say). It is the prefilter of code
// search engines, reduced to what tool-search patterns use: literals, concatenation,
// alternation, groups and repetition.
func requiredLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if lowerASCII(s) == "" {
			return nil
		}
		return []string{strings.ToLower(s)}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		// Every part must match, so any part's literals will do: take the most selective.
		var best []string
		for _, sub := range re.Sub {
			if l := requiredLiterals(sub); l != nil && (best == nil || shortest(l) > shortest(best)) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			l := requiredLiterals(sub)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		return all
	}
	return nil
}

// onlyFoldedLiterals reports whether re is a case-insensitive literal or an alternation of
// them, possibly in groups: a pattern substring search answers exactly.
func onlyFoldedLiterals(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture:
		return onlyFoldedLiterals(re.Sub[0])
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !onlyFoldedLiterals(sub) {
				return false
			}
		}
		return true
	}
	return false
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
