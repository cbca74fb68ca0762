package toolsearch

import (
	"context"
	"errors"
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
