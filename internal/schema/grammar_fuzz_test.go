package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Byte-level mutation of schema text rarely yields another valid schema, so FuzzCompile explores
// little beyond its seeds. The targets here build schemas and arguments from the fuzzer's bytes
// through a grammar: every input is a valid schema, mixing the single pass's keywords, references
// in several forms (recursive ones too), and keywords only jsonschema-go checks, so both the fast
// path and the fallback path are exercised on shapes no seed has.

// grammar draws choices from the fuzzer's bytes; past their end every choice is 0.
type grammar struct {
	data []byte
	pos  int
	defs int // how many $defs the schema has, for references
}

func (g *grammar) next() byte {
	if g.pos >= len(g.data) {
		return 0
	}
	b := g.data[g.pos]
	g.pos++
	return b
}

func (g *grammar) choose(n int) int { return int(g.next()) % n }

func (g *grammar) small() int { return g.choose(5) }

var grammarStrings = []string{"", "a", "ab", "abc", "é", "x\\ny", "a/b", "~0", "zz"}

func (g *grammar) str() string { return grammarStrings[g.choose(len(grammarStrings))] }

var grammarNumbers = []string{"0", "1", "2", "-1", "2.5", "0.25", "100", "1e3", "-0.5"}

func (g *grammar) num() string { return grammarNumbers[g.choose(len(grammarNumbers))] }

func (g *grammar) scalar() string {
	switch g.choose(5) {
	case 0:
		return "null"
	case 1:
		return [2]string{"true", "false"}[g.choose(2)]
	case 2:
		return g.num()
	}
	return fmt.Sprintf("%q", g.str())
}

var grammarTypes = []string{"null", "boolean", "integer", "number", "string", "array", "object"}

// schema writes a subschema of at most depth levels.
func (g *grammar) schema(depth int) string {
	if depth <= 0 {
		switch g.choose(4) {
		case 0:
			return "true"
		case 1:
			return fmt.Sprintf(`{"type":%q}`, grammarTypes[g.choose(len(grammarTypes))])
		case 2:
			return g.ref()
		}
		return fmt.Sprintf(`{"const":%s}`, g.scalar())
	}
	var kw []string
	for n := 1 + g.choose(3); n > 0; n-- {
		kw = append(kw, g.keyword(depth-1))
	}
	return "{" + strings.Join(dedupe(kw), ",") + "}"
}

// dedupe keeps the first of keywords with the same name: a schema object may not repeat one.
func dedupe(kw []string) []string {
	seen := map[string]bool{}
	out := kw[:0]
	for _, k := range kw {
		name, _, _ := strings.Cut(k, ":")
		if !seen[name] {
			seen[name] = true
			out = append(out, k)
		}
	}
	return out
}

func (g *grammar) ref() string {
	switch n := g.choose(g.defs + 1); n {
	case 0:
		return `{"$ref":"#"}`
	default:
		return fmt.Sprintf(`{"$ref":"#/$defs/d%d"}`, n-1)
	}
}

