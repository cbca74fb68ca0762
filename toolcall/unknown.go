package toolcall

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wield-ai/wield/tool"
)

// Bounds of the message for an unknown tool: a request with many tools (2,000 proxied from MCP
// servers) would otherwise send every name back with each wrong call, tens of kilobytes a time.
const (
	// maxListedBytes bounds the names listed: all of them when they fit, else the closest.
	maxListedBytes = 1024
	// maxClosest is how many of the closest names are listed when not all fit.
	maxClosest = 10
	// maxEchoedName bounds the called name repeated in the message.
	maxEchoedName = 100
	// maxComparedName bounds the bytes of each name compared, so that a long name the model
	// made up costs no more than a short one.
	maxComparedName = 128
)

// unknownTool is the cause reported for a call of a tool the request does not offer. It lists
// the available tools when their names fit in maxListedBytes, and otherwise the few whose names
// are closest to the one called, which is what a model that misspelled a name needs.
func unknownTool(name string, available []tool.Definition) error {
	echoed := quoteBounded(name, maxEchoedName)
	if len(available) == 0 {
		return fmt.Errorf("%w %s: no tools are available", ErrUnknownTool, echoed)
	}
	total := 0
	for _, d := range available {
		total += len(d.Name) + 2
	}
	var b strings.Builder
	if total <= maxListedBytes {
		for i, d := range available {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(d.Name)
		}
		return fmt.Errorf("%w %s; the available tools are: %s", ErrUnknownTool, echoed, b.String())
	}
	closest := closestNames(name, available, maxClosest)
	for i, n := range closest {
		if i > 0 && b.Len()+len(n) > maxListedBytes {
			closest = closest[:i]
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
	return fmt.Errorf("%w %s; of the %d available tools, the %d with the closest names are: %s",
		ErrUnknownTool, echoed, len(available), len(closest), b.String())
}

// quoteBounded quotes s as %q does, cut to at most n bytes of s.
func quoteBounded(s string, n int) string {
	if len(s) <= n {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…", s[:n])
}

// closestNames returns up to k names of available, most similar to name first (ties in the
// order offered). Similarity is the Dice coefficient of the names' byte bigrams, case folded:
// it ranks misspellings, other casings and other separators ("get_weather" for "getWeather")
// near the name, and costs one pass over each name.
func closestNames(name string, available []tool.Definition, k int) []string {
	var query bigramSet
	nq := query.addAll(name)
	type scored struct {
		score float64
		index int
	}
	best := make([]scored, 0, k+1)
	for i, d := range available {
		n := d.Name
		if len(n) > maxComparedName {
			n = n[:maxComparedName]
		}
		matches, nd := 0, max(len(n)-1, 0)
		for j := 0; j+1 < len(n); j++ {
			if query.has(bigram(n[j], n[j+1])) {
				matches++
			}
		}
		score := 0.0
		if nq+nd > 0 {
			score = 2 * float64(matches) / float64(nq+nd)
		}
		if len(best) == k && score <= best[k-1].score {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, score, func(s scored, score float64) int {
			if s.score >= score { // equal scores keep the earlier tool first
				return -1
			}
			return 1
		})
		best = slices.Insert(best, at, scored{score, i})
		if len(best) > k {
			best = best[:k]
		}
	}
	out := make([]string, len(best))
	for i, s := range best {
		out[i] = available[s.index].Name
	}
	return out
}

// bigramSet is a set of byte bigrams.
type bigramSet [1 << 16 / 64]uint64

func (s *bigramSet) has(bg uint16) bool { return s[bg>>6]&(1<<(bg&63)) != 0 }

// addAll adds the bigrams of the first maxComparedName bytes of name and returns how many there
// are.
func (s *bigramSet) addAll(name string) int {
	if len(name) > maxComparedName {
		name = name[:maxComparedName]
	}
	for i := 0; i+1 < len(name); i++ {
		bg := bigram(name[i], name[i+1])
		s[bg>>6] |= 1 << (bg & 63)
	}
	return max(len(name)-1, 0)
}

// bigram is the bigram of a and b, ASCII letters folded to lower case.
func bigram(a, b byte) uint16 { return uint16(lower(a))<<8 | uint16(lower(b)) }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
