package toolsearch

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/wield-ai/wield/tool"
)

// MaxRegexLength bounds the length of a regex query. Go's regular expressions run in linear
// time, but a huge pattern still costs memory to compile.
const MaxRegexLength = 1000

// RegexIndex is an [Index] whose queries are regular expressions (Go's RE2 syntax), matched
// without regard to case unless the pattern says otherwise with (?-i). Tools whose name matches rank
// first (a whole-name match before a partial one, an earlier match before a later one); tools
// whose description alone matches follow, ranked the same way.
//
// It suits models that know the naming scheme of a catalog ("github_.*issue") and catalogs
// whose names are the vocabulary, and it needs no tuning. Prose queries find little: use a
// [KeywordIndex] for those.
type RegexIndex struct {
	store store[[]tool.Definition]
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
	return x.store.put(session, contentKey(sorted), func() ([]tool.Definition, error) {
		return sorted, nil
	})
}

// Search implements [Index]. A pattern that does not compile is an error wrapping
// [ErrInvalidQuery], with the compiler's message for the model to correct it.
func (x *RegexIndex) Search(ctx context.Context, req SearchRequest) ([]Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defs, err := x.store.get(req.Session)
	if err != nil {
		return nil, err
	}
	if len(req.Query) > MaxRegexLength {
		return nil, fmt.Errorf("%w: pattern longer than %d bytes", ErrInvalidQuery, MaxRegexLength)
	}
	if strings.TrimSpace(req.Query) == "" {
		return nil, fmt.Errorf("%w: empty pattern", ErrInvalidQuery)
	}
	re, err := regexp.Compile("(?i)" + req.Query)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidQuery, err)
	}

	type match struct {
		def  int
		rank int // 0 whole name, 1 part of name, 2 description
		pos  int
	}
	var ms []match
	for i, d := range defs {
		if req.Filter != nil && !req.Filter(d) {
			continue
		}
		if loc := re.FindStringIndex(d.Name); loc != nil {
			rank := 1
			if loc[0] == 0 && loc[1] == len(d.Name) {
				rank = 0
			}
			ms = append(ms, match{i, rank, loc[0]})
		} else if loc := re.FindStringIndex(d.Description); loc != nil {
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
		hits[i] = Hit{Name: defs[m.def].Name, Score: float64(3-m.rank) + 0.5/float64(1+m.pos)}
	}
	return hits, nil
}

// Clear implements [Index].
func (x *RegexIndex) Clear(_ context.Context, session string) error {
	x.store.clear(session)
	return nil
}
