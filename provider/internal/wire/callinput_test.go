package wire

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
)

func TestCallInput(t *testing.T) {
	parseErr := errors.New("parse refused")
	parse := func(b []byte) (string, error) {
		if !json.Valid(b) {
			return "", parseErr
		}
		return string(b), nil
	}
	for _, tc := range []struct {
		name, id, args string
		want, wantErr  string
	}{
		{"none", "c1", "", "{}", ""},
		{"blank", "c1", " \n", "{}", ""},
		{"trimmed", "c1", ` {"a":1} `, `{"a":1}`, ""},
		{"no id", "", `{}`, "", `call of tool "f" has no id`},
		{"array", "c1", `[1]`, "", `call c1 of tool "f": arguments "[1]" are not a JSON object`},
		{"refused by parse", "c1", `{"a":`, "", `call c1 of tool "f": arguments "{\"a\":" are not a JSON object: parse refused`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CallInput(chat.ToolCall{ID: tc.id, Name: "f", Arguments: tc.args}, parse)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("CallInput = %q, %v; want error %q", got, err, tc.wantErr)
				}
				if tc.name == "refused by parse" && !errors.Is(err, parseErr) {
					t.Errorf("error %v does not wrap parse's", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("CallInput = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestAppendParts(t *testing.T) {
	parts := []content.Part{content.Text("a"), content.Text(""), content.Text("b"), content.Audio([]byte{1}, "audio/wav")}
	textOnly := func(p content.Part) (string, bool, error) {
		if p.Kind != content.KindText {
			return "", false, errors.New("not text")
		}
		return p.Text, p.Text != "", nil
	}
	got, err := AppendParts([]string{"x"}, slices.Values(parts[:3]), textOnly)
	if err != nil || !slices.Equal(got, []string{"x", "a", "b"}) {
		t.Fatalf("AppendParts = %q, %v; want [x a b]", got, err)
	}
	if got, err := AppendParts([]string{"x"}, slices.Values(parts), textOnly); err == nil || !strings.Contains(err.Error(), "not text") || got != nil {
		t.Fatalf("AppendParts = %q, %v; want the part's error and nothing", got, err)
	}
}
