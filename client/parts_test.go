package client_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

var pixel = content.Image([]byte("\x89PNG\r\n\x1a\n-pixel"), "image/png")

// A tool's image reaches the next model request as a part of its tool result, on both paths, and
// the user's own image stays in the prompt.
func TestToolImageReachesTheModel(t *testing.T) {
	chart := tool.Must(tool.Func("chart", "Draws the sales chart.", func(context.Context, struct{}) (tool.Result, error) {
		return tool.Result{Text: "sales chart:", Parts: []content.Part{pixel}}, nil
	}))
	photo := content.Image([]byte("\xff\xd8\xff-photo"), "image/jpeg")
	for _, stream := range []bool{false, true} {
		m := chattest.New(
			chattest.Calls(chattest.Call("chart", `{}`)),
			chattest.Text("Sales rose."),
		)
		c := clienttest.New(t, m)
		spec := c.Prompt().User("Compare with my photo.", photo).Tools(chart)
		resp, err := runTurn(context.Background(), spec, stream)
		if err != nil || resp.Text() != "Sales rose." {
			t.Fatalf("stream=%v: %q, %v", stream, resp.Text(), err)
		}
		p := m.Prompt(1)
		if got := p.Messages[0]; !reflect.DeepEqual(got.Parts, []content.Part{photo}) || got.Content != "Compare with my photo." {
			t.Fatalf("stream=%v: user message = %v", stream, got)
		}
		res := p.Messages[len(p.Messages)-1]
		want := chat.ToolResult{ID: "call_1", Name: "chart", Content: "sales chart:", Parts: []content.Part{pixel}}
		if res.Role != chat.RoleTool || !reflect.DeepEqual(res.ToolResults, []chat.ToolResult{want}) {
			t.Fatalf("stream=%v: tool message = %#v", stream, res)
		}
	}
}

// A return-direct tool's image is the answer's part.
func TestReturnDirectKeepsParts(t *testing.T) {
	shot := tool.Must(tool.Func("shot", "Takes a screenshot.", func(context.Context, struct{}) (content.Part, error) {
		return pixel, nil
	}, tool.ReturnDirect()))
	m := chattest.New(chattest.Calls(chattest.Call("shot", `{}`)))
	resp, err := clienttest.New(t, m).Prompt("screenshot please").Tools(shot).Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Chat.Result().Message
	if resp.Outcome != client.OutcomeReturnDirect || !reflect.DeepEqual(msg.Parts, []content.Part{pixel}) {
		t.Fatalf("answer = %v (%v)", msg, resp.Outcome)
	}
}

// Structured output works with a multimodal prompt: the image stays with the user's question.
func TestEntityWithImage(t *testing.T) {
	m := chattest.New(chattest.Text(`{"city":"Paris","tempC":25}`))
	c := clienttest.New(t, m)
	got, err := client.Entity[Forecast](context.Background(), c.Prompt().User("Which city is on this photo, and how warm?", pixel))
	if err != nil || got.City != "Paris" {
		t.Fatalf("Entity = %+v, %v", got, err)
	}
	last := m.Prompt(0).Messages[len(m.Prompt(0).Messages)-1]
	if last.Role != chat.RoleUser || !reflect.DeepEqual(last.Parts, []content.Part{pixel}) {
		t.Fatalf("user message = %v", last)
	}
}

// A streamed answer's parts reach the consumer's response in order.
func TestStreamedAnswerParts(t *testing.T) {
	signed := content.Part{Kind: content.KindText, Signature: "sig"}
	m := chattest.New(chattest.Text("Here.").WithParts(pixel, signed))
	resp, err := drain(clienttest.New(t, m).Prompt("draw").Stream(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Chat.Result().Message
	if msg.Content != "Here." || !reflect.DeepEqual(msg.Parts, []content.Part{pixel, signed}) {
		t.Fatalf("answer = %#v", msg)
	}
}