func (g *grammar) list(depth int) string {
	var parts []string
	for n := 1 + g.choose(3); n > 0; n-- {
		parts = append(parts, g.schema(depth))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func (g *grammar) keyword(depth int) string {
	switch g.choose(30) {
	case 0:
		return fmt.Sprintf(`"type":%q`, grammarTypes[g.choose(len(grammarTypes))])
	case 1:
		return fmt.Sprintf(`"type":[%q,%q]`, grammarTypes[g.choose(len(grammarTypes))], grammarTypes[g.choose(len(grammarTypes))])
	case 2:
		return fmt.Sprintf(`"enum":[%s,%s,%s]`, g.scalar(), g.scalar(), g.scalar())
	case 3:
		return fmt.Sprintf(`"const":%s`, g.scalar())
	case 4:
		return fmt.Sprintf(`"minimum":%s`, g.num())
	case 5:
		return fmt.Sprintf(`"exclusiveMaximum":%s`, g.num())
	case 6:
		return fmt.Sprintf(`"multipleOf":%s`, []string{"1", "0.5", "3", "0.25"}[g.choose(4)])
	case 7:
		return fmt.Sprintf(`"minLength":%d`, g.small())
	case 8:
		return fmt.Sprintf(`"maxLength":%d`, g.small())
	case 9:
		return fmt.Sprintf(`"pattern":%q`, []string{"^a", "b$", "^(a|b)*$", "é", "^[a-z]{2}"}[g.choose(5)])
	case 10:
		return `"items":` + g.schema(depth)
	case 11:
		return `"prefixItems":` + g.list(depth)
	case 12:
		return fmt.Sprintf(`"minItems":%d`, g.small())
	case 13:
		return fmt.Sprintf(`"maxItems":%d`, g.small())
	case 14:
		return fmt.Sprintf(`"properties":{"a":%s,"b":%s}`, g.schema(depth), g.schema(depth))
	case 15:
		return fmt.Sprintf(`"required":[%q]`, []string{"a", "b", "c"}[g.choose(3)])
	case 16:
		return `"additionalProperties":` + g.schema(depth)
	case 17:
		return fmt.Sprintf(`"maxProperties":%d`, g.small())
	case 18:
		return `"anyOf":` + g.list(depth)
	case 19:
		return `"oneOf":` + g.list(depth)
	case 20:
		return `"allOf":` + g.list(depth)
	case 21:
		return `"not":` + g.schema(depth)
	case 22:
		r := g.ref()
		return r[1 : len(r)-1]
	case 23:
		return fmt.Sprintf(`"default":%s`, g.scalar())
	// Keywords only jsonschema-go checks: the fallback path.
	case 24:
		return `"uniqueItems":true`
	case 25:
		return fmt.Sprintf(`"if":%s,"then":%s,"else":%s`, g.schema(depth), g.schema(depth), g.schema(depth))
	case 26:
		return `"contains":` + g.schema(depth)
	case 27:
		return `"patternProperties":{"^a":` + g.schema(depth) + `}`
	case 28:
		return `"propertyNames":` + g.schema(depth)
	}
	return `"dependentRequired":{"a":["b"]}`
}

// document writes a whole schema: $defs first, then the root's keywords.
func (g *grammar) document() string {
	g.defs = g.choose(4)
	var defs []string
	for i := range g.defs {
		defs = append(defs, fmt.Sprintf(`"d%d":%s`, i, g.schema(3)))
	}
	root := g.schema(4)
	if len(defs) == 0 || root == "true" {
		return root
	}
	if !strings.HasPrefix(root, "{") {
		return root
	}
	sep := ","
	if root == "{}" {
		sep = ""
	}
	return `{"$defs":{` + strings.Join(defs, ",") + `}` + sep + root[1:]
}

// value writes a JSON value of at most depth levels.
func (g *grammar) value(depth int) string {
	k := g.choose(7)
	if depth <= 0 {
		k %= 3
	}
	switch k {
	case 0:
		return g.scalar()
	case 1:
		return fmt.Sprintf("%q", g.str())
	case 2:
		return g.num()
	case 3, 4:
		var items []string
		for n := g.choose(4); n > 0; n-- {
			items = append(items, g.value(depth-1))
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	var members []string
	for n := g.choose(4); n > 0; n-- {
		members = append(members, fmt.Sprintf("%q:%s", []string{"a", "b", "c", "ab", "x"}[g.choose(5)], g.value(depth-1)))
	}
	return "{" + strings.Join(members, ",") + "}"
}

// checkCompiled holds a compiled validator to the contracts on one argument: only
// *ArgumentError, the verdict of jsonschema-go, defaults that keep arguments valid, and, on the
// single pass, work within the budget.
func checkCompiled(t *testing.T, schema string, v *Validator, args string) {
	err := v.ValidateString(args)
	var ae *ArgumentError
	if err != nil && !errors.As(err, &ae) {
		t.Fatalf("schema %s, arguments %s: error %T (%v) is not an *ArgumentError", schema, args, err, err)
	}
	checkAgreement(t, schema, v, []byte(args))
	if out, err := v.Prepare(args); err == nil {
		if err := v.ValidateString(out); err != nil {
			t.Errorf("schema %s: arguments %s with defaults %s are invalid: %v", schema, args, out, err)
		}
	}
	if v.root != nil {
		work, err := costOf(v, args)
		limited := errors.As(err, &ae) && len(ae.Issues) > 0 && ae.Issues[0].Keyword == "limit"
		if limit := minBudget + budgetPerByte*len(args); work > limit && !limited {
			t.Errorf("schema %s, arguments of %d bytes: %d visits, over the budget of %d", schema, len(args), work, limit)
		}
	}
}

// FuzzGrammar compiles a schema built from the fuzzer's bytes and validates arguments built from
// the rest of them and the fuzzer's string, on whichever path the schema takes: nothing may
// panic, overflow the stack or hang.
func FuzzGrammar(f *testing.F) {
	f.Add([]byte{}, "")
	f.Add([]byte{3, 18, 1, 10, 22, 0, 2, 4, 1, 1}, `[[["a"]]]`)
	f.Add([]byte{1, 14, 2, 0, 3, 22, 1, 25, 0, 9, 9, 9}, `{"a":1,"b":[1]}`)
	f.Add([]byte{2, 24, 10, 19, 7, 3, 4, 5, 6, 7, 8}, `["ab","ab"]`)
	f.Add([]byte{0, 21, 21, 18, 22, 0, 0}, `{"a":{"a":{}}}`)
	f.Fuzz(func(t *testing.T, data []byte, args string) {
		g := &grammar{data: data}
		schema := g.document()
		v, err := Compile(json.RawMessage(schema))
		if err != nil {
			if !strings.Contains(err.Error(), "invalid JSON Schema") {
				t.Fatalf("Compile(%s): %v", schema, err)
			}
			return
		}
		checkCompiled(t, schema, v, g.value(4))
		if len(args) <= 1<<12 {
			checkCompiled(t, schema, v, args)
		}
	})
}

// FuzzFallback validates fuzzed arguments against fuzzed schemas forced onto the fallback path
// (jsonschema-go, within its cost bound): a keyword only it checks sits beside the schema.
func FuzzFallback(f *testing.F) {
	for i, s := range append(append([]string{}, diffSchemas...), generalSchemas...) {
		f.Add(s, diffInstances[i%len(diffInstances)])
	}
	f.Fuzz(func(t *testing.T, schema, args string) {
		if len(schema) > 1<<12 || len(args) > 1<<12 {
			return
		}
		wrapped := `{"allOf":[` + schema + `],"if":true,"then":true}`
		v, err := Compile(json.RawMessage(wrapped))
		if err != nil {
			return
		}
		if v.root != nil {
			t.Fatalf("schema %s is checked by the single pass: %s", wrapped, v.unsupported)
		}
		checkCompiled(t, wrapped, v, args)
	})
}
