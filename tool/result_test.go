package tool

import (
	"context"
	"reflect"
	"testing"

	"github.com/wield-ai/wield/content"
)

type chartTools struct{}

type titleIn struct {
	Title string `json:"title"`
}

func (chartTools) Chart(_ context.Context, in struct {
	Title string `json:"title"`
}) (Result, error) {
	return Result{Text: "chart " + in.Title, Parts: []content.Part{content.Image([]byte{1, 2, 3}, "image/png")}}, nil
}

// Tools return images and documents by returning parts; Invoke keeps them, Call describes them.
func TestToolsReturnParts(t *testing.T) {
	img := content.Image([]byte{1, 2, 3}, "image/png")
	pdf := content.Document([]byte("%PDF-1.4"), "application/pdf", "r.pdf")
	methods, err := Methods(chartTools{}, Only("Chart"))
	if err != nil || len(methods) != 1 {
		t.Fatalf("Methods: %v, %v", methods, err)
	}
	tests := []struct {
		name string
		tool Tool
		want Result
		text string
	}{
		{"Func returning a part",
			Must(Func("shot", "Takes a screenshot.", func(context.Context, titleIn) (content.Part, error) { return img, nil })),
			Result{Parts: []content.Part{img}}, "[image image/png 3 B]"},
		{"Func returning a text part",
			Must(Func("say", "Says.", func(context.Context, titleIn) (content.Part, error) { return content.Text("hi"), nil })),
			Result{Text: "hi"}, "hi"},
		{"Func returning parts",
			Must(Func("report", "Writes a report.", func(context.Context, titleIn) ([]content.Part, error) {
				return []content.Part{content.Text("attached:"), pdf}, nil
			})),
			Result{Parts: []content.Part{content.Text("attached:"), pdf}}, "attached:\n[document r.pdf application/pdf 8 B]"},
		{"Func returning a Result pointer",
			Must(Func("p", "P.", func(context.Context, titleIn) (*Result, error) {
				return &Result{Text: "t", Parts: []content.Part{img}}, nil
			})),
			Result{Text: "t", Parts: []content.Part{img}}, "t\n[image image/png 3 B]"},
		{"Func returning any holding a part",
			Must(Func("a", "A.", func(context.Context, titleIn) (any, error) { return img, nil })),
			Result{Parts: []content.Part{img}}, "[image image/png 3 B]"},
		{"New handler returning a Result",
			Must(New(Definition{Name: "dyn", Description: "D."}, func(context.Context, map[string]any) (any, error) {
				return Result{Text: "d", Parts: []content.Part{img}}, nil
			})),
			Result{Text: "d", Parts: []content.Part{img}}, "d\n[image image/png 3 B]"},
		{"method returning a Result", methods[0], Result{Text: "chart sales", Parts: []content.Part{img}}, "chart sales\n[image image/png 3 B]"},
		{"string tool", Must(Func("s", "S.", func(context.Context, titleIn) (string, error) { return "plain", nil })), Result{Text: "plain"}, "plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Invoke(context.Background(), tt.tool, `{"title":"sales"}`)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Invoke = %+v, want %+v", got, tt.want)
			}
			text, err := tt.tool.Call(context.Background(), `{"title":"sales"}`)
			if err != nil || text != tt.text {
				t.Errorf("Call = %q, %v; want %q", text, err, tt.text)
			}
			if tt.tool.Definition().OutputSchema != nil {
				t.Errorf("a parts result advertises an output schema: %s", tt.tool.Definition().OutputSchema)
			}
		})
	}
}

type textOnlyTool struct{}

func (textOnlyTool) Definition() Definition { return Definition{Name: "t"} }
func (textOnlyTool) Metadata() Metadata     { return Metadata{} }
func (textOnlyTool) Call(context.Context, string) (string, error) {
	return "text", nil
}

func TestInvokePlainTool(t *testing.T) {
	got, err := Invoke(context.Background(), textOnlyTool{}, `{}`)
	if err != nil || !reflect.DeepEqual(got, Result{Text: "text"}) {
		t.Fatalf("Invoke = %+v, %v", got, err)
	}
}
