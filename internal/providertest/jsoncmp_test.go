package providertest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
)

func TestJSONEqual(t *testing.T) {
	if !JSONEqual(t, `{"a":[1,{"b":null}]}`, ` { "a" : [1, {"b": null}] } `) {
		t.Error("the same value in other spacing differs")
	}
	if JSONEqual(t, `{"a":1}`, `{"a":1.5}`) {
		t.Error("different values are equal")
	}
	if failed, _ := check(t, func(t testing.TB) { JSONEqual(t, `{"a":`, `{}`) }); !failed {
		t.Error("a text that is not JSON passed")
	}
}

func TestSameCalls(t *testing.T) {
	want := []chat.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{"city":"Paris","days":2}`, Index: 0}}
	if failed, msg := check(t, func(t testing.TB) {
		SameCalls(t, []chat.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{ "days": 2, "city": "Paris" }`}}, want)
	}); failed {
		t.Errorf("the same call with its arguments in another order failed: %s", msg)
	}
	for name, got := range map[string][]chat.ToolCall{
		"none":           nil,
		"other id":       {{ID: "c2", Name: "get_weather", Arguments: `{"city":"Paris","days":2}`}},
		"other name":     {{ID: "c1", Name: "get_time", Arguments: `{"city":"Paris","days":2}`}},
		"other index":    {{ID: "c1", Name: "get_weather", Arguments: `{"city":"Paris","days":2}`, Index: 1}},
		"other argument": {{ID: "c1", Name: "get_weather", Arguments: `{"city":"Rome","days":2}`}},
		"not JSON":       {{ID: "c1", Name: "get_weather", Arguments: `{"city":`}},
	} {
		if failed, msg := check(t, func(t testing.TB) { SameCalls(t, got, want) }); !failed || !strings.Contains(msg, "tool call") && !strings.Contains(msg, "not JSON") {
			t.Errorf("%s: failed %v, %q", name, failed, msg)
		}
	}
}

func TestCanonical(t *testing.T) {
	if got := Canonical(t, []byte(` {"b": [1, {"d": 2, "c": 3}], "a": null} `)); got != `{"a":null,"b":[1,{"c":3,"d":2}]}` {
		t.Errorf("Canonical = %s", got)
	}
	if failed, _ := check(t, func(t testing.TB) { Canonical(t, []byte("{")) }); !failed {
		t.Error("a text that is not JSON passed")
	}
}

func TestNormalize(t *testing.T) {
	emptyObject := func(_ string, v any) bool { m, ok := v.(map[string]any); return ok && len(m) == 0 }
	got := Normalize(t, []byte(`{"a":{},"b":{"c":{}},"d":[{"e":{}},1],"f":"","g":[]}`), emptyObject)
	want := map[string]any{"d": []any{map[string]any{}, 1.0}, "f": "", "g": []any{}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalize = %s, want %s", Indent(got), Indent(want))
	}
	if failed, _ := check(t, func(t testing.TB) { Normalize(t, []byte("nope"), emptyObject) }); !failed {
		t.Error("a body that is not JSON passed")
	}
}

func TestSame(t *testing.T) {
	if !Same(t, "x", map[string]any{"a": []any{1.0}}, map[string]any{"a": []any{1.0}}) {
		t.Error("equal values differ")
	}
	failed, msg := check(t, func(t testing.TB) { Same(t, "the body", map[string]int{"a": 1}, map[string]int{"a": 2}) })
	if want := "the body differs:\n--- got\n{\n  \"a\": 1\n}\n--- want\n{\n  \"a\": 2\n}"; !failed || msg != want {
		t.Errorf("Same on different values: failed %v, %q, want %q", failed, msg, want)
	}
}
