package indextest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
	"github.com/wield-ai/wield/toolsearch/indextest"
)

// leaky is a deliberately broken index: every session shares one tool set.
type leaky struct{ toolsearch.Index }

func (l leaky) IndexTools(ctx context.Context, _ string, defs []tool.Definition) error {
	return l.Index.IndexTools(ctx, "all", defs)
}

func (l leaky) Search(ctx context.Context, req toolsearch.SearchRequest) ([]toolsearch.Hit, error) {
	req.Session = "all"
	return l.Index.Search(ctx, req)
}

func (l leaky) Clear(ctx context.Context, _ string) error { return l.Index.Clear(ctx, "all") }

// unbounded is a deliberately broken index: it ignores MaxResults.
type unbounded struct{ toolsearch.Index }

func (u unbounded) Search(ctx context.Context, req toolsearch.SearchRequest) ([]toolsearch.Hit, error) {
	req.MaxResults = 100
	return u.Index.Search(ctx, req)
}

// TestBrokenIndex runs the kit on a broken index when the parent test asks for it (see
// TestKitCatchesBrokenIndexes): a kit's failure cannot be observed from inside the test it fails.
func TestBrokenIndex(t *testing.T) {
	var ix func() toolsearch.Index
	switch os.Getenv("INDEXTEST_BROKEN") {
	case "leaky":
		ix = func() toolsearch.Index { return leaky{toolsearch.NewKeywordIndex(nil)} }
	case "unbounded":
		ix = func() toolsearch.Index { return unbounded{toolsearch.NewKeywordIndex(nil)} }
	default:
		t.Skip("run by TestKitCatchesBrokenIndexes")
	}
	indextest.Run(t, indextest.Config{New: ix})
}

func TestKitCatchesBrokenIndexes(t *testing.T) {
	for broken, want := range map[string][]string{
		"leaky":     {"--- FAIL: TestBrokenIndex/Sessions", "--- FAIL: TestBrokenIndex/Clear"},
		"unbounded": {"--- FAIL: TestBrokenIndex/MaxResultsAndFilter"},
	} {
		t.Run(broken, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenIndex$", "-test.v")
			cmd.Env = append(os.Environ(), "INDEXTEST_BROKEN="+broken)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the kit passed a broken index:\n%s", out)
			}
			for _, w := range want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestKeywordIndexPasses(t *testing.T) {
	indextest.Run(t, indextest.Config{New: func() toolsearch.Index { return toolsearch.NewKeywordIndex(nil) }})
}
