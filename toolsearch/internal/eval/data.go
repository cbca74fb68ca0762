package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wield-ai/wield/tool"
)

// Dataset is a tool corpus and queries with the names of the tools each needs.
type Dataset struct {
	Name    string
	Tools   []tool.Definition
	Queries []Query
}

// Query is a request and the tools that answer it.
type Query struct {
	ID   string
	Text string
	Gold []string
}

// loaders names every dataset the program knows, in report order.
var loaders = []struct {
	name string
	load func(dir string) (*Dataset, error)
}{
	{"toolret-apigen", func(dir string) (*Dataset, error) { return loadToolRet(dir, "apigen") }},
	{"toolret-apibank", func(dir string) (*Dataset, error) { return loadToolRet(dir, "apibank") }},
	{"bfcl-pool", loadBFCL},
	{"seal-dev", func(dir string) (*Dataset, error) { return loadSeal(dir, "dev") }},
	{"seal-test-in-domain", func(dir string) (*Dataset, error) { return loadSeal(dir, "test_in_domain") }},
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// readLines decodes a JSON Lines file, one value per non-empty line.
func readLines[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// param is one parameter as the datasets describe it, turned into JSON Schema.
type param struct {
	Name, Type, Description string
}

// schemaOf builds the JSON Schema of an object with the given parameters. Types are mapped from
// the datasets' Python, Java and BFCL spellings the way BFCL maps them.
func schemaOf(params []param, required []string) json.RawMessage {
	props := map[string]any{}
	for _, p := range params {
		prop := map[string]any{"type": jsonType(p.Type)}
		if p.Description != "" {
			prop["description"] = p.Description
		}
		props[p.Name] = prop
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	b, _ := json.Marshal(s)
	return b
}

func jsonType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	t, _, _ = strings.Cut(t, ",") // "str, optional"
	t, _, _ = strings.Cut(t, "[") // "list[int]"
	switch t {
	case "int", "integer", "long", "short", "byte", "bigint":
		return "integer"
	case "float", "double", "number":
		return "number"
	case "bool", "boolean":
		return "boolean"
	case "list", "array", "arraylist", "tuple", "set", "queue", "stack":
		return "array"
	case "dict", "object", "hashmap", "hashtable", "map":
		return "object"
	default:
		return "string"
	}
}

// --- ToolRet (apigen, apibank) ---

type toolRetTool struct {
	ID  string `json:"id"`
	Doc struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Responses   json.RawMessage `json:"responses"`
	} `json:"documentation"`
}

type toolRetQuery struct {
	ID     string `json:"id"`
	Query  string `json:"query"`
	Labels []struct {
		ID        string `json:"id"`
		Relevance int    `json:"relevance"`
	} `json:"labels"`
}

// loadToolRet reads one ToolRet task with its own corpus, query only (the instruction is left
// out: it was written knowing the target tool).
func loadToolRet(dir, task string) (*Dataset, error) {
	base := filepath.Join(dir, "toolret-subsets", task)
	var tools []toolRetTool
	if err := readJSON(filepath.Join(base, "tools.json"), &tools); err != nil {
		return nil, err
	}
	var queries []toolRetQuery
	if err := readJSON(filepath.Join(base, "queries.json"), &queries); err != nil {
		return nil, err
	}
	ds := &Dataset{Name: "toolret-" + task}
	nameOf := map[string]string{}
	for _, t := range tools {
		nameOf[t.ID] = t.Doc.Name
		params, required := toolRetParams(t.Doc.Parameters)
		ds.Tools = append(ds.Tools, tool.Definition{
			Name:         t.Doc.Name,
			Description:  t.Doc.Description,
			InputSchema:  schemaOf(params, required),
			OutputSchema: outputSchema(t.Doc.Responses),
		})
	}
	for _, q := range queries {
		var gold []string
		for _, l := range q.Labels {
			if l.Relevance <= 0 {
				continue
			}
			name, ok := nameOf[l.ID]
			if !ok {
				return nil, fmt.Errorf("%s: query %s: unknown tool %s", task, q.ID, l.ID)
			}
			gold = append(gold, name)
		}
		ds.Queries = append(ds.Queries, Query{ID: q.ID, Text: q.Query, Gold: dedupe(gold)})
	}
	return ds, nil
}

// toolRetParams reads the parameters of a ToolRet tool: an object of name → {type,
// description, default} (APIGen), an OpenAPI-like list (API-Bank) or a signature string, which
// carries no parameter docs and is skipped. A parameter is required unless its type says
// optional ("str, optional") or it has a default: API-Bank lists no "required", and its APIs
// take every parameter, none of which has a default.
func toolRetParams(raw json.RawMessage) (params []param, required []string) {
	optional := func(typ string, def json.RawMessage) bool {
		return strings.Contains(strings.ToLower(typ), "optional") || (len(def) > 0 && string(def) != "null")
	}
	var byName map[string]struct {
		Type        string          `json:"type"`
		Description string          `json:"description"`
		Default     json.RawMessage `json:"default"`
	}
	if json.Unmarshal(raw, &byName) == nil {
		for _, name := range slices.Sorted(maps.Keys(byName)) {
			p := byName[name]
			params = append(params, param{name, p.Type, p.Description})
			if !optional(p.Type, p.Default) {
				required = append(required, name)
			}
		}
		return params, required
	}
	var list []struct {
		Name   string `json:"name"`
		Schema struct {
			Type    string          `json:"type"`
			Default json.RawMessage `json:"default"`
		} `json:"schema"`
		Description string `json:"description"`
	}
	if json.Unmarshal(raw, &list) == nil {
		for _, p := range list {
			params = append(params, param{p.Name, p.Schema.Type, p.Description})
			if !optional(p.Schema.Type, p.Schema.Default) {
				required = append(required, p.Name)
			}
		}
		return params, required
	}
	return nil, nil
}

// outputSchema turns the responses the datasets document (name → {type, description}) into
// the JSON Schema of an object with those properties, or nil when there are none.
func outputSchema(raw json.RawMessage) json.RawMessage {
	var byName map[string]struct {
		Type        string `json:"type"`
		Description string `json:"description"`
	}
	if json.Unmarshal(raw, &byName) != nil || len(byName) == 0 {
		return nil
	}
	var ps []param
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		p := byName[name]
		ps = append(ps, param{name, p.Type, p.Description})
	}
	return schemaOf(ps, nil)
}

