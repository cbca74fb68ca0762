package providertest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// RefChain returns a tool input schema whose $defs form a chain of depth levels, each referring
// twice to the next: small as written, 2^depth leaves (described "a leaf") once every reference
// is inlined. A provider that must inline references has to refuse a deep one.
func RefChain(depth int) json.RawMessage {
	var defs []string
	for i := range depth {
		defs = append(defs, fmt.Sprintf(`"L%d":{"type":"object","description":"level %d","properties":{"a":{"$ref":"#/$defs/L%d"},"b":{"$ref":"#/$defs/L%d"}}}`, i, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"L%d":{"type":"string","description":"a leaf"}`, depth))
	return json.RawMessage(`{"type":"object","properties":{"root":{"$ref":"#/$defs/L0"}},"required":["root"],"$defs":{` + strings.Join(defs, ",") + `}}`)
}

// BenchRefChain measures convert, which must inline references within a budget, on
// [RefChain](18), which it must refuse, against the baseline of a chain of 10 levels, whose 1,024
// inlined leaves stay within the budget: the refusal should cost about as much as a legitimate
// schema of the budget's size, not what the full inlining would build.
func BenchRefChain(b *testing.B, convert func(json.RawMessage) error) {
	for _, bc := range []struct {
		name   string
		depth  int
		refuse bool
	}{{"depth-10", 10, false}, {"depth-18", 18, true}} {
		schema := RefChain(bc.depth)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := convert(schema); (err != nil) != bc.refuse {
					b.Fatal(err)
				}
			}
		})
	}
}
