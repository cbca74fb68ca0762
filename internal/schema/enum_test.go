package schema

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// A long enum is looked up in a set: same verdicts as jsonschema-go, for every kind of scalar,
// and a message that lists a few of the values, not all.
func TestLongEnum(t *testing.T) {
	var values []string
	for i := range 40 {
		values = append(values, `"s`+strings.Repeat("x", i)+`"`)
	}
	values = append(values, `1`, `-0`, `2.5`, `1e2`, `true`, `null`, `""`, `"é"`, `"a\"b"`)
	schema := `{"enum":[` + strings.Join(values, ",") + `]}`
	v := mustValidator(t, schema)
	if v.root == nil {
		t.Fatalf("not checked by the single pass: %s", v.unsupported)
	}
	for _, inst := range []string{
		`"sxxx"`, `"sxxxx"`, `"s"`, `"t"`, `1`, `1.0`, `0`, `-0`, `0.0`, `2.5`, `2.50`, `100`, `1e2`, `3`,
		`true`, `false`, `null`, `""`, `"é"`, `"\u00e9"`, `"a\"b"`, `"a\u0022b"`, `[]`, `{}`, `[1]`,
	} {
		checkAgreement(t, schema, v, []byte(inst))
	}
	err := v.ValidateString(`"nope"`)
	if err == nil || len(err.Error()) > 500 || !strings.Contains(err.Error(), "29 more") {
		t.Errorf("message: %v", err)
	}
	// Inside an object, as a tool's parameter.
	v = mustValidator(t, `{"type":"object","properties":{"unit":{"enum":[`+strings.Join(values, ",")+`]}}}`)
	for _, inst := range []string{`{"unit":"sxx"}`, `{"unit":"sxy"}`, `{"unit":false}`, `{"unit":null}`} {
		checkAgreement(t, "unit", v, []byte(inst))
	}
}

// jsonschema-go scans an enum for each value it checks, so on the general path a large enum
// counts as many paths: too large, the schema is refused; large, its arguments are refused
// beyond a few values rather than checked for minutes.
func TestGeneralEnumCost(t *testing.T) {
	enum := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"v` + strings.Repeat("x", i%5) + `-` + string(rune('a'+i%26)) + `-` + itoa(i) + `"`)
		}
		return "[" + b.String() + "]"
	}
	if _, err := Compile([]byte(`{"type":"array","uniqueItems":true,"items":{"enum":` + enum(20000) + `}}`)); err == nil {
		t.Error("a general schema with an enum of 20,000 values is accepted")
	}
	v := mustValidator(t, `{"type":"array","uniqueItems":true,"items":{"enum":`+enum(10000)+`}}`)
	if v.root != nil {
		t.Fatal("the schema is not checked by jsonschema-go")
	}
	var values []string
	for i := 9999; i > 9900; i-- {
		values = append(values, `"v`+strings.Repeat("x", i%5)+`-`+string(rune('a'+i%26))+`-`+itoa(i)+`"`)
	}
	if err := v.ValidateString("[" + strings.Join(values[:5], ",") + "]"); err != nil {
		t.Errorf("five values of the enum: %v", err)
	}
	var ae *ArgumentError
	if err := v.ValidateString("[" + strings.Join(values, ",") + "]"); !errors.As(err, &ae) || ae.Issues[0].Keyword != "limit" {
		t.Errorf("a hundred values of the enum: %v, want them refused as too costly to check", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
