package toolsearch

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"

	"github.com/wield-ai/wield/tool"
)

// Index finds tools by a query within a session. Each session has its own tool set: what one
// session indexes is never found by another's searches.
//
// Implementations must be safe for concurrent use, across sessions and within one.
type Index interface {
	// IndexTools makes defs the tool set of session, replacing any set it had. Tool names must be
	// unique.
	IndexTools(ctx context.Context, session string, defs []tool.Definition) error
	// Search returns the session's tools that match the request, best first. A session that has
	// no tool set (never indexed, or cleared) is an error wrapping [ErrUnknownSession].
	Search(ctx context.Context, req SearchRequest) ([]Hit, error)
	// Clear forgets the session's tool set. Clearing an unknown session does nothing.
	Clear(ctx context.Context, session string) error
}

// DefaultMaxResults is the number of results of a search that does not set one.
const DefaultMaxResults = 5

// SearchRequest is one search in one session's tools.
type SearchRequest struct {
	// Session is the session whose tools are searched.
	Session string
	// Query is what to look for: words for the keyword and vector indexes, a regular expression
	// for the regex index.
	Query string
	// MaxResults caps the results; zero or less means DefaultMaxResults.
	MaxResults int
	// Filter, when set, drops the tools it returns false for (before MaxResults is applied).
	Filter func(tool.Definition) bool
}

func (r SearchRequest) limit() int {
	if r.MaxResults <= 0 {
		return DefaultMaxResults
	}
	return r.MaxResults
}

// Hit is a tool found by a search.
type Hit struct {
	// Name is the tool's name.
	Name string
	// Score says how well the tool matches; higher is better. Scores are comparable within one
	// search only, and their scale depends on the index.
	Score float64
}

// ErrUnknownSession is wrapped by the error of a search in a session that has no tool set.
var ErrUnknownSession = errors.New("toolsearch: session not indexed")

// ErrInvalidQuery is wrapped by the error of a search whose query the index cannot use, such as
// a malformed regular expression.
var ErrInvalidQuery = errors.New("toolsearch: invalid query")

// sortDefs returns defs sorted by name, or an error for an empty or duplicate name.
func sortDefs(defs []tool.Definition) ([]tool.Definition, error) {
	out := slices.Clone(defs)
	slices.SortFunc(out, func(a, b tool.Definition) int { return cmp.Compare(a.Name, b.Name) })
	for i, d := range out {
		if d.Name == "" {
			return nil, errors.New("toolsearch: tool with an empty name")
		}
		if i > 0 && out[i-1].Name == d.Name {
			return nil, fmt.Errorf("toolsearch: duplicate tool name %q", d.Name)
		}
	}
	return out, nil
}

// Fingerprint identifies a tool set by its tools' names and descriptions, whatever their order.
// A session is re-indexed when the fingerprint of its tools changes.
func Fingerprint(defs []tool.Definition) string {
	return digest(defs, false)
}

// contentKey identifies a tool set by everything an index reads, schemas included. Sessions with
// equal keys share one built index.
func contentKey(defs []tool.Definition) string {
	return digest(defs, true)
}

func digest(defs []tool.Definition, schemas bool) string {
	idx := make([]int, len(defs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(defs[a].Name, defs[b].Name),
			cmp.Compare(defs[a].Description, defs[b].Description))
	})
	h := sha256.New()
	for _, i := range idx {
		writeField(h, defs[i].Name)
		writeField(h, defs[i].Description)
		if schemas {
			writeField(h, string(defs[i].InputSchema))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeField writes s with its length first, so that no two different lists of fields hash alike.
func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	io.WriteString(h, s)
}
