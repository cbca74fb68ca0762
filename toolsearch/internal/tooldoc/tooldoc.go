// Package tooldoc reads the searchable text of a tool definition: its name, its description and
// the names and descriptions of its parameters, nested ones included.
package tooldoc

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/wield-ai/wield/tool"
)

// Doc is the text of one tool definition, field by field.
type Doc struct {
	Name              string
	Description       string
	ParamNames        []string
	ParamDescriptions []string
}

// schema is the part of a JSON Schema that documents parameters.
type schema struct {
	Description string             `json:"description"`
	Enum        []any              `json:"enum"`
	Properties  map[string]*schema `json:"properties"`
	Items       json.RawMessage    `json:"items"`
}

// maxDepth bounds the walk into nested schemas; deeper levels add little text and a hostile
// schema could nest without end.
const maxDepth = 8

// Of returns the text of def. A schema that is not valid JSON contributes nothing: the tool stays
// searchable by name and description.
func Of(def tool.Definition) Doc {
	d := Doc{Name: def.Name, Description: def.Description}
	if len(def.InputSchema) == 0 {
		return d
	}
	var s schema
	if json.Unmarshal(def.InputSchema, &s) != nil {
		return d
	}
	d.walk(&s, 0)
	return d
}

func (d *Doc) walk(s *schema, depth int) {
	if s == nil || depth > maxDepth {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		d.ParamNames = append(d.ParamNames, name)
		if p == nil {
			continue
		}
		if p.Description != "" {
			d.ParamDescriptions = append(d.ParamDescriptions, p.Description)
		}
		for _, v := range p.Enum {
			if s, ok := v.(string); ok && s != "" {
				d.ParamDescriptions = append(d.ParamDescriptions, s)
			}
		}
		d.walk(p, depth+1)
	}
	if len(s.Items) > 0 {
		var items schema
		if json.Unmarshal(s.Items, &items) == nil {
			d.walk(&items, depth+1)
		}
	}
}
