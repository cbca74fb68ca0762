package schema

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The reference resolver: every $ref and $dynamicRef of a schema is resolved here, when the
// schema is compiled, by the rules jsonschema-go follows (base URIs from $id, anchors, JSON
// Pointers into any keyword), so that a cycle through any form of reference is found before
// anything validates with the schema, and the single-pass validator can follow every form.

const (
	draft7URI       = "http://json-schema.org/draft-07/schema#"
	draft7SecureURI = "https://json-schema.org/draft-07/schema#"
)

// resolution is what the resolver learned of a schema tree.
type resolution struct {
	draft7 bool
	// all lists every schema of the tree, parents before children.
	all []*jsonschema.Schema
	// path is the JSON Pointer of each schema from the root.
	path map[*jsonschema.Schema]string
	// ref is the schema each $ref refers to.
	ref map[*jsonschema.Schema]*jsonschema.Schema
	// dynamic lists the schemas each $dynamicRef may refer to: its lexical target, or every
	// schema with a matching $dynamicAnchor when the reference is resolved at run time.
	dynamic map[*jsonschema.Schema][]*jsonschema.Schema
}

type anchor struct {
	s       *jsonschema.Schema
	dynamic bool
}

type resolver struct {
	res     *resolution
	uris    map[string]*jsonschema.Schema // absolute URI without fragment → schema with that base
	base    map[*jsonschema.Schema]*jsonschema.Schema
	uri     map[*jsonschema.Schema]*url.URL // of the root and schemas with an $id
	anchors map[*jsonschema.Schema]map[string]anchor
}

// resolveRefs resolves every reference of root, which jsonschema-go has already resolved (so
// remote references, which it cannot load, never get here).
func resolveRefs(root *jsonschema.Schema) (*resolution, error) {
	r := &resolver{
		res: &resolution{
			draft7: root.Schema == draft7URI || root.Schema == draft7SecureURI,
			path:   map[*jsonschema.Schema]string{},
			ref:    map[*jsonschema.Schema]*jsonschema.Schema{},
		},
		uris:    map[string]*jsonschema.Schema{},
		base:    map[*jsonschema.Schema]*jsonschema.Schema{},
		uri:     map[*jsonschema.Schema]*url.URL{},
		anchors: map[*jsonschema.Schema]map[string]anchor{},
	}
	rootURI := &url.URL{}
	r.uri[root] = rootURI
	r.uris[rootURI.String()] = root
	if err := r.walk(root, root, ""); err != nil {
		return nil, err
	}
	res := r.res
	for _, s := range res.all {
		if s.Ref != "" {
			t, _, err := r.lookup(s, s.Ref)
			if err != nil {
				return nil, fmt.Errorf("$ref %q: %w", s.Ref, err)
			}
			res.ref[s] = t
		}
		if s.DynamicRef != "" {
			t, frag, err := r.lookup(s, s.DynamicRef)
			if err != nil {
				return nil, fmt.Errorf("$dynamicRef %q: %w", s.DynamicRef, err)
			}
			if res.dynamic == nil {
				res.dynamic = map[*jsonschema.Schema][]*jsonschema.Schema{}
			}
			if frag == "" {
				res.dynamic[s] = []*jsonschema.Schema{t}
				continue
			}
			// Resolved at run time against the schemas being applied: any schema with this
			// dynamic anchor may be the target.
			for _, o := range res.all {
				if o.DynamicAnchor == frag {
					res.dynamic[s] = append(res.dynamic[s], o)
				}
			}
		}
	}
	return res, nil
}

func (r *resolver) walk(s, base *jsonschema.Schema, path string) error {
	r.res.all = append(r.res.all, s)
	r.res.path[s] = path
	if s.ID != "" && !(r.res.draft7 && s.Ref != "") {
		id, err := url.Parse(s.ID)
		if err != nil {
			return err
		}
		if r.res.draft7 && id.Fragment != "" {
			// In draft-07 an $id with a fragment names an anchor.
			r.setAnchor(base, strings.TrimPrefix(s.ID, "#"), s, false)
		} else {
			u := r.uri[base].ResolveReference(id)
			r.uri[s] = u
			r.uris[u.String()] = s
			base = s
		}
	}
	r.base[s] = base
	if !r.res.draft7 {
		r.setAnchor(base, s.Anchor, s, false)
		r.setAnchor(base, s.DynamicAnchor, s, true)
	}
	var err error
	eachChild(s, func(seg string, c *jsonschema.Schema) bool {
		err = r.walk(c, base, path+"/"+seg)
		return err == nil
	})
	return err
}

