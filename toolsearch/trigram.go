package toolsearch

import "math/bits"

// Signature sizes in bits: names are short, descriptions a few sentences. A text sets one bit
// per distinct trigram, so longer texts set more of them and pass the prefilter more often,
// which costs time, never results.
const (
	nameSignatureBits = 128
	descSignatureBits = 512
)

// trigramIndex is a prefilter for substring search in many short lower-case texts: each text
// has a signature with a bit set for each of its trigrams (a Bloom filter), stored bit-sliced,
// so that finding the texts whose signature holds every bit of a literal's is an AND of a few
// rows of one bit per text. A text that contains the literal holds all of its trigrams and so
// is always found; a few that do not are found too and ruled out by the search proper.
type trigramIndex struct {
	bits  int      // signature bits, a power of two
	n     int      // texts
	words int      // words in a row: one bit per text
	rows  []uint64 // bits rows of words: row b has bit i set if text i's signature has bit b
}

// trigramBit returns the signature bit of the trigram of s at i.
func trigramBit(s string, i, sigBits int) int {
	// Fibonacci hashing: the high bits of the product are well mixed.
	h := (uint32(s[i])<<16 | uint32(s[i+1])<<8 | uint32(s[i+2])) * 0x9e3779b1
	return int(h >> (32 - bits.TrailingZeros(uint(sigBits))))
}

// newTrigramIndex indexes texts, which are lower-case ASCII or "", for a text that always has
// to be searched: it gets every bit.
func newTrigramIndex(texts []string, sigBits int) trigramIndex {
	x := trigramIndex{bits: sigBits, n: len(texts), words: (len(texts) + 63) / 64}
	x.rows = make([]uint64, sigBits*x.words)
	for i, t := range texts {
		w, bit := i/64, uint64(1)<<(i%64)
		if t == "" {
			for b := range sigBits {
				x.rows[b*x.words+w] |= bit
			}
			continue
		}
		for j := 0; j+3 <= len(t); j++ {
			x.rows[trigramBit(t, j, sigBits)*x.words+w] |= bit
		}
	}
	return x
}

// all returns a set of every text, one bit per text.
func (x trigramIndex) all() []uint64 {
	set := make([]uint64, x.words)
	for i := range set {
		set[i] = ^uint64(0)
	}
	if r := x.n % 64; r != 0 {
		set[x.words-1] = 1<<r - 1
	}
	return set
}

// candidates returns, for each lower-case literal, the set of texts that may contain it, one
// bit per text, and the union of these sets. A literal shorter than three bytes has no trigram
// and keeps every text.
func (x trigramIndex) candidates(lits []string) (union []uint64, each [][]uint64) {
	union = make([]uint64, x.words)
	each = make([][]uint64, len(lits))
	var seen []int
	for k, l := range lits {
		if len(l) < 3 {
			each[k] = x.all()
		} else {
			set := make([]uint64, x.words)
			seen = seen[:0]
			for j := 0; j+3 <= len(l); j++ {
				b := trigramBit(l, j, x.bits)
				if containsInt(seen, b) {
					continue
				}
				row := x.rows[b*x.words : (b+1)*x.words]
				if len(seen) == 0 {
					copy(set, row)
				} else {
					for w := range set {
						set[w] &= row[w]
					}
				}
				seen = append(seen, b)
			}
			each[k] = set
		}
		for w := range union {
			union[w] |= each[k][w]
		}
	}
	return union, each
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
