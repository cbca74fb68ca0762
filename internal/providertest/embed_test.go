package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wield-ai/wield/toolsearch"
)

func TestHashedVectors(t *testing.T) {
	vecs := hashed(t, 16, "weather in a city", "weather in a town", "stock price")
	if len(vecs) != 3 || len(vecs[0]) != 16 || len(hashed(t, 0, "a")[0]) != 512 {
		t.Fatalf("%d vectors of %d dimensions", len(vecs), len(vecs[0]))
	}
	if !EqualVectors(hashed(t, 16, "weather in a city"), vecs[:1]) {
		t.Error("the same text gave another vector")
	}
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	if dot(vecs[0], vecs[1]) <= dot(vecs[0], vecs[2]) {
		t.Error("texts sharing words are not the closer ones")
	}
}

func TestEqualVectors(t *testing.T) {
	a := [][]float32{{1, 2}, {3, 4}}
	tests := []struct {
		name string
		b    [][]float32
		want bool
	}{
		{"same", [][]float32{{1, 2}, {3, 4}}, true},
		{"one value differs", [][]float32{{1, 2}, {3, 4.5}}, false},
		{"other order", [][]float32{{3, 4}, {1, 2}}, false},
		{"one vector missing", [][]float32{{1, 2}}, false},
		{"a vector shorter", [][]float32{{1, 2}, {3}}, false},
		{"none", nil, false},
	}
	for _, tt := range tests {
		if got := EqualVectors(a, tt.b); got != tt.want {
			t.Errorf("%s: EqualVectors = %v", tt.name, got)
		}
	}
}

func TestWaits(t *testing.T) {
	var w Waits
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			if err := w.Sleep(context.Background(), time.Duration(i)*time.Second); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := w.All()
	slices.Sort(got)
	if !slices.Equal(got, []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}) {
		t.Errorf("waits %v", got)
	}
	got[0] = time.Hour
	if w.All()[0] == time.Hour {
		t.Error("All shares its slice")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Sleep(ctx, time.Minute); !errors.Is(err, context.Canceled) || len(w.All()) != 5 {
		t.Errorf("Sleep with a cancelled context: %v, %d waits", err, len(w.All()))
	}
}

func TestEmbedHashed(t *testing.T) {
	texts := []string{"weather in a city", "stock price", "send an email"}
	tests := []struct {
		name   string
		e      toolsearch.Embedder
		dim    int
		prefix string
		fails  bool
	}{
		{"sound", toyEmbedder{}, 0, "", false},
		{"vectors out of order", toyEmbedder{reverse: true}, 0, "", true},
		{"a vector missing", toyEmbedder{dropLast: true}, 0, "", true},
		{"an error", toyEmbedder{fail: true}, 0, "", true},
		{"other dimensions", toyEmbedder{}, 16, "", true},
		{"the prefix left out", toyEmbedder{}, 0, "search_query: ", true},
		{"the prefix added", toyEmbedder{prefix: "search_query: "}, 0, "search_query: ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectCaught(t, tt.fails, func(t testing.TB) { EmbedHashed(t, tt.e, tt.dim, tt.prefix, texts...) })
		})
	}
}

// toyEmbedder is HashingEmbedder with at most one flaw.
type toyEmbedder struct {
	reverse  bool   // return the vectors in the reverse order of their texts
	constant bool   // return the same vector for every text
	fail     bool   // return an error
	dropLast bool   // return one vector too few
	instead  string // embed this text in place of each text
	prefix   string // not a flaw: embed each text with this prefix
}

func (e toyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.fail {
		return nil, errors.New("toy: no vectors today")
	}
	if e.instead != "" {
		texts = slices.Repeat([]string{e.instead}, len(texts))
	}
	if e.prefix != "" {
		texts = slices.Clone(texts)
		for i := range texts {
			texts[i] = e.prefix + texts[i]
		}
	}
	vecs, err := (&toolsearch.HashingEmbedder{}).Embed(ctx, texts)
	switch {
	case err != nil:
		return nil, err
	case e.reverse:
		slices.Reverse(vecs)
	case e.constant:
		for i := range vecs {
			vecs[i] = vecs[0]
		}
	case e.dropLast:
		vecs = vecs[:len(vecs)-1]
	}
	return vecs, nil
}

func TestEmbedderSearch(t *testing.T) {
	tests := []struct {
		name          string
		docs, queries toolsearch.Embedder
		fails         bool
	}{
		{"sound", toyEmbedder{}, nil, false},
		{"sound, with a query embedder", toyEmbedder{}, toyEmbedder{}, false},
		{"vectors out of order", toyEmbedder{reverse: true}, nil, true},
		{"one vector for all", toyEmbedder{constant: true}, nil, true},
		{"an error", toyEmbedder{fail: true}, nil, true},
		{"a vector missing", toyEmbedder{dropLast: true}, nil, true},
		{"the query embedder fails", toyEmbedder{}, toyEmbedder{fail: true}, true},
		{"the query embedder embeds other texts", toyEmbedder{}, toyEmbedder{instead: "book a flight"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectCaught(t, tt.fails, func(t testing.TB) { EmbedderSearch(t, tt.docs, tt.queries) })
		})
	}
}

func TestHashingAPI(t *testing.T) {
	type request struct{ Input []string }
	srv := HashingAPI(func(r *request) []string { return r.Input }, func(r *request, vecs [][]float32) any {
		return map[string]any{"n": len(r.Input), "vecs": vecs}
	})
	defer srv.Close()
	post := func(body string) (int, []byte) {
		res, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	status, body := post(`{"Input":["get the weather","send an email"]}`)
	var got struct {
		N    int
		Vecs [][]float32
	}
	if err := json.Unmarshal(body, &got); status != 200 || err != nil || got.N != 2 ||
		!EqualVectors(got.Vecs, hashed(t, 0, "get the weather", "send an email")) {
		t.Fatalf("answer %d %s", status, body)
	}
	if status, _ := post(`{"Input":`); status != http.StatusBadRequest {
		t.Fatalf("a broken body: status %d", status)
	}
}
