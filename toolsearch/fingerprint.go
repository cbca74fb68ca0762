package toolsearch

import (
	"github.com/wield-ai/wield/tool"
)

// fingerprint remembers the definitions a content key was computed from, tool by tool in the
// order they came, with each tool's part of the key. The next turn on the same tools finds their
// key by comparing their definitions with these instead of hashing them: the request's tools
// are new slices every turn, but their definitions' strings and schemas are the same values, and
// comparing a string with itself (same length, same data) costs one comparison of pointers,
// whatever its length. Definitions equal in content and not in memory are compared in full,
// and any difference is hashed: the key is always the key of what the definitions hold now.
//
// A fingerprint is immutable once built.
type fingerprint struct {
	tools []printedTool
	key   string
}

// printedTool is what the key reads of one definition, and the tool's part of the key.
type printedTool struct {
	name, description string
	schema, output    []byte
	sum               [2]uint64
}

func (p *printedTool) same(d tool.Definition) bool {
	return p.name == d.Name && p.description == d.Description && string(p.schema) == string(d.InputSchema) &&
		string(p.output) == string(d.OutputSchema)
}

// printer computes the content key of tools one after the other, against the fingerprint of an
// earlier turn (nil if none): a tool whose definition equals the one at its place there is not
// hashed again.
type printer struct {
	prev    *fingerprint
	key     keyHash
	tools   []printedTool // the new fingerprint, made only once a tool differs from prev
	changed bool
}

// list returns the fingerprint's tools; none for a nil fingerprint.
func (f *fingerprint) list() []printedTool {
	if f == nil {
		return nil
	}
	return f.tools
}

// add adds the i-th searchable tool.
func (p *printer) add(i int, d tool.Definition) {
	prev := p.prev.list()
	alike := i < len(prev) && prev[i].same(d)
	if alike && !p.changed {
		p.key.addSum(prev[i].sum)
		return
	}
	if !p.changed {
		p.changed = true
		p.tools = append(make([]printedTool, 0, max(len(prev), i+1)), prev[:i]...)
	}
	// The definition's own strings are kept, so that the next turn's compare with the same
	// values is a compare of pointers.
	pt := printedTool{name: d.Name, description: d.Description, schema: d.InputSchema, output: d.OutputSchema}
	if alike { // past the first change, tools at their places may still match
		pt.sum = prev[i].sum
	} else {
		pt.sum = toolSum(d)
	}
	p.key.addSum(pt.sum)
	p.tools = append(p.tools, pt)
}

// done returns the fingerprint of the tools added: prev itself when they were its tools.
func (p *printer) done() *fingerprint {
	if !p.changed {
		prev := p.prev.list()
		if int(p.key.n) == len(prev) && p.prev != nil {
			return p.prev
		}
		p.tools = prev[:p.key.n] // the first tools of prev, unchanged
	}
	return &fingerprint{tools: p.tools, key: p.key.String()}
}
