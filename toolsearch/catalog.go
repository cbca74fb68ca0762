package toolsearch

import (
	"errors"
	"fmt"

	"github.com/wield-ai/wield/tool"
)

// Catalog is a fixed set of tools made ready for search once: its definitions are read, its
// names checked and its content hashed when it is built, not on every turn. Give an [Advisor] a
// large catalog this way ([Config].Catalog, or [ParamCatalog] on a request) rather than as the
// request's tools: a turn then costs the same with 50 tools or 50,000, and every conversation on
// the catalog shares one index.
//
// A Catalog is immutable and safe for concurrent use. Build a new one when the tools change.
type Catalog struct {
	tools  []tool.Tool
	defs   []tool.Definition // in the order of tools
	byName map[string]int
	key    string
}

// NewCatalog returns a catalog of tools. Names must be non-empty and unique, and none may be
// [SearchToolName].
func NewCatalog(tools ...tool.Tool) (*Catalog, error) {
	c := &Catalog{
		tools:  make([]tool.Tool, len(tools)),
		defs:   make([]tool.Definition, len(tools)),
		byName: make(map[string]int, len(tools)),
	}
	for i, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("toolsearch: catalog tool %d is nil", i)
		}
		d := t.Definition()
		switch _, dup := c.byName[d.Name]; {
		case d.Name == "":
			return nil, fmt.Errorf("toolsearch: catalog tool %d has an empty name", i)
		case d.Name == SearchToolName:
			return nil, fmt.Errorf("toolsearch: the catalog has a tool named %s, the search tool's name", SearchToolName)
		case dup:
			return nil, fmt.Errorf("toolsearch: the catalog has two tools named %q", d.Name)
		}
		c.tools[i], c.defs[i], c.byName[d.Name] = t, d, i
	}
	if len(tools) == 0 {
		return nil, errors.New("toolsearch: empty catalog")
	}
	c.key = contentKey(c.defs)
	return c, nil
}

// Len returns the number of tools in the catalog.
func (c *Catalog) Len() int { return len(c.tools) }

// Tools returns the catalog's tools in the order they were given.
func (c *Catalog) Tools() []tool.Tool { return append([]tool.Tool(nil), c.tools...) }

// Lookup returns the catalog's tool with the given name.
func (c *Catalog) Lookup(name string) (tool.Tool, bool) {
	i, ok := c.byName[name]
	if !ok {
		return nil, false
	}
	return c.tools[i], true
}
