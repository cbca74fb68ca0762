package answers

import (
	"errors"
	"strings"
	"testing"
)

type answer struct{ id, say string }

func match(pending []string, as ...answer) ([]string, error) {
	return Match("call", pending, func(p string) string { return p }, as, func(a answer) string { return a.id },
		func(p string, a answer) (string, error) {
			if a.say == "" {
				return "", errors.New("says nothing")
			}
			return p + "=" + a.say, nil
		})
}

// Each pending call is decided by its own answer, in the pending calls' order whatever the
// answers' order; a missing, doubled or stray answer, or one its decision refuses, is an error
// naming the id.
func TestMatch(t *testing.T) {
	got, err := match([]string{"a", "b"}, answer{"b", "no"}, answer{"a", "yes"})
	if err != nil || strings.Join(got, " ") != "a=yes b=no" {
		t.Fatalf("got %q %v", got, err)
	}
	for _, c := range []struct {
		name    string
		answers []answer
		want    string
	}{
		{"missing", []answer{{"a", "yes"}}, `call "b" has no answer`},
		{"doubled", []answer{{"a", "yes"}, {"a", "no"}, {"b", "no"}}, `call "a" is answered twice`},
		{"stray", []answer{{"a", "yes"}, {"b", "no"}, {"c", "no"}}, `no pending call "c"`},
		{"refused", []answer{{"a", "yes"}, {"b", ""}}, `call "b": says nothing`},
	} {
		if _, err := match([]string{"a", "b"}, c.answers...); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}

// Edited arguments come as a JSON object or a string holding one; anything else is refused.
func TestArguments(t *testing.T) {
	for raw, want := range map[string]string{``: ``, `null`: ``, `{"a":1}`: `{"a":1}`, `"{\"a\":1}"`: `{"a":1}`} {
		if got, err := Arguments([]byte(raw)); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{`[1]`, `"not json"`, `3`} {
		if _, err := Arguments([]byte(raw)); err == nil || err.Error() != `"arguments" is not a JSON object` {
			t.Errorf("%s: %v", raw, err)
		}
	}
}
