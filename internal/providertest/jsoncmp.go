package providertest

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wield-ai/wield/chat"
)

// JSONEqual reports whether a and b are JSON texts of the same value. A text that is not JSON is
// reported to t as an error, and is equal to nothing.
func JSONEqual(t testing.TB, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Errorf("not JSON: %q: %v", a, err)
		return false
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Errorf("not JSON: %q: %v", b, err)
		return false
	}
	return reflect.DeepEqual(x, y)
}

// SameCalls checks tool calls against the ones a recording holds: as many, each with the same
// ID, Name and Index, and arguments of the same JSON value. A different count fails t at once.
func SameCalls(t testing.TB, got, want []chat.ToolCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("tool calls = %+v, want %+v", got, want)
	}
	for i, c := range got {
		w := want[i]
		if c.ID != w.ID || c.Name != w.Name || c.Index != w.Index || !JSONEqual(t, c.Arguments, w.Arguments) {
			t.Errorf("tool call %d = %+v, want %+v", i, c, w)
		}
	}
}

// Canonical returns the JSON text b encoded again, compact and with its object keys sorted, so
// that texts of equal JSON compare equal. A b that is not JSON fails t.
func Canonical(t testing.TB, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %q: %v", b, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// Indent returns v as indented JSON, for a failure message.
func Indent(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// Normalize parses a JSON request body for comparison with a recorded one, dropping at any depth
// the object members drop reports to be as good as absent (clients write some empty values
// where others leave them out). drop sees a member's value once its own members are dropped. A
// body that is not JSON fails t.
func Normalize(t testing.TB, body []byte, drop func(key string, v any) bool) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	return dropMembers(v, drop)
}

func dropMembers(v any, drop func(string, any) bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			e = dropMembers(e, drop)
			if drop(k, e) {
				delete(x, k)
				continue
			}
			x[k] = e
		}
	case []any:
		for i := range x {
			x[i] = dropMembers(x[i], drop)
		}
	}
	return v
}

// Same reports whether got and want are deeply equal. When they are not, it reports both to t
// as an error, as indented JSON, saying what differs.
func Same(t testing.TB, what string, got, want any) bool {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return true
	}
	t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", what, Indent(got), Indent(want))
	return false
}
