package toolsearch

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch/internal/topk"
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

// QueryDescriber is implemented by an [Index] whose queries are not plain words, such as
// [RegexIndex]'s regular expressions: SearchToolDescription tells the model how to write them.
// The [Advisor] uses it as the search tool's description when [Config] sets none, so an index of
// one's own gets the same treatment as the ones in this package.
type QueryDescriber interface {
	SearchToolDescription() string
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

// hitsOf names the tools of defs found by number, in the order found.
func hitsOf(defs []tool.Definition, found []topk.Item) []Hit {
	hits := make([]Hit, len(found))
	for i, f := range found {
		hits[i] = Hit{Name: defs[f.ID].Name, Score: f.Score}
	}
	return hits
}

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

// contentKey identifies a tool set by everything an index reads (names, descriptions,
// input and output schemas), whatever the order of its tools. Sessions with equal keys share one built index.
// Keys are comparable within one process only: they are keys of in-memory state, not values
// to store.
func contentKey(defs []tool.Definition) string {
	var k keyHash
	for _, d := range defs {
		k.add(d)
	}
	return k.String()
}

// keyHash computes a contentKey tool by tool.
type keyHash struct {
	n   uint64
	sum [2]uint64
}

func (k *keyHash) add(d tool.Definition) { k.addSum(toolSum(d)) }

// addSum adds one tool by its toolSum.
func (k *keyHash) addSum(x [2]uint64) {
	k.n++
	k.sum[0] += x[0]
	k.sum[1] += x[1]
}

// toolSum is one tool's part of a contentKey, one value per hash lane.
func toolSum(d tool.Definition) (x [2]uint64) {
	for lane, seed := range digestSeeds {
		// Fields are hashed apart and chained, so text moved from one field to the next
		// changes the hash.
		h := mix(maphash.String(seed, d.Name))
		h = mix(h + maphash.String(seed, d.Description))
		h = mix(h + maphash.Bytes(seed, d.InputSchema))
		x[lane] = mix(h + maphash.Bytes(seed, d.OutputSchema))
	}
	return x
}

func (k *keyHash) String() string {
	var out [24]byte
	binary.LittleEndian.PutUint64(out[:8], k.n)
	binary.LittleEndian.PutUint64(out[8:], k.sum[0])
	binary.LittleEndian.PutUint64(out[16:], k.sum[1])
	return hex.EncodeToString(out[:])
}

// digestSeeds key the two 64-bit hash lanes of contentKey, which hashes each tool on its own
// and adds the hashes up: addition does not care about order, so no sorting is needed, and a
// tool listed twice counts twice. maphash is several times faster than a
// cryptographic hash on the large catalogs this runs on at every request; its seeds are chosen
// once per process, which is all the stability in-memory keys need.
var digestSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
