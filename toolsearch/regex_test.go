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
	mustIndex(t, ix, "s", tools)
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
	mustIndex(t, ix, "s", catalog)
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
		// Exact parts multiplied out: every match is one of these.
		{"get(Weather|Forecast)s?", []string{"getweathers", "getweather", "getforecasts", "getforecast"}},
		{"get(Weather|Forecast).*s", []string{"getweather", "getforecast"}},
		{"sunset|sunrise", []string{"sunset", "sunrise"}}, // parsed as sun(?:set|rise)
		{"tool_[abc]", []string{"tool_a", "tool_b", "tool_c"}},
		{"tool_[a-z]", []string{"tool_"}},                                                                             // too many to spell out
		{"(?-i:T)ool[0-9]", []string{"ool0", "ool1", "ool2", "ool3", "ool4", "ool5", "ool6", "ool7", "ool8", "ool9"}}, // T is case-sensitive: not exact
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
	mustIndex(t, ix, "s", defs)
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

// regexReference is what a regex search must return before filter and limit: plain regexp
// matching of every tool, name before description, ranked as [RegexIndex] documents.
func regexReference(sorted []tool.Definition, pattern string) []Hit {
	re := regexp.MustCompile("(?i)" + pattern)
	type match struct{ def, rank, pos int }
	var ms []match
	for i, d := range sorted {
		if loc := re.FindStringIndex(d.Name); loc != nil {
			rank := 1
			if loc[0] == 0 && loc[1] == len(d.Name) {
				rank = 0
			}
			ms = append(ms, match{i, rank, loc[0]})
		} else if loc := re.FindStringIndex(d.Description); loc != nil {
			ms = append(ms, match{i, 2, loc[0]})
		}
	}
	slices.SortFunc(ms, func(a, b match) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		if a.pos != b.pos {
			return a.pos - b.pos
		}
		return a.def - b.def
	})
	hits := make([]Hit, len(ms))
	for i, m := range ms {
		hits[i] = Hit{Name: sorted[m.def].Name, Score: float64(3-m.rank) + 0.5/float64(1+m.pos)}
	}
	return hits
}

// TestRegexSearchMatchesRegexp compares whole results, order and scores included, with plain
// regexp matching: on texts built to trip the prefilter and on a large synthetic catalog, for
// patterns the parser rewrites (common prefixes factored out, single characters merged into
// classes), exact sets with optional parts, anchors, case-sensitive parts, patterns that match
// the empty string, with and without a filter, for several limits.
func TestRegexSearchMatchesRegexp(t *testing.T) {
	texts := []string{"getWeather", "GET_WEATHER_FORECAST", "weathering", "Kelvin \u212a scale", "ſtop sign",
		"STOP", "stoP it", "café au lait", "CAFÉ", "issues of github_repo", "gitHub issue tracker", "x", "weatherweather",
		"list_issues", "issue", "create_issue", "issues", "Issue tracker: issues and ISSUES", "sunset and sunrise",
		"tool_a tool_B tool_7", "a1 a2 A3", "getweathers getforecast", "", "k", "KK", "ks"}
	var tricky []tool.Definition
	for i, n := range texts {
		name := strings.NewReplacer(" ", "", ":", "").Replace(n)
		if name == "" {
			name = "empty"
		}
		tricky = append(tricky, tool.Definition{Name: fmt.Sprintf("%s_%02d", name, i), Description: texts[(i+5)%len(texts)]})
		tricky = append(tricky, tool.Definition{Name: n + fmt.Sprint(i), Description: n})
	}
	// Whole-name matches depend on which of the matches at one position RE2 prefers.
	for _, n := range []string{"issues", "getweathers", "ks", "sunset", "tool_7", "KS"} {
		tricky = append(tricky, tool.Definition{Name: n, Description: "b3 in lower case"})
	}
	syn := newSynthetic(800, 20, 11)
	patterns := []string{"weather", "WEATHER|forecast", "stop", "s", "k", "kelvin", "caf", "café", "github.*issue",
		"(weather){2}", "(?-i)STOP", "x|y", "t0[0-3]", "^t1", "ing$", "(get|Git)", "ſ", "\\bstop\\b",
		"issues?", "issue|issues", "issues|issue", "(issue)??s", "sunset|sunrise", "sun(set|rise)|sunny", "tool_[ab7]",
		"tool_[a-z]", "a[1-3]", "a1|a2|a3", "(?-i:I)ssue", "get(weather|forecast)s?", "weather()", "(weather)?",
		"x*", "", "[kK]", "[k]s", "k|ks", "ks|k", "(?i:K)S", "^issue$", "^(list|create)_", "issue\\b",
		"gra|grapor", "kalo|kalomi|kalomi1", "(ka|lo)(mi|ter)", "[^a]", "porvel|porter|por", "(?-i:[AB])3",
		"(?-i:[ab])3", "issue(s|)", "issue(|s)", "getweather(s)??", "k(s)?", "k(s)??"}
	patterns = append(patterns, regexQueries(syn)...)
	even := func(d tool.Definition) bool { return len(d.Name)%2 == 0 }
	for _, c := range []struct {
		name string
		defs []tool.Definition
	}{{"tricky", tricky}, {"synthetic", syn.tools}} {
		ix := NewRegexIndex()
		mustIndex(t, ix, "s", c.defs)
		sorted, err := sortDefs(c.defs)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range patterns {
			if strings.TrimSpace(p) == "" {
				continue // an invalid query
			}
			all := regexReference(sorted, p)
			var filtered []Hit
			for _, h := range all {
				if len(h.Name)%2 == 0 {
					filtered = append(filtered, h)
				}
			}
			for _, k := range []int{1, 5, len(c.defs)} {
				for _, f := range []func(tool.Definition) bool{nil, even} {
					got, err := ix.Search(context.Background(), SearchRequest{Session: "s", Query: p, MaxResults: k, Filter: f})
					if err != nil {
						t.Fatalf("%s %q: %v", c.name, p, err)
					}
					want := all
					if f != nil {
						want = filtered
					}
					if want = want[:min(k, len(want))]; !slices.Equal(got, want) && len(got)+len(want) > 0 {
						t.Fatalf("%s %q, k %d, filter %v:\n got %v\nwant %v", c.name, p, k, f != nil, got, want)
					}
				}
			}
		}
	}
}
