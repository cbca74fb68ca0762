package wire

import (
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
)

func TestOptions(t *testing.T) {
	if _, err := Options("x", nil); err == nil || err.Error() != "x: nil prompt" {
		t.Fatalf("nil prompt: %v", err)
	}
	o, err := Options("x", &chat.Prompt{})
	if err != nil || o == nil || o.Model != "" {
		t.Fatalf("prompt without options: %+v, %v", o, err)
	}
	want := &chat.Options{Model: "m"}
	if o, err := Options("x", &chat.Prompt{Options: want}); err != nil || o != want {
		t.Fatalf("prompt's options: %+v, %v", o, err)
	}
}

func TestCompactObject(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", "{}", ""},
		{" null ", "{}", ""},
		{"{ \"city\" : \"Paris\" ,\n \"n\": [1, 2] }", `{"city":"Paris","n":[1,2]}`, ""},
		{"[1]", "", "is not a JSON object"},
		{`"text"`, "", "is not a JSON object"},
		{`{"city":`, "", "is not valid JSON"},
	} {
		got, err := CompactObject([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("CompactObject(%q) = %q, %v, want an error saying %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("CompactObject(%q) = %q, %v, want %q", tc.in, got, err, tc.want)
		}
	}
}
