package toolsearch_test

import (
	"testing"

	"github.com/wield-ai/wield/toolsearch"
	"github.com/wield-ai/wield/toolsearch/indextest"
)

// TestIndexesKeepTheContract runs the public index kit on every index of the package.
func TestIndexesKeepTheContract(t *testing.T) {
	t.Run("keyword", func(t *testing.T) {
		indextest.Run(t, indextest.Config{New: func() toolsearch.Index { return toolsearch.NewKeywordIndex(nil) }})
	})
	t.Run("regex", func(t *testing.T) {
		indextest.Run(t, indextest.Config{New: func() toolsearch.Index { return toolsearch.NewRegexIndex() }, ForecastQuery: "weather.*forecast"})
	})
	t.Run("vector", func(t *testing.T) {
		indextest.Run(t, indextest.Config{New: func() toolsearch.Index { return toolsearch.NewVectorIndex(&toolsearch.HashingEmbedder{}, nil) }})
	})
}
