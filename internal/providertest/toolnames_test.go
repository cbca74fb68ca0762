package providertest

import (
	"reflect"
	"testing"
)

// TestChatNames: the Chat Completions reader takes the tools, the calls and the results of a
// history, streams by default only when told to, and refuses a body that is not JSON.
func TestChatNames(t *testing.T) {
	body := []byte(`{"tools":[{"type":"function","function":{"name":"a_b","description":"d"}}],"messages":[
		{"role":"user","content":"hi"},
		{"role":"assistant","content":"","tool_calls":[{"id":"c1","function":{"name":"a_b","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","tool_name":"a_b","content":"sunny"}]}`)
	want := NameRequest{
		Tools:   []NameTool{{Name: "a_b", Description: "d"}},
		Calls:   []NameCall{{ID: "c1", Name: "a_b"}},
		Results: []NameCall{{ID: "c1", Name: "a_b", Content: "sunny"}},
	}
	for _, byDefault := range []bool{false, true} {
		got, err := ChatNames(byDefault)(nil, body)
		want.Stream = byDefault
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("streaming by default %v: %+v, %v; want %+v", byDefault, got, err, want)
		}
		if got, _ := ChatNames(byDefault)(nil, []byte(`{"stream":false}`)); got.Stream {
			t.Errorf("streaming by default %v: a request saying stream false streams", byDefault)
		}
	}
	if _, err := ChatNames(false)(nil, []byte(`{"messages":`)); err == nil {
		t.Error("a cut body was read")
	}
}
