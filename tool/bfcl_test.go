package tool

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/internal/schema"
	"github.com/wield-ai/wield/internal/testenv"
)

// TestBFCL builds a tool with New for every function definition of the Berkeley Function Calling
// Leaderboard (testdata/bfcl, see its README), after converting BFCL's schema dialect to JSON
// Schema, then checks that every ground-truth call is accepted and that corrupted calls (a
// required argument left out, an argument of the wrong type) are rejected with a message naming
// the argument.

// bfclTypes maps BFCL's type names to JSON Schema types, after BFCL's own GORILLA_TO_OPENAPI
// table except "any", which is left unrestricted here (BFCL sends it as a string) so that
// ground truths of any kind stay valid.
var update = flag.Bool("update", false, "rewrite golden files")

var bfclTypes = map[string]string{
	"dict": "object", "object": "object", "HashMap": "object", "Hashtable": "object",
	"integer": "integer", "int": "integer", "long": "integer", "short": "integer", "byte": "integer", "Bigint": "integer",
	"float": "number", "double": "number", "number": "number",
	"string": "string", "String": "string", "char": "string",
	"boolean": "boolean", "bool": "boolean", "Boolean": "boolean",
	"array": "array", "list": "array", "tuple": "array", "Array": "array", "ArrayList": "array",
	"Queue": "array", "Stack": "array",
	"any": "", "Any": "", "": "",
}

type bfclConverter struct {
	t               *testing.T
	droppedDefaults int
}

// convert turns one BFCL parameter schema into JSON Schema 2020-12. Java and JavaScript
// parameters are strings at the top level, as BFCL presents them to models (their values are
// source code).
func (c *bfclConverter) convert(p map[string]any, sourceStrings bool) map[string]any {
	out := map[string]any{}
	typ, _ := p["type"].(string)
	jt, known := bfclTypes[typ]
	if !known {
		c.t.Fatalf("unknown BFCL type %q in %v", typ, p)
	}
	if sourceStrings {
		jt = "string"
	}
	if jt != "" {
		out["type"] = jt
	}
	for k, v := range p {
		switch k {
		case "type", "optional":
			// "optional" is not JSON Schema; "required" says the same.
		case "description", "format", "minimum", "maximum", "minItems", "maxItems", "enum", "default", "required":
			out[k] = v
		case "properties":
			if jt != "object" {
				continue
			}
			props := map[string]any{}
			for name, sub := range v.(map[string]any) {
				props[name] = c.convert(sub.(map[string]any), false)
			}
			out[k] = props
		case "items":
			if jt != "array" {
				continue
			}
			out[k] = c.convert(v.(map[string]any), false)
		default:
			c.t.Fatalf("unknown BFCL keyword %q in %v", k, p)
		}
	}
	if jt != "" && jt != "array" {
		delete(out, "minItems")
		delete(out, "maxItems")
	}
	// An enum on an array lists the values of its items.
	if e, ok := out["enum"]; ok && jt == "array" {
		items, _ := out["items"].(map[string]any)
		if items == nil {
			items = map[string]any{}
		}
		items["enum"] = e
		out["items"] = items
		delete(out, "enum")
	}
	// A default that contradicts its own schema (BFCL has "None" for integers) is dropped, as a
	// provider would have to; the property stays optional.
	if d, ok := out["default"]; ok {
		probe := maps.Clone(out)
		delete(probe, "default")
		if !c.valid(probe, d) {
			delete(out, "default")
			c.droppedDefaults++
		}
	}
	return out
}

func (c *bfclConverter) valid(s map[string]any, value any) bool {
	sb, _ := json.Marshal(s)
	v, err := schema.Compile(sb)
	if err != nil {
		return false
	}
	vb, _ := json.Marshal(value)
	return v.Validate(vb) == nil
}

func readJSONLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		lines = append(lines, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

type bfclTool struct {
	tool   Tool
	schema map[string]any
	got    *map[string]any
}

type bfclStats struct {
	definitions, fast, general, answers, omitted, missingRejected, typeRejected int
	// rejected lists ground truths the validator rejects: BFCL's lenient checker accepts values
	// that contradict the function's own schema ("dontcare" for an integer, "N/A" outside an
	// enum, a required argument left out). Each is reviewed and kept in a golden file.
	rejected []string
}

func TestBFCL(t *testing.T) {
	dir := filepath.Join("testdata", "bfcl")
	conv := &bfclConverter{t: t}
	var stats bfclStats
	tools := map[string]*bfclTool{} // by name and converted schema
	seen := map[string]*bfclTool{}  // by name and BFCL schema

	build := func(fn map[string]any, sourceStrings bool) *bfclTool {
		params := fn["parameters"].(map[string]any)
		raw, _ := json.Marshal(params)
		rawKey := fmt.Sprintf("%s %t %s", fn["name"], sourceStrings, raw)
		if bt, ok := seen[rawKey]; ok {
			return bt
		}
		schema := conv.convert(params, false)
		if props, ok := schema["properties"].(map[string]any); ok && sourceStrings {
			for name, orig := range params["properties"].(map[string]any) {
				props[name] = conv.convert(orig.(map[string]any), true)
			}
		}
		sb, err := json.Marshal(schema)
		if err != nil {
			t.Fatal(err)
		}
		name := fn["name"].(string)
		key := name + " " + string(sb)
		if bt, ok := tools[key]; ok {
			seen[rawKey] = bt
			return bt
		}
		desc, _ := fn["description"].(string)
		got := new(map[string]any)
		tl, err := New(Definition{Name: name, Description: desc, InputSchema: sb},
			func(_ context.Context, args map[string]any) (any, error) {
				*got = args
				return "ok", nil
			})
		if err != nil {
			t.Fatalf("New(%s): %v", name, err)
		}
		v, err := tl.(*dynamicTool).in.Validator()
		if err != nil {
			t.Fatal(err)
		}
		if why := v.General(); why == "" {
			stats.fast++
		} else {
			stats.general++
			t.Logf("%s uses the general validator: %s", name, why)
		}
		stats.definitions++
		bt := &bfclTool{tool: tl, schema: schema, got: got}
		tools[key], seen[rawKey] = bt, bt
		return bt
	}

	categories := []string{
		"simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
		"live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
		"irrelevance", "live_irrelevance", "live_relevance",
	}
	for _, cat := range categories {
		sourceStrings := cat == "simple_java" || cat == "simple_javascript"
		questions := readJSONLines(t, filepath.Join(dir, "BFCL_v4_"+cat+".json.gz"))
		byID := map[string]map[string]*bfclTool{}
		for _, q := range questions {
			fns := map[string]*bfclTool{}
			for _, f := range q["function"].([]any) {
				fn := f.(map[string]any)
				fns[fn["name"].(string)] = build(fn, sourceStrings)
			}
			byID[q["id"].(string)] = fns
		}
		answerPath := filepath.Join(dir, "possible_answer", "BFCL_v4_"+cat+".json.gz")
		if _, err := os.Stat(answerPath); err != nil {
			continue // irrelevance categories have no answers
		}
		for _, a := range readJSONLines(t, answerPath) {
			id := a["id"].(string)
			for _, call := range a["ground_truth"].([]any) {
				for name, acceptable := range call.(map[string]any) {
					bt := byID[id][name]
					if bt == nil {
						t.Fatalf("%s: no function %q", id, name)
					}
					checkBFCLCall(t, &stats, id, bt, acceptable.(map[string]any), sourceStrings)
				}
			}
		}
	}
	for _, e := range mustReadDir(t, filepath.Join(dir, "multi_turn_func_doc")) {
		for _, fn := range readJSONLines(t, filepath.Join(dir, "multi_turn_func_doc", e)) {
			build(fn, false)
		}
	}
	t.Logf("%d distinct function definitions compiled (%d on the single-pass validator, %d on jsonschema-go); %d defaults contradicting their schema dropped",
		stats.definitions, stats.fast, stats.general, conv.droppedDefaults)
	t.Logf("%d ground-truth calls validated (%d optional arguments left out); corruptions rejected: %d missing required, %d wrong type",
		stats.answers, stats.omitted, stats.missingRejected, stats.typeRejected)
	slices.Sort(stats.rejected)
	rejected := []byte(strings.Join(stats.rejected, "\n") + "\n")
	golden := filepath.Join(dir, "rejected_ground_truths.txt")
	testenv.Golden(t, golden, rejected, *update)
	t.Logf("%d ground-truth calls contradict their own schema and are rejected, as listed in %s", len(stats.rejected), golden)
	if stats.definitions < 3000 || stats.answers < 2500 || stats.missingRejected < 3000 || stats.typeRejected < 4000 {
		t.Errorf("fewer checks than the data holds: %+v", stats)
	}
}

func normalizeJSON(t *testing.T, b []byte) any {
	var m any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// withDefaults is what the handler should get: v with the defaults of missing optional
// properties filled in, in objects at any depth.
func withDefaults(v any, schema map[string]any) any {
	switch x := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		required, _ := schema["required"].([]any)
		for name, p := range props {
			ps := p.(map[string]any)
			if val, ok := x[name]; ok {
				x[name] = withDefaults(val, ps)
			} else if d, ok := ps["default"]; ok && !slices.Contains(required, any(name)) {
				x[name] = d
			}
		}
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i, e := range x {
			x[i] = withDefaults(e, items)
		}
	}
	return v
}

func mustReadDir(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// checkBFCLCall builds the arguments of one ground-truth call (the first acceptable value of
// each parameter, leaving out those whose first choice is "" for "omitted"), calls the tool,
// then corrupts them.
func checkBFCLCall(t *testing.T, stats *bfclStats, id string, bt *bfclTool, acceptable map[string]any, sourceStrings bool) {
	props, _ := bt.schema["properties"].(map[string]any)
	args := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(acceptable)) {
		v, ok := firstAcceptable(acceptable[name])
		if !ok {
			stats.omitted++
			continue
		}
		ps, _ := props[name].(map[string]any)
		v = concrete(v, ps)
		if sourceStrings {
			if _, isString := v.(string); !isString {
				b, _ := json.Marshal(v)
				v = string(b)
			}
		}
		args[name] = v
	}
	ctx := context.Background()
	ab, _ := json.Marshal(args)
	name := bt.tool.Definition().Name
	got, err := bt.tool.Call(ctx, string(ab))
	if err != nil {
		var ae *ArgumentError
		if !errors.As(err, &ae) {
			t.Errorf("%s: %s(%s): %v is not an *ArgumentError", id, name, ab, err)
		}
		stats.rejected = append(stats.rejected, fmt.Sprintf("%s %s: %v", id, name, err))
		return
	}
	if want := withDefaults(normalizeJSON(t, ab), bt.schema); got != "ok" || !reflect.DeepEqual(want, *bt.got) {
		t.Errorf("%s: %s(%s) = %q, handler got %v", id, name, ab, got, *bt.got)
	}
	stats.answers++

	required, _ := bt.schema["required"].([]any)
	for _, r := range required {
		r := r.(string)
		if _, ok := args[r]; !ok {
			continue
		}
		broken := maps.Clone(args)
		delete(broken, r)
		b, _ := json.Marshal(broken)
		want := fmt.Sprintf(`/: missing required property %q`, r)
		_, err := bt.tool.Call(ctx, string(b))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %s without %q: %v, want %s", id, name, r, err, want)
			continue
		}
		stats.missingRejected++
	}
	for _, p := range slices.Sorted(maps.Keys(args)) {
		ps, _ := props[p].(map[string]any)
		typ, _ := ps["type"].(string)
		wrong, shown := wrongValue(typ)
		if wrong == nil {
			continue
		}
		broken := maps.Clone(args)
		broken[p] = wrong
		b, _ := json.Marshal(broken)
		ptr := "/" + strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
		want := fmt.Sprintf("invalid arguments: %s: expected %s, got %s", ptr, typ, shown)
		_, err := bt.tool.Call(ctx, string(b))
		if err == nil || err.Error() != want {
			t.Errorf("%s: %s with %s=%s:\n got %v\nwant %s", id, name, p, b, err, want)
			continue
		}
		stats.typeRejected++
	}
}

