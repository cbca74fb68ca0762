package tooldoc

import (
	"reflect"
	"testing"

	"github.com/wield-ai/wield/tool"
)

func TestOf(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   Doc
	}{
		{"no schema", "", Doc{Name: "n", Description: "d"}},
		{"invalid schema", "{", Doc{Name: "n", Description: "d"}},
		{"flat", `{"type":"object","properties":{"city":{"type":"string","description":"City name"},"unit":{"type":"string"}}}`,
			Doc{Name: "n", Description: "d", ParamNames: []string{"city", "unit"}, ParamDescriptions: []string{"City name"}}},
		{"nested object and array items", `{"properties":{"order":{"description":"The order","properties":{"size":{"description":"Cup size"}}},
			"tags":{"type":"array","items":{"properties":{"label":{"description":"Tag label"}}}}}}`,
			Doc{Name: "n", Description: "d", ParamNames: []string{"order", "size", "tags", "label"},
				ParamDescriptions: []string{"The order", "Cup size", "Tag label"}}},
		{"tuple items ignored", `{"properties":{"p":{"items":[{"description":"x"}]}}}`,
			Doc{Name: "n", Description: "d", ParamNames: []string{"p"}}},
		{"null property", `{"properties":{"p":null}}`, Doc{Name: "n", Description: "d", ParamNames: []string{"p"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Of(tool.Definition{Name: "n", Description: "d", InputSchema: []byte(tt.schema)})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Of = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestOfDepthBounded(t *testing.T) {
	s := `{"description":"leaf"}`
	for range 50 {
		s = `{"properties":{"p":` + s + `}}`
	}
	d := Of(tool.Definition{Name: "n", InputSchema: []byte(s)})
	if len(d.ParamNames) != maxDepth+1 {
		t.Errorf("walked %d levels, want %d", len(d.ParamNames), maxDepth+1)
	}
}

func TestOfLenient(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   Doc
	}{
		// A property named twice counts once, with its last schema, as encoding/json reads it.
		{"repeated property", `{"properties":{"a":{"description":"first"},"b":{},"a":{"description":"last"}}}`,
			Doc{Name: "n", ParamNames: []string{"a", "b"}, ParamDescriptions: []string{"last"}}},
		{"values of other types skipped", `{"description":7,"properties":{"p":{"description":["x"],"enum":"no"},"q":"string","r":{"enum":[1,"on","",null]}}}`,
			Doc{Name: "n", ParamNames: []string{"p", "q", "r"}, ParamDescriptions: []string{"on"}}},
		{"invalid UTF-8 kept", "{\"properties\":{\"p\":{\"description\":\"caf\xe9\"}}}",
			Doc{Name: "n", ParamNames: []string{"p"}, ParamDescriptions: []string{"caf\uFFFD"}}},
		{"escapes", `{"properties":{"p\u0061":{"descr\u0069ption":"line\nbreak \u00e9t\u00e9"}}}`,
			Doc{Name: "n", ParamNames: []string{"pa"}, ParamDescriptions: []string{"line\nbreak été"}}},
		{"not an object", `["a"]`, Doc{Name: "n"}},
		{"trailing garbage in an object", `{"properties":{"p":{}},}`, Doc{Name: "n"}},
	}
	var r Reader // reused across definitions, as a build does
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Of(tool.Definition{Name: "n", InputSchema: []byte(tt.schema)})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Of = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestWithOutputs(t *testing.T) {
	def := tool.Definition{Name: "n", Description: "d",
		InputSchema:  []byte(`{"properties":{"book_id":{"description":"The book"}}}`),
		OutputSchema: []byte(`{"properties":{"title":{"description":"The title"},"availability":{"enum":["on loan","on shelf"]}}}`)}
	var r Reader
	want := Doc{Name: "n", Description: "d", ParamNames: []string{"book_id"}, ParamDescriptions: []string{"The book"},
		OutputNames: []string{"availability", "title"}, OutputDescriptions: []string{"on loan", "on shelf", "The title"}}
	if got := r.WithOutputs(def); !reflect.DeepEqual(got, want) {
		t.Errorf("WithOutputs = %+v, want %+v", got, want)
	}
	// Of leaves the outputs out; an invalid output schema loses nothing else.
	want.OutputNames, want.OutputDescriptions = nil, nil
	if got := r.Of(def); !reflect.DeepEqual(got, want) {
		t.Errorf("Of = %+v, want %+v", got, want)
	}
	def.OutputSchema = []byte(`{"properties":`)
	if got := r.WithOutputs(def); !reflect.DeepEqual(got, want) {
		t.Errorf("WithOutputs, invalid output schema = %+v, want %+v", got, want)
	}
}
