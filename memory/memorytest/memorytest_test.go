package memorytest

import (
	"slices"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/testenv"
)

func TestCheckBatches(t *testing.T) {
	cat := func(parts ...[]chat.Message) []chat.Message { return slices.Concat(parts...) }
	a0, a1, b0 := Batch("a", 0, 3), Batch("a", 1, 2), Batch("b", 0, 4)
	changed := slices.Clone(a1)
	changed[1].ToolCalls = []chat.ToolCall{{ID: "x", Name: "probe"}}
	tests := []struct {
		name    string
		msgs    []chat.Message
		want    map[string]int
		wantErr string
	}{
		{"empty", nil, map[string]int{}, ""},
		{"two writers", cat(a0, b0, a1), map[string]int{"a": 2, "b": 1}, ""},
		{"lost batch", cat(a1), nil, "lost, repeated or reordered"},
		{"repeated batch", cat(a0, a0), nil, "lost, repeated or reordered"},
		{"reordered", cat(a1, a0), nil, "lost, repeated or reordered"},
		{"interleaved", cat(a0[:1], b0, a0[1:]), nil, "not stored intact"},
		{"starts mid-batch", cat(a0[1:]), nil, "interleaved or cut"},
		{"cut at the end", cat(a0, a1[:1]), nil, "cut after 1 of 2"},
		{"changed message", cat(a0, changed), nil, "not stored intact"},
		{"foreign message", cat(a0, []chat.Message{chat.User("hello")}), nil, "not a batch message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckBatches(tt.msgs)
			if testenv.WantError(t, err, tt.wantErr) {
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("counts = %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Fatalf("counts = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestEqual(t *testing.T) {
	rich := Rich()
	if !Equal(rich, Rich()) {
		t.Fatal("Rich() differs from itself")
	}
	empty := []chat.Message{{Role: chat.RoleUser, ToolCalls: []chat.ToolCall{}}}
	if !Equal(empty, []chat.Message{{Role: chat.RoleUser}}) {
		t.Fatal("empty and nil tool calls differ")
	}
	other := Rich()
	other[3].ToolResults[1].IsError = false
	if Equal(rich, other) {
		t.Fatal("a changed IsError went unnoticed")
	}
	if Equal(rich, rich[1:]) {
		t.Fatal("a missing message went unnoticed")
	}
}
