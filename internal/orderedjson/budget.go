package orderedjson

import (
	"encoding/json"
	"errors"
	"fmt"
)

// MaxInlined is the most JSON, in bytes, a schema may grow to when a provider that takes no
// $ref inlines its references. Inlining can grow a schema exponentially (each level of $defs
// that refers twice to the next doubles it: 1.7 KB became 15.5 MB), and a schema this large
// would fill a model's context anyway.
const MaxInlined = 256 << 10

// ErrTooLarge is wrapped by the error of a [Budget] that ran out.
var ErrTooLarge = errors.New("schema too large once its references are inlined")

// Budget counts the bytes of JSON a schema rewrite emits, so that inlining references stops
// early, with a clear error, instead of building megabytes first. Rewriters charge every node
// they emit, each inlined copy again. The zero value has no limit.
type Budget struct {
	// Limit is the most bytes the rewrite may emit; zero means [MaxInlined].
	Limit int
	used  int
}

// Charge counts node, an object or array the rewrite emits: its brackets, member names and
// scalar values (the objects and arrays inside it are charged when they are emitted). It
// fails with an error wrapping [ErrTooLarge] once the total passes the limit.
func (b *Budget) Charge(node any) error {
	n := 2
	switch x := node.(type) {
	case *Object:
		for k, v := range x.All() {
			n += len(k) + 4 + scalarSize(v)
		}
	case map[string]any:
		for k, v := range x {
			n += len(k) + 4 + scalarSize(v)
		}
	case []any:
		for _, v := range x {
			n += 1 + scalarSize(v)
		}
	default:
		n = scalarSize(node)
	}
	b.used += n
	limit := b.Limit
	if limit <= 0 {
		limit = MaxInlined
	}
	if b.used > limit {
		return fmt.Errorf("%w (past %d KiB: every reference becomes a copy of its definition); refer to shared definitions fewer times, or flatten the schema", ErrTooLarge, limit>>10)
	}
	return nil
}

// scalarSize estimates the JSON length of a scalar; containers count only their brackets.
func scalarSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x) + 2
	case json.Number:
		return len(x)
	case float64:
		return 8
	case bool:
		return 5
	case nil:
		return 4
	}
	return 2
}
