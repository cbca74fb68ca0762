package openai

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// branchingChain returns a schema with an optional property x whose type is a chain of depth
// $defs, each combining the next twice with keyword (anyOf or allOf): following every branch
// of it visits 2^depth schemas.
func branchingChain(keyword string, depth int, leaf string) json.RawMessage {
	var defs []string
	for i := range depth {
		defs = append(defs, fmt.Sprintf(`"L%d":{%q:[{"$ref":"#/$defs/L%d"},{"$ref":"#/$defs/L%d"}]}`, i, keyword, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"L%d":%s`, depth, leaf))
	return json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/L0"},"y":{"type":"string"}},"required":["y"],"$defs":{` + strings.Join(defs, ",") + `}}`)
}

// TestDropNullsBranchingRefs checks that dropping the nulls of strict-mode arguments costs in
// proportion to the schema and the arguments, not to the number of paths through the schema's
// references: 2^30 here, which following every path would take hours over.
func TestDropNullsBranchingRefs(t *testing.T) {
	for _, tc := range []struct {
		name, keyword, leaf, args, want string
	}{
		// acceptsNull follows every anyOf branch of a schema that rejects null.
		{"null against anyOf", "anyOf", `{"type":"string"}`, `{"x":null,"y":"a"}`, `{"y":"a"}`},
		// dropNullsIn walks every allOf branch for the same value.
		{"object against allOf", "allOf", `{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}`,
			`{"x":{"v":"s"},"y":"a"}`, `{"x":{"v":"s"},"y":"a"}`},
		{"string against allOf", "allOf", `{"type":"string"}`, `{"x":"s","y":"a"}`, `{"x":"s","y":"a"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, err := prepareSchema(branchingChain(tc.keyword, 30, tc.leaf), true)
			if err != nil || !ts.strict || ts.original == nil {
				t.Fatalf("prepareSchema: strict %v, original %v, %v; want strict with nullable properties", ts.strict, ts.original != nil, err)
			}
			done := make(chan string, 1)
			go func() { done <- dropNulls(tc.args, ts.original) }()
			select {
			case got := <-done:
				if got != tc.want {
					t.Fatalf("dropNulls(%s) = %s, want %s", tc.args, got, tc.want)
				}
			case <-time.After(time.Minute): // a hang detector, not a speed goal
				t.Fatal("dropNulls is still walking the schema's references")
			}
		})
	}
}

// BenchmarkDropNullsBranchingRefs measures dropping nulls against a chain of 30 branching
// references, against the baseline of the same arguments and a schema without references.
func BenchmarkDropNullsBranchingRefs(b *testing.B) {
	flat := json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"string"}},"required":["y"]}`)
	for _, bc := range []struct {
		name   string
		schema json.RawMessage
	}{{"flat", flat}, {"anyOf-30", branchingChain("anyOf", 30, `{"type":"string"}`)}} {
		ts, err := prepareSchema(bc.schema, true)
		if err != nil || ts.original == nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := dropNulls(`{"x":null,"y":"a"}`, ts.original); got != `{"y":"a"}` {
					b.Fatal(got)
				}
			}
		})
	}
}
