package chat

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/wield-ai/wield/content"
)

func TestPartsJSONRoundTrip(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00")
	msgs := []Message{
		User("what is this?", content.Image(png, "image/png"), content.Document([]byte("%PDF-1.4"), "application/pdf", "a.pdf")),
		{Role: RoleAssistant, Parts: []content.Part{{Kind: content.KindText, Text: "a dot", Signature: "s1"}, {Kind: content.KindText, Signature: "s2"}}},
		ToolMessage(ToolResult{ID: "c1", Name: "chart", Content: "the chart", Parts: []content.Part{content.Image(png, "image/png")}}),
	}
	checkRoundTrip(t, msgs)
	// A message stored before parts existed reads as text.
	var old Message
	if err := json.Unmarshal([]byte(`{"role":"user","content":"hi"}`), &old); err != nil || old.Text() != "hi" || old.Parts != nil {
		t.Fatalf("old message: %+v, %v", old, err)
	}
}

func TestMessageTextAndParts(t *testing.T) {
	img := content.Image([]byte{1}, "image/png")
	m := User("look: ", img, content.Text("and this"))
	if got := m.Text(); got != "look: and this" {
		t.Errorf("Text() = %q", got)
	}
	if !m.HasMedia() || User("hi").HasMedia() {
		t.Error("HasMedia wrong")
	}
	got := slices.Collect(m.AllParts())
	want := []content.Part{content.Text("look: "), img, content.Text("and this")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AllParts() = %+v", got)
	}
	if n := len(slices.Collect(Message{Role: RoleUser}.AllParts())); n != 0 {
		t.Errorf("empty message has %d parts", n)
	}
	if s := m.String(); s != "user: look:  [image image/png 1 B]and this" {
		t.Errorf("String() = %q", s)
	}
	r := ToolResult{Content: "chart:", Parts: []content.Part{img}}
	if r.Text() != "chart:" || !r.HasMedia() || len(slices.Collect(r.AllParts())) != 2 {
		t.Errorf("tool result parts: %q", r.Text())
	}
}

func TestAggregatePartsKeepPositions(t *testing.T) {
	img := content.Image([]byte{1, 2}, "image/png")
	delta := func(m Message) *Response {
		return &Response{Generations: []Generation{{Message: m}}}
	}
	tests := []struct {
		name   string
		chunks []Message
		want   Message
	}{{
		name:   "text only stays in Content",
		chunks: []Message{{Content: "Hel"}, {Content: "lo"}},
		want:   Message{Role: RoleAssistant, Content: "Hello"},
	}, {
		name: "a signature on a trailing empty part stays last and apart",
		chunks: []Message{{Content: "Hel"}, {Content: "lo"},
			{Parts: []content.Part{{Kind: content.KindText, Signature: "sig"}}}},
		want: Message{Role: RoleAssistant, Content: "Hello", Parts: []content.Part{{Kind: content.KindText, Signature: "sig"}}},
	}, {
		name: "a signed first part takes the text that follows",
		chunks: []Message{{Parts: []content.Part{{Kind: content.KindText, Text: "Hel", Signature: "sig"}}},
			{Content: "lo"}, {Parts: []content.Part{content.Text("!")}}},
		want: Message{Role: RoleAssistant, Parts: []content.Part{{Kind: content.KindText, Text: "Hello!", Signature: "sig"}}},
	}, {
		name:   "a second signed part starts anew",
		chunks: []Message{{Parts: []content.Part{{Kind: content.KindText, Text: "a", Signature: "1"}}}, {Parts: []content.Part{{Kind: content.KindText, Text: "b", Signature: "2"}}}},
		want:   Message{Role: RoleAssistant, Parts: []content.Part{{Kind: content.KindText, Text: "a", Signature: "1"}, {Kind: content.KindText, Text: "b", Signature: "2"}}},
	}, {
		name:   "text after an empty signed part stays apart from it",
		chunks: []Message{{Content: "A"}, {Parts: []content.Part{{Kind: content.KindText, Signature: "sig"}}}, {Content: "B"}},
		want:   Message{Role: RoleAssistant, Content: "A", Parts: []content.Part{{Kind: content.KindText, Signature: "sig"}, content.Text("B")}},
	}, {
		name:   "media between text",
		chunks: []Message{{Content: "here:"}, {Parts: []content.Part{img}}, {Content: "done"}},
		want:   Message{Role: RoleAssistant, Content: "here:", Parts: []content.Part{img, content.Text("done")}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Aggregator
			for _, c := range tt.chunks {
				a.Add(delta(c))
			}
			got := a.Response().Generations[0].Message
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("aggregated\n got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}