// --- BFCL ---

// bfclSingleTurn lists BFCL's single-turn categories; those with answers give the queries.
var bfclSingleTurn = []struct {
	name    string
	answers bool
}{
	{"simple_python", true}, {"simple_java", true}, {"simple_javascript", true},
	{"multiple", true}, {"parallel", true}, {"parallel_multiple", true},
	{"live_simple", true}, {"live_multiple", true}, {"live_parallel", true}, {"live_parallel_multiple", true},
	{"irrelevance", false}, {"live_irrelevance", false}, {"live_relevance", false},
}

type bfclEntry struct {
	ID       string `json:"id"`
	Question [][]struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"question"`
	Function []bfclFunction `json:"function"`
}

type bfclFunction struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Parameters  bfclSchema `json:"parameters"`
}

type bfclSchema struct {
	Type        string                `json:"type"`
	Description string                `json:"description"`
	Properties  map[string]bfclSchema `json:"properties"`
	Items       *bfclSchema           `json:"items"`
	Required    []string              `json:"required"`
	Enum        []any                 `json:"enum"`
}

// jsonSchema converts BFCL's schema dialect (dict, float, tuple, any, ...) to JSON Schema.
func (s bfclSchema) jsonSchema() map[string]any {
	out := map[string]any{"type": jsonType(s.Type)}
	if s.Description != "" {
		out["description"] = s.Description
	}
	if len(s.Properties) > 0 {
		props := map[string]any{}
		for k, v := range s.Properties {
			props[k] = v.jsonSchema()
		}
		out["properties"] = props
	}
	if s.Items != nil {
		out["items"] = s.Items.jsonSchema()
	}
	if len(s.Required) > 0 {
		out["required"] = s.Required
	}
	if len(s.Enum) > 0 {
		out["enum"] = s.Enum
	}
	return out
}

type bfclAnswer struct {
	ID          string           `json:"id"`
	GroundTruth []map[string]any `json:"ground_truth"`
}

// loadBFCL reads the pool of every function of BFCL's single-turn categories (the first
// definition of a name wins where a name has variants) and the queries of the categories with
// answers; a query's gold tools are the functions its ground truth calls.
func loadBFCL(dir string) (*Dataset, error) {
	base := filepath.Join(dir, "bfcl")
	ds := &Dataset{Name: "bfcl-pool"}
	seen := map[string]bool{}
	for _, cat := range bfclSingleTurn {
		entries, err := readLines[bfclEntry](filepath.Join(base, "BFCL_v4_"+cat.name+".json"))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			for _, f := range e.Function {
				if seen[f.Name] {
					continue
				}
				seen[f.Name] = true
				schema, _ := json.Marshal(f.Parameters.jsonSchema())
				ds.Tools = append(ds.Tools, tool.Definition{Name: f.Name, Description: f.Description, InputSchema: schema})
			}
		}
		if !cat.answers {
			continue
		}
		answers, err := readLines[bfclAnswer](filepath.Join(base, "possible_answer", "BFCL_v4_"+cat.name+".json"))
		if err != nil {
			return nil, err
		}
		gold := map[string][]string{}
		for _, a := range answers {
			for _, call := range a.GroundTruth {
				for name := range call {
					gold[a.ID] = append(gold[a.ID], name)
				}
			}
		}
		for _, e := range entries {
			g, ok := gold[e.ID]
			if !ok {
				return nil, fmt.Errorf("bfcl %s: no answer for %s", cat.name, e.ID)
			}
			var text []string
			for _, turn := range e.Question {
				for _, m := range turn {
					if m.Role == "user" {
						text = append(text, m.Content)
					}
				}
			}
			ds.Queries = append(ds.Queries, Query{ID: e.ID, Text: strings.Join(text, "\n"), Gold: dedupe(g)})
		}
	}
	return ds, nil
}

// --- Seal-Tools ---

type sealTool struct {
	Name        string `json:"api_name"`
	Description string `json:"api_description"`
	Parameters  map[string]struct {
		Type        string `json:"type"`
		Description string `json:"description"`
	} `json:"parameters"`
	Required  []string        `json:"required"`
	Responses json.RawMessage `json:"responses"`
}

type sealQuery struct {
	ID      string `json:"id"`
	Query   string `json:"query"`
	Calling []struct {
		API string `json:"api"`
	} `json:"calling"`
}

// loadSeal reads the whole Seal-Tools catalog and one split's queries; gold tools are the APIs
// of the gold calls.
func loadSeal(dir, split string) (*Dataset, error) {
	base := filepath.Join(dir, "seal-tools")
	tools, err := readLines[sealTool](filepath.Join(base, "tool.jsonl"))
	if err != nil {
		return nil, err
	}
	queries, err := readLines[sealQuery](filepath.Join(base, split+".jsonl"))
	if err != nil {
		return nil, err
	}
	ds := &Dataset{Name: "seal-" + strings.ReplaceAll(split, "_", "-")}
	known := map[string]bool{}
	for _, t := range tools {
		var ps []param
		for _, name := range slices.Sorted(maps.Keys(t.Parameters)) {
			p := t.Parameters[name]
			ps = append(ps, param{name, p.Type, p.Description})
		}
		known[t.Name] = true
		ds.Tools = append(ds.Tools, tool.Definition{Name: t.Name, Description: t.Description,
			InputSchema: schemaOf(ps, t.Required), OutputSchema: outputSchema(t.Responses)})
	}
	for _, q := range queries {
		var gold []string
		for _, c := range q.Calling {
			if !known[c.API] {
				return nil, fmt.Errorf("seal %s: query %s: unknown api %s", split, q.ID, c.API)
			}
			gold = append(gold, c.API)
		}
		ds.Queries = append(ds.Queries, Query{ID: q.ID, Text: q.Query, Gold: dedupe(gold)})
	}
	return ds, nil
}

func dedupe(s []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
