package cachepoint

import (
	"errors"
	"strings"
	"testing"
)

// setting is a provider's cache setting, of Layout's shape.
type setting struct {
	Tools    bool
	System   bool
	Messages int
	TTL      string
}

func (s setting) check() error { return Layout(s).Check("p", "points", "the API", 4) }

func TestPointsAndCheck(t *testing.T) {
	for _, tc := range []struct {
		l      Layout
		points int
		err    string
	}{
		{Layout{}, 0, ""},
		{Layout{Tools: true, System: true, Messages: 2, TTL: "1h"}, 4, ""},
		{Layout{Messages: 1, TTL: "5m"}, 1, ""},
		{Layout{Tools: true, System: true, Messages: 3}, 5, "p: cache: 5 points, the API accepts at most 4"},
		{Layout{Messages: -1}, -1, "p: cache: Messages -1 is negative"},
		{Layout{TTL: "10m"}, 0, `p: cache: TTL "10m" is none of "", "5m", "1h"`},
	} {
		if n := tc.l.Points(); n != tc.points {
			t.Errorf("%+v: %d points, want %d", tc.l, n, tc.points)
		}
		err := tc.l.Check("p", "points", "the API", 4)
		if got := ""; err != nil {
			got = err.Error()
			if got != tc.err {
				t.Errorf("%+v: %q, want %q", tc.l, got, tc.err)
			}
		} else if tc.err != "" {
			t.Errorf("%+v accepted, want %q", tc.l, tc.err)
		}
	}
}

func TestFromExtra(t *testing.T) {
	def, auto := setting{Messages: 2}, setting{Tools: true, System: true, Messages: 1}
	for _, tc := range []struct {
		name  string
		extra map[string]any
		want  setting
		err   string
	}{
		{"no key", nil, def, ""},
		{"a setting", map[string]any{"k": setting{System: true}}, setting{System: true}, ""},
		{"a pointer", map[string]any{"k": &setting{Tools: true}}, setting{Tools: true}, ""},
		{"a nil pointer", map[string]any{"k": (*setting)(nil)}, setting{}, ""},
		{"true", map[string]any{"k": true}, auto, ""},
		{"false", map[string]any{"k": false}, setting{}, ""},
		{"nil", map[string]any{"k": nil}, setting{}, ""},
		{"wrong type", map[string]any{"k": "auto"}, setting{}, "p: k is a string, want cachepoint.setting or a bool"},
		{"refused by check", map[string]any{"k": setting{Messages: 9}}, setting{}, "p: cache: 9 points"},
	} {
		got, err := FromExtra(tc.extra, "k", "p", def, auto, setting.check)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || got != (setting{}) {
				t.Errorf("%s: %+v, %v, want an error saying %q", tc.name, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v, want %+v", tc.name, got, err, tc.want)
		}
	}
	boom := errors.New("boom")
	if _, err := FromExtra(map[string]any{"k": true}, "k", "p", def, auto, func(setting) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("check's error: %v", err)
	}
}
