package toolsearch

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/tool"
)

func TestRegexRanking(t *testing.T) {
	tools := []tool.Definition{
		{Name: "list_issues", Description: "Lists the issues of a repository."},
		{Name: "issue", Description: "Gets one issue."},
		{Name: "create_issue", Description: "Opens an issue."},
		{Name: "search", Description: "Searches code, issues and pull requests."},
		{Name: "merge", Description: "Merges a pull request."},
	}
	ix := NewRegexIndex()
	if err := ix.IndexTools(context.Background(), "s", tools); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		want  []string
	}{
		// Whole-name match, then names by match position, then descriptions.
		{"issue", []string{"issue", "list_issues", "create_issue", "search"}},
		{"ISSUE", []string{"issue", "list_issues", "create_issue", "search"}},
		{"(?-i)ISSUE", nil},
		{"^(list|create)_", []string{"create_issue", "list_issues"}},
		{"pull request", []string{"merge", "search"}},
		{"(?:merge|search)", []string{"merge", "search"}},
		{"nothing-like-this", nil},
	}
	for _, tt := range tests {
		got := search(t, ix, "s", tt.query, 10)
		if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("%q: got %v, want %v", tt.query, got, tt.want)
		}
	}
}

func TestRegexInvalid(t *testing.T) {
	ix := NewRegexIndex()
	if err := ix.IndexTools(context.Background(), "s", catalog); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"weather(", "", "   ", strings.Repeat("a", MaxRegexLength+1)} {
		_, err := ix.Search(context.Background(), SearchRequest{Session: "s", Query: q})
		if !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("%q: %v, want ErrInvalidQuery", q, err)
		}
	}
	_, err := ix.Search(context.Background(), SearchRequest{Session: "s", Query: "weather("})
	if err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("compiler message lost: %v", err)
	}
}

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		pattern string
		want    []string
	}{
		{"weather", []string{"weather"}},
		{"Weather|FORECAST", []string{"weather", "forecast"}},
		{"^github_.*issue", []string{"github_"}},
		{"get(Weather|Forecast)s?", []string{"weather", "forecast"}}, // the longer literals are more selective
		{"(weather)+", []string{"weather"}},
		{"(weather){2,3}", []string{"weather"}},
		{"(weather)*x", []string{"x"}},
		{"(weather)?", nil},
		{"weather|.*", nil},
		{"[a-z]+", nil},
		{"café", nil}, // not ASCII: no prefilter
		{"(?-i)Issue", []string{"issue"}},
	}
	for _, tt := range tests {
		tree, err := syntax.Parse("(?i)"+tt.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		got := requiredLiterals(tree)
		slices.Sort(got)
		want := slices.Clone(tt.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", tt.pattern, got, want)
		}
	}
}

// TestRegexPrefilterIsExact compares the index with plain regular-expression matching over
// texts built to trip the prefilter: mixed case, non-ASCII case folds, matches across words.
func TestRegexPrefilterIsExact(t *testing.T) {
	texts := []string{"getWeather", "GET_WEATHER_FORECAST", "weathering", "Kelvin \u212a scale", "ſtop sign",
		"STOP", "stoP it", "café au lait", "CAFÉ", "issues of github_repo", "gitHub issue tracker", "x", "weatherweather"}
	var defs []tool.Definition
	for i, n := range texts {
		defs = append(defs, tool.Definition{Name: fmt.Sprintf("t%02d_%s", i, strings.ReplaceAll(n, " ", "")), Description: texts[(i+5)%len(texts)]})
	}
	ix := NewRegexIndex()
	if err := ix.IndexTools(context.Background(), "s", defs); err != nil {
		t.Fatal(err)
	}
	patterns := []string{"weather", "WEATHER|forecast", "stop", "s", "k", "kelvin", "caf", "café", "github.*issue",
		"(weather){2}", "(?-i)STOP", "x|y", "t0[0-3]", "^t1", "ing$", "(get|Git)", "ſ", "\\bstop\\b"}
	for _, p := range patterns {
		re := regexp.MustCompile("(?i)" + p)
		var want []string
		for _, d := range defs {
			if re.MatchString(d.Name) || re.MatchString(d.Description) {
				want = append(want, d.Name)
			}
		}
		got := search(t, ix, "s", p, 100)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%q: index found %v, regexp finds %v", p, got, want)
		}
	}
}
