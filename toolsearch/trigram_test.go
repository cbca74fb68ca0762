package toolsearch

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTrigramIndexNeverMissesAText checks the prefilter's one promise, on random texts over a
// small alphabet (so that literals are often found) of every count around the word size: a text
// that contains a literal is always among the literal's candidates, and the union is the union.
func TestTrigramIndexNeverMissesAText(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte("abcde_1"[r.IntN(7)])
		}
		return b.String()
	}
	for _, n := range []int{0, 1, 63, 64, 65, 200} {
		texts := make([]string, n)
		for i := range texts {
			texts[i] = word(r.IntN(40))
			if i%17 == 0 {
				texts[i] = "" // searched always
			}
		}
		x := newTrigramIndex(texts, descSignatureBits)
		for range 50 {
			lits := []string{word(1 + r.IntN(6)), word(3 + r.IntN(3))}
			union, each := x.candidates(lits)
			for i, text := range texts {
				in := func(set []uint64) bool { return set[i/64]&(1<<(i%64)) != 0 }
				any := false
				for j, l := range lits {
					if (text == "" || strings.Contains(text, l)) && !in(each[j]) {
						t.Fatalf("%d texts: %q contains %q but is not a candidate", n, text, l)
					}
					any = any || in(each[j])
				}
				if in(union) != any {
					t.Fatalf("%d texts: text %d in union %v, in a literal's set %v", n, i, in(union), any)
				}
			}
			for _, set := range append(each, union, x.all()) {
				count := 0
				for _, w := range set {
					count += bits.OnesCount64(w)
				}
				if count > n {
					t.Fatalf("%d texts: a set of %d", n, count)
				}
			}
		}
	}
}
