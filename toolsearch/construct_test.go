package toolsearch

import (
	"math"
	"strings"
	"testing"
)

// TestNewKeywordRefuses: settings no search could use are construction errors naming the
// setting, and the zero config gives the defaults the deprecated form gives.
func TestNewKeywordRefuses(t *testing.T) {
	bad := map[string]KeywordConfig{
		"K1":                   {K1: -1},
		"Name.Weight":          {Name: &FieldParams{Weight: -1, B: 0.5}},
		"Description.B":        {Description: &FieldParams{Weight: 1, B: 1.5}},
		"OutputDescriptions.B": {OutputDescriptions: &FieldParams{Weight: 1, B: math.NaN()}},
	}
	for field, cfg := range bad {
		if ix, err := NewKeyword(cfg); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: NewKeyword = %v, %v; want an error naming it", field, ix, err)
		}
	}
	ix, err := NewKeyword(KeywordConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if old := NewKeywordIndex(nil); old.params.K1 != ix.params.K1 || len(old.params.Fields) != len(ix.params.Fields) {
		t.Errorf("NewKeyword's defaults %+v differ from NewKeywordIndex's %+v", ix.params, old.params)
	}
}

// TestNewVectorRefuses: a nil embedder fails at construction, not at the first IndexTools.
func TestNewVectorRefuses(t *testing.T) {
	e := &HashingEmbedder{}
	for name, tc := range map[string]struct {
		e   Embedder
		cfg VectorConfig
	}{
		"Embedder":  {nil, VectorConfig{}},
		"BatchSize": {e, VectorConfig{BatchSize: -1}},
		"MinScore":  {e, VectorConfig{MinScore: 2}},
	} {
		if ix, err := NewVector(tc.e, tc.cfg); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: NewVector = %v, %v; want an error naming it", name, ix, err)
		}
	}
	ix, err := NewVector(e, VectorConfig{})
	if err != nil {
		t.Fatal(err)
	}
	mustIndex(t, ix, "s", nil)
}
