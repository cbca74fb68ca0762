package orderedjson

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestBudget(t *testing.T) {
	o, err := ParseObject([]byte(`{"type":"object","description":"a thing","required":["a"],"properties":{"a":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var b Budget
	if err := b.Charge(o); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{"type": "object", "description": "a thing"})
	if b.used < len(raw) {
		t.Fatalf("charged %d bytes for an object whose scalars alone take %d", b.used, len(raw))
	}
	small := Budget{Limit: 100}
	var last error
	for range 20 {
		if last = small.Charge(o); last != nil {
			break
		}
	}
	if !errors.Is(last, ErrTooLarge) {
		t.Fatalf("a budget of 100 bytes took 20 objects: %v", last)
	}
	if err := (&Budget{Limit: 4}).Charge(map[string]any{}); err != nil {
		t.Fatalf("an empty object passed a 4-byte budget: %v", err)
	}
	for _, v := range []any{"abc", json.Number("12"), 1.5, true, nil, []any{"x", 1.0}} {
		var b Budget
		if err := b.Charge(v); err != nil || b.used == 0 {
			t.Fatalf("Charge(%v): %v, %d bytes", v, err, b.used)
		}
	}
}
