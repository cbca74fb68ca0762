package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/orderedjson"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/tool"
)

func TestStrictSchema(t *testing.T) {
	cases := []struct {
		name, in, want string
		nullable       bool
	}{{
		name:     "optional properties become nullable, order kept",
		in:       `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer","description":"n"}},"required":["zeta"]}`,
		want:     `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":["integer","null"],"description":"n"}},"required":["zeta","alpha"],"additionalProperties":false}`,
		nullable: true,
	}, {
		name: "all required stays as is apart from additionalProperties",
		in:   `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
		want: `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
	}, {
		name:     "enums gain null",
		in:       `{"type":"object","properties":{"unit":{"type":"string","enum":["c","f"]}}}`,
		want:     `{"type":"object","properties":{"unit":{"type":["string","null"],"enum":["c","f",null]}},"required":["unit"],"additionalProperties":false}`,
		nullable: true,
	}, {
		name: "refs, consts and unions are wrapped or extended",
		in: `{"type":"object","$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},` +
			`"properties":{"p":{"$ref":"#/$defs/P"},"k":{"const":"fixed"},"u":{"anyOf":[{"type":"string"},{"type":"number"}]},"n":{"type":["string","null"]}}}`,
		want: `{"type":"object","$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"],"additionalProperties":false}},` +
			`"properties":{"p":{"anyOf":[{"$ref":"#/$defs/P"},{"type":"null"}]},"k":{"anyOf":[{"const":"fixed"},{"type":"null"}]},"u":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"null"}]},"n":{"type":["string","null"]}},` +
			`"required":["p","k","u","n"],"additionalProperties":false}`,
		nullable: true,
	}, {
		name:     "nested objects and array items",
		in:       `{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"boolean"}}},"l":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}}},"required":["o","l"]}`,
		want:     `{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":["boolean","null"]}},"required":["a"],"additionalProperties":false},"l":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string"}},"required":["b"],"additionalProperties":false}}},"required":["o","l"],"additionalProperties":false}`,
		nullable: true,
	}, {
		name: "a tool without parameters",
		in:   `{"type":"object"}`,
		want: `{"type":"object","properties":{},"required":[],"additionalProperties":false}`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := orderedjson.ParseObject([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			got, nullable, err := strictSchema(o)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("strict schema\n got %s\nwant %s", b, tc.want)
			}
			if nullable != tc.nullable {
				t.Errorf("nullable = %v, want %v", nullable, tc.nullable)
			}
			if back, _ := json.Marshal(o); string(back) != compactString(t, tc.in) {
				t.Errorf("the input schema was modified: %s", back)
			}
		})
	}
}

