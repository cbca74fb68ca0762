// Package toolresult brings a tool message under a size bound by dropping its largest results, as
// memory's window does with a message over its cap and a Temporal turn with a round over its
// payload bound: the call still has a result, one that tells the model what happened.
package toolresult

import (
	"cmp"
	"slices"

	"github.com/wield-ai/wield/chat"
)

// Fit returns tool message m with its largest results replaced by error results whose text
// is note(the dropped result's size), as few as bring size to at most limit, and the size it
// then has. size is m's size before, with whatever the caller counts beside it; sizeOf measures
// one result. A result's encoding does not depend on its neighbours', so the size is kept by
// differences rather than by measuring the message again for each result. m's results are
// copied: the caller's stay as they were.
func Fit(m chat.Message, size, limit int, sizeOf func(any) (int, error), note func(size int) string) (chat.Message, int, error) {
	sizes := make([]int, len(m.ToolResults))
	order := make([]int, len(m.ToolResults))
	for i, r := range m.ToolResults {
		n, err := sizeOf(r)
		if err != nil {
			return m, 0, err
		}
		sizes[i], order[i] = n, i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[b], sizes[a]) })
	m.ToolResults = slices.Clone(m.ToolResults)
	for _, i := range order {
		if size <= limit {
			break
		}
		r := &m.ToolResults[i]
		*r = chat.ToolResult{ID: r.ID, Name: r.Name, IsError: true, Content: note(sizes[i])}
		n, err := sizeOf(*r)
		if err != nil {
			return m, 0, err
		}
		size += n - sizes[i]
	}
	return m, size, nil
}