// firstAcceptable picks the first acceptable value that is not "" or null, which BFCL uses for
// "left out" and "the default (None)".
func firstAcceptable(v any) (any, bool) {
	list, ok := v.([]any)
	if !ok {
		return v, true
	}
	for _, x := range list {
		if s, ok := x.(string); (ok && s == "") || x == nil {
			continue
		}
		return x, true
	}
	return nil, false
}

// concrete turns a possible-answer value into an argument value: dicts in answers list the
// acceptable values of each key, recursively.
func concrete(v any, schema map[string]any) any {
	switch x := v.(type) {
	case map[string]any:
		for _, val := range x {
			if _, ok := val.([]any); !ok {
				return x // a literal object
			}
		}
		props, _ := schema["properties"].(map[string]any)
		out := map[string]any{}
		for k, acc := range x {
			if val, ok := firstAcceptable(acc); ok {
				ps, _ := props[k].(map[string]any)
				out[k] = concrete(val, ps)
			}
		}
		return out
	case []any:
		items, _ := schema["items"].(map[string]any)
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = concrete(e, items)
		}
		return out
	}
	return v
}

// wrongValue is a value of another type than typ, and how messages show it.
func wrongValue(typ string) (any, string) {
	switch typ {
	case "string":
		return 12345, "12345"
	case "integer", "number":
		return "many", `the string "many"`
	case "boolean":
		return "true", `the string "true"`
	case "array":
		return map[string]any{}, "an object"
	case "object":
		return []any{1}, "an array"
	}
	return nil, ""
}