func (r *resolver) setAnchor(base *jsonschema.Schema, name string, s *jsonschema.Schema, dynamic bool) {
	if name == "" {
		return
	}
	m := r.anchors[base]
	if m == nil {
		m = map[string]anchor{}
		r.anchors[base] = m
	}
	if _, dup := m[name]; !dup {
		m[name] = anchor{s, dynamic}
	}
}

// lookup resolves ref, found in s, and returns its target and, for a reference to a dynamic
// anchor, the anchor's name.
func (r *resolver) lookup(s *jsonschema.Schema, ref string) (*jsonschema.Schema, string, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return nil, "", err
	}
	u = r.uri[r.base[s]].ResolveReference(u)
	fragless := *u
	fragless.Fragment, fragless.RawFragment = "", ""
	doc := r.uris[fragless.String()]
	if doc == nil {
		return nil, "", fmt.Errorf("%s is not part of the schema", fragless.String())
	}
	frag := u.Fragment
	if frag != "" && !strings.HasPrefix(frag, "/") {
		a, ok := r.anchors[doc][frag]
		if !ok {
			return nil, "", fmt.Errorf("no anchor %q", frag)
		}
		if a.dynamic {
			return a.s, frag, nil
		}
		return a.s, "", nil
	}
	t, err := pointerTarget(doc, frag)
	return t, "", err
}

