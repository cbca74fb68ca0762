package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/big"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wield-ai/wield/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Go equivalents of Spring AI's JsonSchemaGeneratorTests cases.

// simple parameters: generateSchemaForMethodWithSimpleParameters(String name, int age).
type simpleParams struct {
	Name string `json:"name"`
	Age  int    `json:"age"`
}

// an optional parameter with a description (@ToolParam(required = false, description = …)).
type optionalParams struct {
	Username string  `json:"username" jsonschema:"The user name"`
	Email    *string `json:"email" jsonschema:"Email address, if known"`
	Nickname string  `json:"nickname,omitempty"`
	Age      int     `json:"age,omitzero" default:"18"`
}

type address struct {
	Street string `json:"street"`
	City   string `json:"city" jsonschema:"City name"`
}

// a nested struct (a POJO parameter with POJO fields).
type nestedParams struct {
	Person struct {
		Name    string  `json:"name"`
		Address address `json:"address"`
	} `json:"person"`
	Shipping *address `json:"shipping,omitempty"`
}

// list parameters (List<String>, arrays of POJOs, Map<String, Integer>).
type listParams struct {
	Tags      []string       `json:"tags" jsonschema:"Tags to add"`
	Addresses []address      `json:"addresses"`
	Pair      [2]int         `json:"pair"`
	Counts    map[string]int `json:"counts"`
}

// enum parameters: a tag on a string field, a tag on a slice, and a type with a JSONSchema hook
// (Java's enum TimeUnit).
type unit string

func (unit) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Enum: []any{"C", "F"}, Description: "Temperature unit"}
}

type enumParams struct {
	Unit     unit     `json:"unit"`
	Level    string   `json:"level" enum:"low,medium,high"`
	Channels []string `json:"channels" enum:"email,sms"`
	Priority int      `json:"priority" enum:"1,2,3"`
}

// time types (LocalDateTime, Duration, and a nullable timestamp).
type timeParams struct {
	At       time.Time     `json:"at" jsonschema:"When the alarm rings"`
	Duration time.Duration `json:"duration"`
	Snooze   time.Duration `json:"snooze,omitempty" jsonschema:"Snooze time"`
	Until    *time.Time    `json:"until,omitempty"`
}

// an any field (Object data).
type anyParams struct {
	Data    any             `json:"data"`
	Payload json.RawMessage `json:"payload,omitempty" jsonschema:"Raw payload"`
	Note    any             `json:"note,omitempty" jsonschema:"Anything worth noting"`
}

// a recursive type: the tree refers to itself through $defs.
type treeNode struct {
	Value    string      `json:"value"`
	Children []*treeNode `json:"children,omitempty"`
}

type recursiveParams struct {
	Root  treeNode  `json:"root"`
	Other *treeNode `json:"other,omitempty"`
}

// the root type itself recursive: references point at "#".
type category struct {
	Name   string     `json:"name"`
	Parent *category  `json:"parent,omitempty"`
	Subs   []category `json:"subs,omitempty"`
}

// types with their own JSON form: described by it, never by their Go fields.
type celsius struct{ deg float64 }

func (c celsius) MarshalJSON() ([]byte, error) { return json.Marshal(c.deg) }

type point struct{ x, y int }

func (p point) MarshalText() ([]byte, error) { return []byte("0,0"), nil }
func (p *point) UnmarshalText([]byte) error  { return nil }

type marshalerParams struct {
	Temp   celsius          `json:"temp"`
	At     point            `json:"at"`
	Big    *big.Int         `json:"big,omitempty"`
	Labels map[point]string `json:"labels,omitempty"`
}

// embedded structs are flattened like encoding/json does; json:"-" and unexported fields are
// not parameters.
type Base struct {
	ID   string `json:"id"`
	Note string `json:"note,omitempty"`
}

type embeddedParams struct {
	Base
	Name    string `json:"name"`
	Secret  string `json:"-"`
	private int
	Note    string `json:"note"` // shallower: wins over Base.Note
}

var schemaCases = []struct {
	name string
	typ  reflect.Type
}{
	{"simple", reflect.TypeFor[simpleParams]()},
	{"optional", reflect.TypeFor[optionalParams]()},
	{"nested", reflect.TypeFor[nestedParams]()},
	{"list", reflect.TypeFor[listParams]()},
	{"enum", reflect.TypeFor[enumParams]()},
	{"time", reflect.TypeFor[timeParams]()},
	{"any", reflect.TypeFor[anyParams]()},
	{"recursive", reflect.TypeFor[recursiveParams]()},
	{"recursive_root", reflect.TypeFor[*category]()},
	{"marshalers", reflect.TypeFor[marshalerParams]()},
	{"embedded", reflect.TypeFor[embeddedParams]()},
	{"empty", reflect.TypeFor[struct{}]()},
}

func TestSchemaGolden(t *testing.T) {
	for _, tc := range schemaCases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Of(tc.typ)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(s, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			testenv.Golden(t, filepath.Join("testdata", "schema", tc.name+".json"), got, *update)
			// The schema text tools advertise is the schema, as encoding/json writes it.
			c, err := For(tc.typ)
			if err != nil {
				t.Fatal(err)
			}
			compact, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(c.Schema(), compact) {
				t.Errorf("schema text of %v:\n%s\nwant\n%s", tc.typ, c.Schema(), compact)
			}
			// Every inferred schema is a valid schema and compiles for the fast path.
			v, err := compileSchema(s)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			if v.root == nil {
				t.Errorf("inferred schema needs the general validator: %s", v.unsupported)
			}
		})
	}
}

// parseTags reads tags as reflect.StructTag.Lookup does.
func TestParseTags(t *testing.T) {
	for _, tag := range []reflect.StructTag{
		``, `json:"a"`, `json:"a" jsonschema:"A \"quoted\" text" enum:"x,y" default:"3"`,
		`enum:"a" enum:"b"`, `default:""`, `  jsonschema:"x"  `, `bad`, `jsonschema:"unterminated`,
		`a:"1" jsonschema:"é\u00e9"`, `jsonschema:"x\\y"`, `x:"y"jsonschema:"z"`,
	} {
		got := parseTags(tag)
		for _, k := range []struct {
			key   string
			value string
			has   bool
		}{{"jsonschema", got.jsonschema, got.hasJSONSchema}, {"enum", got.enum, got.hasEnum}, {"default", got.def, got.hasDefault}} {
			want, ok := tag.Lookup(k.key)
			if k.value != want || k.has != ok {
				t.Errorf("tag %s, key %s: got %q %v, Lookup says %q %v", tag, k.key, k.value, k.has, want, ok)
			}
		}
	}
}
