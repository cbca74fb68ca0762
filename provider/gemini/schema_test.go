package gemini

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/tool"
)

type address struct {
	Street string `json:"street" jsonschema:"street and number"`
	Zip    string `json:"zip,omitempty"`
}

// category is a recursive type: wield infers it with $defs and $ref.
type category struct {
	Name string     `json:"name"`
	Subs []category `json:"subs,omitempty"`
}

// booking is a tool input using what wield's schema inference produces: descriptions, optional
// fields, slices and pointers (nullable type arrays), maps, times, nested structs, any.
type booking struct {
	Guest    string            `json:"guest" jsonschema:"the guest's full name"`
	Nights   int               `json:"nights,omitempty"`
	Rooms    []string          `json:"rooms"`
	Budget   *float64          `json:"budget"`
	Tags     map[string]string `json:"tags,omitempty"`
	Arrival  time.Time         `json:"arrival"`
	Address  address           `json:"address"`
	Previous []address         `json:"previous,omitempty"`
	Notes    any               `json:"notes,omitempty"`
	Category *category         `json:"category,omitempty"`
	Unit     string            `json:"unit,omitempty" enum:"C,F" default:"C"`
}

func inferred[T any](t *testing.T) string {
	t.Helper()
	s, err := tool.SchemaFor[T]()
	if err != nil {
		t.Fatal(err)
	}
	return testenv.JSON(t, s)
}

// TestConvertSchema converts schemas to Gemini's subset and compares with golden files
// (testdata/schema/*.golden.json; go test -run TestConvertSchema -update rewrites them).
func TestConvertSchema(t *testing.T) {
	tests := []struct {
		name   string
		schema string
	}{
		{"inferred-booking", inferred[booking](t)},
		{"inferred-sum", inferred[sumIn](t)},
		{"recursive-defs", `{
			"type": "object",
			"properties": {"root": {"$ref": "#/$defs/node", "description": "the tree"}},
			"required": ["root", "missing"],
			"$defs": {"node": {"type": "object", "description": "a node",
				"properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
				"required": ["name"], "additionalProperties": false}}}`},
		{"self-reference", `{"type": "object", "properties": {"next": {"$ref": "#"}, "value": {"type": "integer"}}}`},
		{"keywords", `{
			"type": "object",
			"properties": {
				"unit": {"const": "celsius"},
				"level": {"type": "integer", "enum": [1, 2, 3], "minimum": 1, "maximum": 3, "exclusiveMaximum": 4, "multipleOf": 1},
				"mode": {"type": ["string", "null"], "enum": ["fast", "slow", null]},
				"email": {"type": "string", "format": "email", "description": "where to write"},
				"when": {"type": "string", "format": "date-time"},
				"count": {"type": "integer", "format": "int64"},
				"id": {"type": ["string", "integer"], "description": "name or number"},
				"maybe": {"anyOf": [{"type": "null"}, {"type": "string", "maxLength": 5}], "description": "optional code"},
				"either": {"oneOf": [{"type": "string"}, {"type": "number"}]},
				"merged": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
					{"properties": {"b": {"type": "boolean"}}, "required": ["b"]}], "description": "a and b"},
				"list": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "minItems": 1, "uniqueItems": true},
				"flag": {"type": "boolean", "default": false, "examples": [true]},
				"nothing": {"type": "null"},
				"free": {}
			},
			"required": ["unit"],
			"additionalProperties": false,
			"$schema": "https://json-schema.org/draft/2020-12/schema"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := toolParameters(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			got := providertest.GoldenJSON(t, filepath.Join("testdata", "schema", tt.name+".golden.json"), s)
			// Whatever the input, the output uses only keywords Gemini's Schema has.
			var generic any
			_ = json.Unmarshal(got, &generic)
			checkSubset(t, generic, "#")
		})
	}
}

var subsetKeywords = map[string]bool{
	"anyOf": true, "default": true, "description": true, "enum": true, "example": true, "format": true,
	"items": true, "maxItems": true, "maxLength": true, "maxProperties": true, "maximum": true,
	"minItems": true, "minLength": true, "minProperties": true, "minimum": true, "nullable": true,
	"pattern": true, "properties": true, "propertyOrdering": true, "required": true, "title": true, "type": true,
}

func checkSubset(t *testing.T, v any, at string) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object", at)
	}
	for k, x := range m {
		if !subsetKeywords[k] {
			t.Errorf("%s: keyword %q is not in Gemini's schema", at, k)
		}
		switch k {
		case "type":
			if s, _ := x.(string); s != strings.ToUpper(s) {
				t.Errorf("%s: type %q", at, s)
			}
		case "items":
			checkSubset(t, x, at+"/items")
		case "properties":
			for name, p := range x.(map[string]any) {
				checkSubset(t, p, at+"/properties/"+name)
			}
		case "anyOf":
			for _, a := range x.([]any) {
				checkSubset(t, a, at+"/anyOf")
			}
		case "enum":
			for _, e := range x.([]any) {
				if _, ok := e.(string); !ok {
					t.Errorf("%s: enum value %v is not a string", at, e)
				}
			}
		}
	}
}

func TestToolParametersEdges(t *testing.T) {
	tests := []struct {
		schema  string
		wantNil bool
		wantErr string
	}{
		{schema: ``, wantNil: true},
		{schema: `null`, wantNil: true},
		{schema: `{}`, wantNil: true},
		{schema: `{"type":"object","additionalProperties":false}`, wantNil: true},
		{schema: `{"properties":{"a":{"type":"string"}}}`},
		{schema: `{"type":"string"}`, wantErr: "must describe an object"},
		{schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, wantErr: "points nowhere"},
		{schema: `{"type":"object","properties":{"a":{"$ref":"other.json#/x"}}}`, wantErr: "only local $ref"},
		{schema: `{"type":"object","properties":{"a":{"type":"strange"}}}`, wantErr: "unknown type"},
		{schema: `{"type":"object","properties":{"a":{"type":7}}}`, wantErr: "type must be"},
		{schema: `{"type":"object","properties":{"a":3}}`, wantErr: "expected an object"},
		{schema: `{"type":`, wantErr: "invalid JSON Schema"},
	}
	for _, tt := range tests {
		s, err := toolParameters(json.RawMessage(tt.schema))
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.schema, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.schema, err)
		case tt.wantNil != (s == nil):
			t.Errorf("%s: got %+v", tt.schema, s)
		case s != nil && s.Type != genai.TypeObject:
			t.Errorf("%s: root type %q", tt.schema, s.Type)
		}
	}
}