// pointerTarget follows the JSON Pointer ptr from s to a subschema.
func pointerTarget(s *jsonschema.Schema, ptr string) (*jsonschema.Schema, error) {
	if ptr == "" {
		return s, nil
	}
	if ptr[0] != '/' {
		return nil, fmt.Errorf("JSON Pointer %q does not begin with '/'", ptr)
	}
	segs := strings.Split(ptr[1:], "/")
	for i := range segs {
		segs[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(segs[i])
	}
	for len(segs) > 0 {
		kw := segs[0]
		segs = segs[1:]
		var next *jsonschema.Schema
		if m := schemaMap(s, kw); m != nil {
			if len(segs) == 0 {
				return nil, fmt.Errorf("%q is not a schema", kw)
			}
			next = m[segs[0]]
			segs = segs[1:]
		} else if list, ok := schemaList(s, kw); ok {
			if len(segs) == 0 {
				return nil, fmt.Errorf("%q is not a schema", kw)
			}
			n, err := strconv.Atoi(segs[0])
			if err != nil || n < 0 || n >= len(list) || (len(segs[0]) > 1 && segs[0][0] == '0') {
				return nil, fmt.Errorf("no item %q in %q", segs[0], kw)
			}
			next = list[n]
			segs = segs[1:]
		} else {
			next = schemaField(s, kw)
		}
		if next == nil {
			return nil, errors.New("no such subschema")
		}
		s = next
	}
	return s, nil
}

func schemaMap(s *jsonschema.Schema, kw string) map[string]*jsonschema.Schema {
	switch kw {
	case "$defs":
		return s.Defs
	case "definitions":
		return s.Definitions
	case "dependencies":
		return s.DependencySchemas
	case "properties":
		return s.Properties
	case "patternProperties":
		return s.PatternProperties
	case "dependentSchemas":
		return s.DependentSchemas
	}
	return nil
}

func schemaList(s *jsonschema.Schema, kw string) ([]*jsonschema.Schema, bool) {
	switch kw {
	case "items":
		return s.ItemsArray, s.Items == nil && s.ItemsArray != nil
	case "prefixItems":
		return s.PrefixItems, true
	case "allOf":
		return s.AllOf, true
	case "anyOf":
		return s.AnyOf, true
	case "oneOf":
		return s.OneOf, true
	}
	return nil, false
}

func schemaField(s *jsonschema.Schema, kw string) *jsonschema.Schema {
	switch kw {
	case "items":
		return s.Items
	case "additionalItems":
		return s.AdditionalItems
	case "contains":
		return s.Contains
	case "unevaluatedItems":
		return s.UnevaluatedItems
	case "additionalProperties":
		return s.AdditionalProperties
	case "propertyNames":
		return s.PropertyNames
	case "unevaluatedProperties":
		return s.UnevaluatedProperties
	case "not":
		return s.Not
	case "if":
		return s.If
	case "then":
		return s.Then
	case "else":
		return s.Else
	case "contentSchema":
		return s.ContentSchema
	}
	return nil
}

// eachChild calls f with every immediate subschema of s and its JSON Pointer segments from s,
// in a fixed order, until f returns false.
func eachChild(s *jsonschema.Schema, f func(seg string, c *jsonschema.Schema) bool) bool {
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	for _, kw := range []string{"$defs", "definitions", "dependencies", "properties", "patternProperties", "dependentSchemas"} {
		m := schemaMap(s, kw)
		for _, k := range sortedKeys(m) {
			if !f(kw+"/"+esc.Replace(k), m[k]) {
				return false
			}
		}
	}
	for _, kw := range []string{"items", "prefixItems", "allOf", "anyOf", "oneOf"} {
		list, _ := schemaList(s, kw)
		if kw == "items" && s.Items != nil {
			continue
		}
		for i, c := range list {
			if !f(kw+"/"+strconv.Itoa(i), c) {
				return false
			}
		}
	}
	for _, kw := range []string{"items", "additionalItems", "contains", "unevaluatedItems", "additionalProperties",
		"propertyNames", "unevaluatedProperties", "not", "if", "then", "else", "contentSchema"} {
		if c := schemaField(s, kw); c != nil && !f(kw, c) {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]*jsonschema.Schema) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// inPlace returns the schemas s applies to the very value it is applied to: its references and
// logical keywords. A cycle among these never ends.
func (res *resolution) inPlace(s *jsonschema.Schema) []*jsonschema.Schema {
	next := slices.Concat(s.AllOf, s.AnyOf, s.OneOf)
	next = appendPresent(next, s.Not, s.If, s.Then, s.Else)
	next = appendSorted(next, s.DependentSchemas)
	next = appendSorted(next, s.DependencySchemas)
	if t := res.ref[s]; t != nil {
		next = append(next, t)
	}
	return append(next, res.dynamic[s]...)
}

// children returns the schemas s applies to the items, members or keys of the value.
func children(s *jsonschema.Schema) []*jsonschema.Schema {
	out := slices.Concat(s.PrefixItems, s.ItemsArray)
	out = appendPresent(out, s.Items, s.AdditionalItems, s.Contains, s.UnevaluatedItems,
		s.AdditionalProperties, s.PropertyNames, s.UnevaluatedProperties)
	out = appendSorted(out, s.Properties)
	return appendSorted(out, s.PatternProperties)
}

// appendPresent appends the schemas that are not nil.
func appendPresent(out []*jsonschema.Schema, schemas ...*jsonschema.Schema) []*jsonschema.Schema {
	for _, c := range schemas {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// appendSorted appends the schemas of m in the order of their keys.
func appendSorted(out []*jsonschema.Schema, m map[string]*jsonschema.Schema) []*jsonschema.Schema {
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}

// checkCycles refuses a schema that applies itself to the same value without end, such as
// {"$ref":"#"}, whatever form its references take: validating with it would never finish (in
// jsonschema-go, it ends the process with a stack overflow). With recursive also set, it
// reports whether the schema reaches itself at all, through the values' items or members.
func (res *resolution) checkCycles() (recursive bool, err error) {
	const (
		unseen = iota
		active
		done
	)
	// In place only.
	state := map[*jsonschema.Schema]uint8{}
	var visit func(s *jsonschema.Schema) error
	visit = func(s *jsonschema.Schema) error {
		switch state[s] {
		case active:
			return fmt.Errorf("the schema at %q applies itself to the same value endlessly (through $ref, allOf, anyOf, oneOf, not, if or dependentSchemas)", "#"+res.path[s])
		case done:
			return nil
		}
		state[s] = active
		for _, n := range res.inPlace(s) {
			if err := visit(n); err != nil {
				return err
			}
		}
		state[s] = done
		return nil
	}
	for _, s := range res.all {
		if err := visit(s); err != nil {
			return false, err
		}
	}
	// Through every edge.
	clear(state)
	var reach func(s *jsonschema.Schema) bool
	reach = func(s *jsonschema.Schema) bool {
		switch state[s] {
		case active:
			return true
		case done:
			return false
		}
		state[s] = active
		for _, n := range slices.Concat(res.inPlace(s), children(s)) {
			if reach(n) {
				return true
			}
		}
		state[s] = done
		return false
	}
	for _, s := range res.all {
		if reach(s) {
			return true, nil
		}
	}
	return false, nil
}
