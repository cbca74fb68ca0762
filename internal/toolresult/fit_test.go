package toolresult

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
)

func jsonSize(v any) (int, error) {
	b, err := json.Marshal(v)
	return len(b), err
}

func note(n int) string { return fmt.Sprintf("dropped %d bytes", n) }

// TestFit: the largest results go first, only as many as the bound needs, the size returned
// is the message's measured again, and the caller's results are untouched.
func TestFit(t *testing.T) {
	m := chat.ToolMessage(
		chat.ToolResult{ID: "a", Name: "f", Content: strings.Repeat("a", 100)},
		chat.ToolResult{ID: "b", Name: "f", Content: strings.Repeat("b", 300)},
		chat.ToolResult{ID: "c", Name: "f", Content: strings.Repeat("c", 200)},
	)
	size, _ := jsonSize(m)
	got, n, err := Fit(m, size, size-250, jsonSize, note)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := jsonSize(got); n != want || n > size-250 {
		t.Errorf("size %d, measured %d, limit %d", n, want, size-250)
	}
	r := got.ToolResults
	if r[0].IsError || r[2].IsError || !r[1].IsError || !strings.HasPrefix(r[1].Content, "dropped ") || r[1].ID != "b" || r[1].Name != "f" {
		t.Errorf("results %+v", r)
	}
	if m.ToolResults[1].IsError {
		t.Error("the caller's message changed")
	}
	// A bound that nothing but dropping all of them meets drops all of them.
	got, _, _ = Fit(m, size, 0, jsonSize, note)
	for _, r := range got.ToolResults {
		if !r.IsError {
			t.Errorf("kept %s under a bound of 0", r.ID)
		}
	}
	// Within the bound, nothing is dropped.
	got, n, _ = Fit(m, size, size, jsonSize, note)
	if n != size || got.ToolResults[1].IsError {
		t.Errorf("within the bound: size %d, results %+v", n, got.ToolResults)
	}
}

func TestFitSizeError(t *testing.T) {
	boom := errors.New("boom")
	m := chat.ToolMessage(chat.ToolResult{ID: "a", Content: "x"})
	if _, _, err := Fit(m, 10, 1, func(any) (int, error) { return 0, boom }, note); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}
