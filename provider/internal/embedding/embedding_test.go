package embedding

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestBatches(t *testing.T) {
	texts := []string{"aaaa", "bb", "cccccc", "d", "eeeeeeeeeeee", "f"}
	tests := []struct {
		name               string
		maxItems, maxBytes int
		want               [][]string
		starts             []int
	}{
		{"by count", 4, 0, [][]string{texts[:4], texts[4:]}, []int{0, 4}},
		{"by bytes", 100, 8, [][]string{{"aaaa", "bb"}, {"cccccc", "d"}, {"eeeeeeeeeeee"}, {"f"}}, []int{0, 2, 4, 5}},
		{"both", 1, 100, [][]string{{"aaaa"}, {"bb"}, {"cccccc"}, {"d"}, {"eeeeeeeeeeee"}, {"f"}}, []int{0, 1, 2, 3, 4, 5}},
		{"exact fit", 3, 12, [][]string{{"aaaa", "bb", "cccccc"}, {"d"}, {"eeeeeeeeeeee"}, {"f"}}, []int{0, 3, 4, 5}},
		{"zero count is one", 0, 0, [][]string{{"aaaa"}, {"bb"}, {"cccccc"}, {"d"}, {"eeeeeeeeeeee"}, {"f"}}, []int{0, 1, 2, 3, 4, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [][]string
			var starts []int
			for start, b := range Batches(texts, tt.maxItems, tt.maxBytes) {
				got = append(got, b)
				starts = append(starts, start)
			}
			if !slices.EqualFunc(got, tt.want, slices.Equal) || !slices.Equal(starts, tt.starts) {
				t.Errorf("batches %q at %v, want %q at %v", got, starts, tt.want, tt.starts)
			}
		})
	}
	for range Batches(nil, 10, 10) {
		t.Error("a batch for no texts")
	}
	n := 0
	for range Batches(texts, 1, 0) {
		n++
		break
	}
	if n != 1 {
		t.Error("iteration did not stop")
	}
}

func TestVectors(t *testing.T) {
	v := NewVectors(3, 0)
	for i, vec := range [][]float32{{1, 2}, {3, 4}} {
		if err := v.Put(i, vec); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := v.Result(); err == nil || !strings.Contains(err.Error(), "no embedding for input 2") {
		t.Errorf("incomplete result: %v", err)
	}
	if err := v.Put(2, []float32{5, 6}); err != nil {
		t.Fatal(err)
	}
	got, err := v.Result()
	if err != nil || len(got) != 3 || got[2][1] != 6 {
		t.Errorf("result %v, %v", got, err)
	}

	bad := []struct {
		name string
		dims int
		put  func(*Vectors) error
		want string
	}{
		{"out of range", 0, func(v *Vectors) error { return v.Put(3, []float32{1}) }, "input 3, but there are 3"},
		{"negative", 0, func(v *Vectors) error { return v.Put(-1, []float32{1}) }, "input -1"},
		{"twice", 0, func(v *Vectors) error { _ = v.Put(0, []float32{1}); return v.Put(0, []float32{1}) }, "two embeddings"},
		{"empty", 0, func(v *Vectors) error { return v.Put(0, []float32{}) }, "empty embedding"},
		{"mixed", 0, func(v *Vectors) error { _ = v.Put(0, []float32{1}); return v.Put(1, []float32{1, 2}) }, "1 and 2 dimensions"},
		{"not asked for", 2, func(v *Vectors) error { return v.Put(0, []float32{1, 2, 3}) }, "3 dimensions for input 0, 2 were asked"},
		{"NaN", 0, func(v *Vectors) error { return v.Put(1, []float32{1, float32(math.NaN())}) }, "NaN or infinite value in the embedding for input 1"},
		{"infinite", 0, func(v *Vectors) error { return v.Put(0, []float32{float32(math.Inf(-1))}) }, "NaN or infinite"},
	}
	for _, tt := range bad {
		if err := tt.put(NewVectors(3, tt.dims)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	if err := Count(2, 3); err == nil || err.Error() != "2 embeddings for 3 inputs" {
		t.Errorf("Count: %v", err)
	}
	if err := Count(3, 3); err != nil {
		t.Error(err)
	}
}