func TestStrictSchemaInexpressible(t *testing.T) {
	for _, in := range []string{
		`{"type":"object","additionalProperties":{"type":"string"}}`,
		`{"type":"object","properties":{"m":{"type":"object","additionalProperties":true}}}`,
		`{"type":"object","properties":{"free":{"type":"object"}}}`,
		`{"type":"object","properties":{"b":true}}`,
		`{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","additionalProperties":{"type":"integer"}}}}}`,
	} {
		o, err := orderedjson.ParseObject([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := strictSchema(o); err == nil {
			t.Errorf("%s: no error", in)
		}
		// Such a tool is still sent, unchanged and not strict.
		ts, err := prepareSchema(json.RawMessage(in), true)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		_ = json.Unmarshal([]byte(in), &want)
		if ts.strict || !jsonEqual(ts.params, want) {
			t.Errorf("%s: sent strict=%v as %v", in, ts.strict, ts.params)
		}
	}
}

func TestDropNulls(t *testing.T) {
	schema := `{"type":"object","$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"child":{"$ref":"#/$defs/node"}},"required":["name"]}},` +
		`"properties":{"location":{"type":"string"},"unit":{"type":"string"},"maybe":{"type":["string","null"]},` +
		`"opts":{"type":"object","properties":{"limit":{"type":"integer"}}},"items":{"type":"array","items":{"type":"object","properties":{"v":{"type":"integer"}}}},` +
		`"tree":{"$ref":"#/$defs/node"},"req":{"type":"string"}},"required":["location","req"]}`
	o, err := orderedjson.ParseObject([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, want string }{
		{`{"location":"Paris","unit":null}`, `{"location":"Paris"}`},
		{`{"unit":null,"location":"Paris","maybe":null}`, `{"location":"Paris","maybe":null}`},
		{`{"location":"x","req":null}`, `{"location":"x","req":null}`},
		{`{"location":"x","opts":{"limit":null}}`, `{"location":"x","opts":{}}`},
		{`{"location":"x","items":[{"v":null},{"v":1}]}`, `{"location":"x","items":[{},{"v":1}]}`},
		{`{"location":"x","tree":{"name":"a","child":{"name":"b","child":null}}}`, `{"location":"x","tree":{"name":"a","child":{"name":"b"}}}`},
		{`{"location":1.50,"unit":"c"}`, `{"location":1.50,"unit":"c"}`},
		{`not json`, `not json`},
		{`[null]`, `[null]`},
	}
	for _, tc := range cases {
		if got := dropNulls(tc.in, o); got != tc.want {
			t.Errorf("dropNulls(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestToolSchemaOrder checks that a tool's properties reach the request in declared order, which
// is the order strict mode makes the model write them in.
func TestToolSchemaOrder(t *testing.T) {
	m, err := New(Config{Model: "m", APIKey: "k", BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	tl := newTool("order", "", `{"type":"object","properties":{"zeta":{"type":"string"},"mid":{"type":"object","properties":{"y":{"type":"string"},"b":{"type":"string"}}},"alpha":{"type":"string"}}}`)
	for _, strict := range []bool{false, true} {
		req, err := m.request(&chat.Prompt{Messages: []chat.Message{chat.User("x")},
			Options: &chat.Options{Tools: []tool.Tool{tl}, Extra: map[string]any{ExtraStrictTools: strict}}}, false)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(req.params)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if z, mid, y, bb, a := strings.Index(s, `"zeta"`), strings.Index(s, `"mid"`), strings.Index(s, `"y"`), strings.Index(s, `"b"`), strings.Index(s, `"alpha"`); !(z < mid && mid < y && y < bb && bb < a) {
			t.Errorf("strict=%v: properties out of order in %s", strict, s)
		}
	}
}

func compactString(t *testing.T, s string) string {
	t.Helper()
	v, err := orderedjson.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return testenv.JSON(t, v)
}

// forecastTool has an optional property, which strict mode makes nullable.
func forecastTool() *testTool {
	return newTool("forecast", "Forecast for a location",
		`{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["location"],"additionalProperties":false}`)
}

// TestStrictToolsEndToEnd: in strict mode the model writes null for an optional argument it
// leaves out; the tool must receive the arguments its own schema describes, without the null,
// from Call and Stream of both APIs. In a stream such a call's arguments arrive in one piece.
func TestStrictToolsEndToEnd(t *testing.T) {
	const want = `{"location":"Paris"}`
	chatJSON := `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,` +
		`"tool_calls":[{"id":"call_1","type":"function","function":{"name":"forecast","arguments":"{\"location\":\"Paris\",\"days\":null}"}}]}}]}`
	chatSSE := "data: " + `{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"forecast","arguments":""}}]}}]}` + "\n\n" +
		"data: " + `{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\":\"Pa"}}]}}]}` + "\n\n" +
		"data: " + `{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ris\",\"days\":null}"}}]}}]}` + "\n\n" +
		"data: " + `{"id":"c","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	respJSON := `{"id":"r","object":"response","model":"m","status":"completed","output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"forecast","arguments":"{\"location\":\"Paris\",\"days\":null}","status":"completed"}]}`
	respSSE := providertest.SSE(
		`{"type":"response.created","response":{"id":"r","model":"m","status":"in_progress","output":[]}}`,
		`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"forecast","arguments":"","status":"in_progress"}}`,
		`{"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":"{\"location\":\"Pa"}`,
		`{"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":"ris\",\"days\":null}"}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"forecast","arguments":"{\"location\":\"Paris\",\"days\":null}","status":"completed"}}`,
		`{"type":"response.completed","response":{"id":"r","model":"m","status":"completed","output":[]}}`)
	bodies := map[string][2]string{"chat": {chatJSON, chatSSE}, "responses": {respJSON, string(respSSE)}}
	modes(func(t *testing.T, api apiCase, stream bool) {
		body, ct := bodies[api.name][0], "application/json"
		if stream {
			body, ct = bodies[api.name][1], "text/event-stream"
		}
		srv := replay.NewServer(t, replay.Exchange{Header: http.Header{"Content-Type": {ct}}, Body: []byte(body)})
		m := api.newM(t, srv.URL, Config{Model: "m", StrictTools: true})
		p := &chat.Prompt{Messages: []chat.Message{chat.User("forecast for Paris")}, Options: &chat.Options{Tools: []tool.Tool{forecastTool()}}}
		var got *chat.Response
		if stream {
			chunks, r, err := collect(t, m, p)
			if err != nil {
				t.Fatal(err)
			}
			got = r
			pieces := 0
			for _, c := range chunks {
				for _, tc := range c.ToolCalls() {
					if tc.Arguments != "" {
						pieces++
					}
				}
			}
			if pieces != 1 {
				t.Errorf("the arguments arrived in %d pieces, want 1", pieces)
			}
		} else {
			r, err := m.Call(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			got = r
		}
		calls := got.ToolCalls()
		if len(calls) != 1 || calls[0].ID != "call_1" || calls[0].Name != "forecast" || calls[0].Arguments != want {
			t.Fatalf("calls = %+v", calls)
		}
		var req map[string]any
		if err := json.Unmarshal(srv.Requests()[0].Body, &req); err != nil {
			t.Fatal(err)
		}
		def := asList(req["tools"])[0].(map[string]any)
		if fn, ok := def["function"].(map[string]any); ok {
			def = fn
		}
		wantParams := map[string]any{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"},
			"days": map[string]any{"type": []any{"integer", "null"}, "minimum": 1}}, "required": []any{"location", "days"}, "additionalProperties": false}
		if def["strict"] != true || !jsonEqual(def["parameters"], wantParams) {
			t.Errorf("tool sent as %v", def)
		}
	})(t)
}
