package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// adversarialGeneral are schemas that cost the validator per keyword value as well as per
// visit, or that only jsonschema-go checks (the fallback path): large enums, many paths, every
// general keyword at once. Each comes with a hostile argument builder.
var adversarialGeneral = []struct {
	name, schema string
	general      bool // checked by jsonschema-go
	args         func(size int) string
}{
	// Baselines: the same arguments against the same shapes without the costly keywords.
	{"baseline strings", `{"type":"array","items":{"type":"string","maxLength":3}}`, false, stringArray},
	{"baseline numbers", `{"type":"array","items":{"type":"number","maximum":-1}}`, false, numberArray},
	{"baseline object", `{"type":"object","additionalProperties":{"type":"array","items":{"type":"integer"}}}`, false, wideObject},
	{"enum of 50,000 strings", `{"type":"array","items":{"enum":` + bigEnum(50000) + `}}`, false, stringArray},
	// The general path takes enums of up to about maxGeneralPaths values (each counts as a path).
	{"enum of 10,000 strings, general", `{"type":"array","uniqueItems":true,"items":{"enum":` + bigEnum(10000) + `}}`, true, stringArray},
	{"enum of 10,000 strings, general, matching", `{"type":"array","uniqueItems":true,"items":{"enum":` + bigEnum(10000) + `}}`, true, enumTail10k},
	{"enum of 50,000 strings, matching", `{"type":"array","items":{"enum":` + bigEnum(50000) + `}}`, false, enumTail},
	{"enum of 50,000 numbers", `{"type":"array","items":{"enum":` + bigNumberEnum(50000) + `}}`, false, numberArray},
	{"anyOf of enums", `{"type":"array","items":{"anyOf":[{"enum":` + bigEnum(20000) + `},{"enum":` + bigEnum(20000) + `}]}}`, false, stringArray},
	{"general keywords", `{"type":"object","patternProperties":{"^a":{"type":"array","contains":{"const":1},"uniqueItems":true}},` +
		`"propertyNames":{"pattern":"^[a-z]+$"},"dependentSchemas":{"ab":{"required":["ac"]}},` +
		`"if":{"required":["x"]},"then":{"minProperties":2},"else":{"maxProperties":100000}}`, true, wideObject},
	{"many paths", manyPaths(), true, stringArray},
}

func bigEnum(n int) string {
	return list('[', ']', math.MaxInt, func(i int) (string, bool) { return fmt.Sprintf(`"value-%d"`, i), i < n })
}

func bigNumberEnum(n int) string {
	return list('[', ']', math.MaxInt, func(i int) (string, bool) { return fmt.Sprintf(`%d.5`, i), i < n })
}

// list writes open, the items item returns for 0, 1, … separated by commas, and close: items
// while item says there is one and the text is shorter than limit bytes.
func list(open, close byte, limit int, item func(i int) (string, bool)) string {
	var b strings.Builder
	b.WriteByte(open)
	for i := 0; b.Len() < limit; i++ {
		s, ok := item(i)
		if !ok {
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s)
	}
	b.WriteByte(close)
	return b.String()
}

// manyPaths is a schema with close to the most paths the general validator takes: items through
// a chain of allOf levels, each holding two alternatives.
func manyPaths() string {
	s := `{"type":"string","minLength":1}`
	for range 12 {
		s = `{"allOf":[` + s + `,` + s + `]}`
	}
	return `{"type":"array","uniqueItems":true,"items":` + s + `}`
}

// stringArray is an array of distinct strings no enum holds, about size bytes.
func stringArray(size int) string {
	return list('[', ']', size-16, func(i int) (string, bool) { return fmt.Sprintf(`"v%d"`, i), true })
}

// enumTail is an array of distinct values of bigEnum(50000), from its end, about size bytes:
// values an enum scan finds last.
func enumTail(size int) string { return tailOf(50000, size) }

// enumTail10k is enumTail for bigEnum(10000).
func enumTail10k(size int) string { return tailOf(10000, size) }

// tailOf is an array of distinct values of bigEnum(n), from its end, about size bytes.
func tailOf(n, size int) string {
	return list('[', ']', size-16, func(i int) (string, bool) { return fmt.Sprintf(`"value-%d"`, n-1-i), i < n })
}

// numberArray is an array of distinct numbers no enum holds, about size bytes.
func numberArray(size int) string {
	return list('[', ']', size-16, func(i int) (string, bool) { return fmt.Sprintf(`%d.25`, i), true })
}

// wideObject is an object of many "a…" members holding arrays, about size bytes.
func wideObject(size int) string {
	return list('{', '}', size-32, func(i int) (string, bool) {
		return fmt.Sprintf(`"a%s":[2,3,1]`, strings.Repeat("b", i%7+1)+fmt.Sprint(i)), true
	})
}

// BenchmarkAdversarialGeneral validates hostile arguments of up to 1 MB against the schemas of
// adversarialGeneral, on the path each takes (single pass or jsonschema-go); like
// BenchmarkAdversarial, every case must stay well under 100 ms per validation.
func BenchmarkAdversarialGeneral(b *testing.B) {
	for _, tc := range adversarialGeneral {
		v, err := Compile(json.RawMessage(tc.schema))
		if err != nil {
			b.Fatalf("%s: %v", tc.name, err)
		}
		if general := v.root == nil; general != tc.general {
			b.Fatalf("%s: general %v, want %v (%s)", tc.name, general, tc.general, v.unsupported)
		}
		// 160 bytes: the most values a schema with a 10,000-value enum takes on the general path.
		for _, size := range []int{160, 1 << 10, 64 << 10, 1 << 20} {
			args := tc.args(size)
			b.Run(fmt.Sprintf("%s/%dB", tc.name, size), func(b *testing.B) {
				b.SetBytes(int64(len(args)))
				start := cpuTime()
				for b.Loop() {
					_ = v.ValidateString(args)
				}
				b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			})
		}
	}
}
