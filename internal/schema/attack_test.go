package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used, in user and system mode.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Schemas from models and third-party servers are hostile input: none may crash the process or
// make validation hang, whatever its references and however it nests.

// endless are schemas that apply themselves to the same value without end, through every form a
// reference can take. jsonschema-go resolves them all; validating with any of them recursed until
// the process died of a stack overflow.
var endless = []struct{ name, schema string }{
	{"pointer", `{"$ref":"#"}`},
	{"absolute URI of the root", `{"$id":"http://example.com/s","$ref":"http://example.com/s"}`},
	{"network-path reference", `{"$id":"http://example.com/s","$ref":"//example.com/s"}`},
	{"reference against $id", `{"$id":"http://example.com/root","$defs":{"a":{"$id":"a","allOf":[{"$ref":"a"}]}},"$ref":"a"}`},
	{"nested $id bases", `{"$id":"http://x.test/","$defs":{"b":{"$id":"b/","$defs":{"c":{"$id":"c","anyOf":[{"$ref":"http://x.test/b/c"}]}}}},"$ref":"b/c"}`},
	{"anchor", `{"$anchor":"me","$ref":"#me"}`},
	{"anchor through allOf", `{"$defs":{"a":{"$anchor":"x","allOf":[{"$ref":"#x"}]}},"$ref":"#/$defs/a"}`},
	{"pointer into properties", `{"properties":{"a":{"$ref":"#/properties/a"}}}`},
	{"pointer into items", `{"items":{"not":{"$ref":"#/items"}}}`},
	{"percent-encoded pointer", `{"$defs":{"a b":{"oneOf":[{"$ref":"#/$defs/a%20b"}]}},"$ref":"#/$defs/a%20b"}`},
	{"if", `{"$defs":{"a":{"if":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`},
	{"dependentSchemas", `{"dependentSchemas":{"x":{"$ref":"#"}}}`},
	{"dynamic reference", `{"$dynamicAnchor":"m","$dynamicRef":"#m"}`},
	{"draft-07 $id anchor", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"#a","allOf":[{"$ref":"#a"}]}},"$ref":"#/definitions/a"}`},
	{"with a keyword only jsonschema-go checks", `{"uniqueItems":true,"$id":"http://example.com/u","anyOf":[{"$ref":"http://example.com/u"}]}`},
}

func TestCompileRefusesEndlessReferences(t *testing.T) {
	for _, tc := range endless {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(json.RawMessage(tc.schema))
			if err == nil || !strings.Contains(err.Error(), "invalid JSON Schema") {
				t.Fatalf("Compile(%s) = %v, want it refused", tc.schema, err)
			}
			t.Log(err)
		})
	}
}

// References of every form resolve to the schema jsonschema-go resolves them to, so the single
// pass follows them too.
func TestReferenceForms(t *testing.T) {
	for _, tc := range []struct{ schema, valid, invalid string }{
		{`{"$id":"http://example.com/root","$defs":{"n":{"$id":"num","type":"number"}},"properties":{"a":{"$ref":"num"}}}`, `{"a":1}`, `{"a":"x"}`},
		{`{"$id":"http://example.com/root","$defs":{"n":{"$id":"num","type":"number"}},"properties":{"a":{"$ref":"http://example.com/num"}}}`, `{"a":1}`, `{"a":"x"}`},
		{`{"$id":"http://example.com/root","$defs":{"n":{"$id":"num","type":"number"}},"properties":{"a":{"$ref":"//example.com/num"}}}`, `{"a":1}`, `{"a":"x"}`},
		{`{"$defs":{"s":{"$anchor":"str","type":"string"}},"items":{"$ref":"#str"}}`, `["a"]`, `[1]`},
		{`{"properties":{"a":{"type":"integer"},"b":{"$ref":"#/properties/a"}}}`, `{"b":2}`, `{"b":2.5}`},
		{`{"$id":"http://example.com/t","type":"object","properties":{"kids":{"type":"array","items":{"$ref":"http://example.com/t"}}},"additionalProperties":false}`, `{"kids":[{"kids":[]}]}`, `{"kids":[{"x":1}]}`},
	} {
		v, err := Compile(json.RawMessage(tc.schema))
		if err != nil {
			t.Fatalf("Compile(%s): %v", tc.schema, err)
		}
		if why := v.General(); why != "" {
			t.Errorf("schema %s needs the general validator: %s", tc.schema, why)
		}
		checkAgreement(t, tc.schema, v, []byte(tc.valid))
		checkAgreement(t, tc.schema, v, []byte(tc.invalid))
		if err := v.ValidateString(tc.valid); err != nil {
			t.Errorf("schema %s, %s: %v", tc.schema, tc.valid, err)
		}
		if err := v.ValidateString(tc.invalid); err == nil {
			t.Errorf("schema %s accepts %s", tc.schema, tc.invalid)
		}
	}
}

// Recursive schemas that only jsonschema-go can check are refused: it neither remembers what it
// has worked out nor stops, so a recursive schema can cost it time exponential in the depth of
// the arguments.
func TestCompileRefusesRecursiveGeneralSchemas(t *testing.T) {
	for _, schema := range []string{
		`{"uniqueItems":true,"anyOf":[{"type":"array","items":{"$ref":"#"}},{"type":"array","items":{"$ref":"#"}}]}`,
		`{"if":{"type":"array"},"then":{"items":{"$ref":"#"}},"else":{"type":"string"}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"t":{"type":"array","items":{"$ref":"#/definitions/t"}}},"$ref":"#/definitions/t"}`,
	} {
		if _, err := Compile(json.RawMessage(schema)); err == nil || !strings.Contains(err.Error(), "recursive") {
			t.Errorf("Compile(%s) = %v, want it refused as recursive", schema, err)
		}
	}
}

// adversarial are recursive schemas whose naive validation takes time exponential in the depth
// of the arguments: alternatives that each descend into the same items.
var adversarial = []struct{ name, schema string }{
	{"anyOf", `{"anyOf":[{"type":"array","items":{"$ref":"#"}},{"type":"array","items":{"$ref":"#"},"minItems":0}]}`},
	{"oneOf", `{"oneOf":[{"type":"array","items":{"$ref":"#"}},{"type":"array","items":{"$ref":"#"},"maxItems":1000000}]}`},
	{"allOf", `{"allOf":[{"type":"array","items":{"$ref":"#"}},{"items":{"$ref":"#"}}]}`},
	{"ref and siblings", `{"$defs":{"a":{"type":"array","items":{"$ref":"#"}}},"$ref":"#/$defs/a","items":{"$ref":"#"}}`},
	{"not", `{"not":{"not":{"type":"array","items":{"$ref":"#"}}},"items":{"$ref":"#"}}`},
	{"tree", `{"$defs":{"node":{"oneOf":[` +
		`{"type":"object","properties":{"kind":{"const":"leaf"},"value":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["kind"]},` +
		`{"type":"object","properties":{"kind":{"const":"branch"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["kind","children"]}]}},` +
		`"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"]}`},
	{"many alternatives", manyAlternatives(64)},
	{"patterns", `{"anyOf":[` + strings.Repeat(`{"type":"string","pattern":"^(a|b)*c$"},`, 31) + `{"type":"array","items":{"$ref":"#"}}]}`},
}

func manyAlternatives(n int) string {
	var b strings.Builder
	b.WriteString(`{"anyOf":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"array","items":{"$ref":"#"},"minItems":%d}`, n-i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// nested returns an array nested depth deep around a string, which no alternative accepts,
// so that every alternative is tried at every level.
func nested(depth int) string {
	return strings.Repeat("[", depth) + `"x"` + strings.Repeat("]", depth)
}

// wide returns an array of n nested arrays of the given depth.
func wide(n, depth int) string {
	one := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	return "[" + strings.Repeat(one+",", n-1) + one + "]"
}

// tree returns a tree argument for the tree schema, about size bytes.
func tree(size int) string {
	var b strings.Builder
	b.WriteString(`{"root":`)
	var node func(depth int)
	node = func(depth int) {
		if depth == 0 || b.Len() > size {
			b.WriteString(`{"kind":"leaf","value":"v"}`)
			return
		}
		b.WriteString(`{"kind":"branch","children":[`)
		node(depth - 1)
		b.WriteByte(',')
		node(depth - 1)
		b.WriteString(`]}`)
	}
	for b.Len() < size {
		node(12)
		if b.Len() < size {
			b.WriteString(`,"root":`) // a duplicate member: the argument is invalid, but scanned
		}
	}
	b.WriteByte('}')
	return b.String()
}

// arguments returns hostile arguments of about size bytes for a schema of adversarial.
func arguments(name string, size int) map[string]string {
	if name == "tree" {
		return map[string]string{"tree": tree(size)}
	}
	out := map[string]string{
		"nested": nested(max(1, min(size/2-2, maxDepth-1))),
		"wide":   wide(max(1, size/24), 10),
	}
	if name == "patterns" {
		out["long string"] = `"` + strings.Repeat("ab", size/2) + `"`
	}
	return out
}

// costOf validates args with v as Prepare does and returns the visits it took.
func costOf(v *Validator, args string) (int, error) {
	state := newState(args)
	st := &state
	pos := skipWS(args, 0)
	if v.applicators {
		st.buildIndex(pos)
	}
	if st.err == nil {
		st.value(v.root, pos)
	}
	if st.err != nil {
		return st.work, st.err
	}
	return st.work, nil
}

// Validation cost is bounded by the size of the arguments, whatever the schema: the memo makes
// the adversarial schemas linear, and the budget stops what is not.
func TestValidationCostIsBounded(t *testing.T) {
	for _, tc := range adversarial {
		v, err := Compile(json.RawMessage(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if v.root == nil {
			t.Fatalf("%s: needs the general validator: %s", tc.name, v.unsupported)
		}
		// The benchmark takes the sizes up to 1 MB; the count of work is the same at any size.
		for _, size := range []int{62, 20 << 10, 200 << 10} {
			for kind, args := range arguments(tc.name, size) {
				work, err := costOf(v, args)
				var ae *ArgumentError
				if err != nil && !errors.As(err, &ae) {
					t.Fatalf("%s, %s of %d bytes: %v", tc.name, kind, len(args), err)
				}
				// Work is counted before it is done: counted beyond the budget, it is refused.
				limited := ae != nil && ae.Issues[0].Keyword == "limit"
				if limit := minBudget + budgetPerByte*len(args); work > limit && !limited {
					t.Errorf("%s, %s of %d bytes: %d visits, over the budget of %d, and not refused", tc.name, kind, len(args), work, limit)
				}
				t.Logf("%s, %s of %d bytes: cost %d (%.1f per byte), refused as too costly: %v", tc.name, kind, len(args), work, float64(work)/float64(len(args)), limited)
			}
		}
	}
}

// Small adversarial arguments get the verdict jsonschema-go gives, which it can still compute.
func TestAdversarialVerdicts(t *testing.T) {
	for _, tc := range adversarial {
		v := mustValidator(t, tc.schema)
		// Small enough for jsonschema-go, which tries every alternative at every level.
		args := []string{nested(1), `[[]]`, `[]`}
		switch {
		case tc.name == "tree":
			args = append(args, tree(100))
		case strings.Contains(tc.name, "alternatives"), tc.name == "patterns":
		default:
			args = append(args, nested(2), nested(3), wide(2, 2), wide(2, 3), `[[],[[]]]`)
		}
		for _, args := range args {
			checkAgreement(t, tc.schema, v, []byte(args))
		}
	}
}

// BenchmarkAdversarial validates hostile arguments of up to 1 MB against the adversarial
// schemas; every case must stay well under 100 ms per validation.
func BenchmarkAdversarial(b *testing.B) {
	for _, tc := range adversarial {
		v, err := Compile(json.RawMessage(tc.schema))
		if err != nil {
			b.Fatal(err)
		}
		for _, size := range []int{62, 20 << 10, 1 << 20} {
			for kind, args := range arguments(tc.name, size) {
				b.Run(fmt.Sprintf("%s/%s/%dB", tc.name, kind, size), func(b *testing.B) {
					b.SetBytes(int64(len(args)))
					// CPU time as well as wall time: the machines this runs on are shared, and
					// wall time counts the time other processes hold the CPU.
					start := cpuTime()
					for b.Loop() {
						_ = v.ValidateString(args)
					}
					b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
				})
			}
		}
	}
}
