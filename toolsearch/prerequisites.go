package toolsearch

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"unicode"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/wield-ai/wield/tool"
)

// minConsumers is the fewest tools of a set that must require a value before the one tool
// returning it becomes their prerequisite. A value that many tools take and a single tool makes
// is a handle of the set (a session token, a user id); a name one tool returns and another takes
// ("weight", "city") is more often a coincidence. Chosen on a development set (Seal-Tools dev)
// among 1, 2, 3, 4, 6 and 10 (3 and 6 tied; the smaller serves small catalogs).
const minConsumers = 3

// Prerequisite is a tool that returns an input another tool requires: it has to run first.
type Prerequisite struct {
	// Tool is the name of the tool that returns the value.
	Tool string
	// Input is the name of the required input of the dependent tool that Tool returns.
	Input string
}

// Prerequisites knows, for the tools of one set, which other tools must run before them: a
// tool requires an input (it is in the "required" list of its input schema) that exactly one
// other tool of the set returns (it is a property of that tool's output schema, and not an input
// it requires itself), and at least three tools of the set require it. Names match whatever
// their case and separators: user_id, userId and UserID are one value.
//
// A search that finds DeleteAccount(token) is of no use without GetUserToken, the one tool that
// returns a token, yet no query for "delete my account" finds it: the request never mentions a
// token. With Prerequisites the search tool brings GetUserToken along ([Prerequisites.BringAlong]).
// Only output schemas are read, as MCP servers advertise them (tool.Definition.OutputSchema): a
// tool without one is never a prerequisite.
//
// A Prerequisites is immutable and safe for concurrent use.
type Prerequisites struct {
	of map[string][]Prerequisite
}

// NewPrerequisites reads the schemas of a tool set. A schema that is not a JSON object, or not
// valid JSON, contributes nothing.
func NewPrerequisites(defs []tool.Definition) *Prerequisites {
	type needs struct {
		name     string
		required []string // as written
	}
	var (
		rd        schemaReader
		consumers = map[string]int{}      // normalised input → tools requiring it
		producers = map[string][]string{} // normalised output → tools returning it
		all       = make([]needs, 0, len(defs))
	)
	for _, d := range defs {
		_, required := rd.read(d.InputSchema)
		own := make(map[string]bool, len(required))
		for _, r := range required {
			if n := valueKey(r); n != "" && !own[n] {
				own[n] = true
				consumers[n]++
			}
		}
		if len(required) > 0 {
			all = append(all, needs{d.Name, required})
		}
		outputs, _ := rd.read(d.OutputSchema)
		seen := map[string]bool{}
		for _, o := range outputs {
			// A tool that requires a value is no first step towards it, whatever it returns.
			if n := valueKey(o); n != "" && !own[n] && !seen[n] {
				seen[n] = true
				producers[n] = append(producers[n], d.Name)
			}
		}
	}
	p := &Prerequisites{of: map[string][]Prerequisite{}}
	for _, t := range all {
		var pre []Prerequisite
		for _, r := range t.required {
			n := valueKey(r)
			if ps := producers[n]; len(ps) == 1 && consumers[n] >= minConsumers &&
				!slices.ContainsFunc(pre, func(q Prerequisite) bool { return q.Tool == ps[0] }) {
				pre = append(pre, Prerequisite{Tool: ps[0], Input: r})
			}
		}
		if len(pre) > 0 {
			p.of[t.name] = pre
		}
	}
	return p
}

// Of returns the prerequisites of the named tool, in the order of its required inputs.
func (p *Prerequisites) Of(name string) []Prerequisite {
	if p == nil {
		return nil
	}
	return slices.Clone(p.of[name])
}

// BringAlong returns at most limit of hits, best first, with the prerequisites of the tools it
// keeps: those take the last places, in the order of the tools needing them, and the hits they
// displace are the weakest. A prerequisite among the hits keeps its own place; one brought along
// has the score of the hit that needs it. Prerequisites of prerequisites come along too.
func (p *Prerequisites) BringAlong(hits []Hit, limit int) []Hit {
	out, _ := p.bringAlong(hits, limit)
	return out
}

// broughtAlong is a tool that came along as the prerequisite of a tool found.
type broughtAlong struct {
	Prerequisite
	// For is the tool that needs it.
	For string
}

// bringAlong is BringAlong, also telling which tools came along and for which.
func (p *Prerequisites) bringAlong(hits []Hit, limit int) ([]Hit, []broughtAlong) {
	if limit <= 0 {
		return nil, nil
	}
	if p == nil || len(p.of) == 0 {
		return slices.Clone(hits[:min(limit, len(hits))]), nil
	}
	var (
		out     = make([]Hit, 0, min(limit, len(hits)))
		pending []Hit
		along   []broughtAlong
		in      = make(map[string]bool, limit)
	)
	var add func(name string, score float64)
	add = func(name string, score float64) {
		for _, pre := range p.of[name] {
			if in[pre.Tool] || len(out)+len(pending) >= limit {
				continue
			}
			in[pre.Tool] = true
			pending = append(pending, Hit{Name: pre.Tool, Score: score})
			along = append(along, broughtAlong{pre, name})
			add(pre.Tool, score)
		}
	}
	for _, h := range hits {
		if len(out)+len(pending) >= limit {
			break
		}
		if in[h.Name] {
			// Found by the search too: it takes its own place rather than one at the end.
			if i := slices.IndexFunc(pending, func(q Hit) bool { return q.Name == h.Name }); i >= 0 {
				pending = slices.Delete(pending, i, i+1)
				along = slices.DeleteFunc(along, func(b broughtAlong) bool { return b.Tool == h.Name })
				out = append(out, h)
			}
			continue
		}
		in[h.Name] = true
		out = append(out, h)
		add(h.Name, h.Score)
	}
	return append(out, pending...), along
}

// valueKey is the name of a value as inputs and outputs are matched: lower-case letters and
// digits only.
func valueKey(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r):
			return unicode.ToLower(r)
		case unicode.IsDigit(r):
			return r
		}
		return -1
	}, name)
}

var errNotObject = errors.New("not a JSON object")

// schemaReader reads the top level of JSON Schemas of objects, reusing its decoder.
type schemaReader struct {
	rd  bytes.Reader
	dec *jsontext.Decoder
}

// read returns the names of the schema's properties and its required names, or nothing for a
// schema that is not a valid JSON object.
func (r *schemaReader) read(schema []byte) (properties, required []string) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil, nil
	}
	r.rd.Reset(schema)
	opts := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	if r.dec == nil {
		r.dec = jsontext.NewDecoder(&r.rd, opts...)
	} else {
		r.dec.Reset(&r.rd, opts...)
	}
	properties, required, err := r.object()
	if err != nil {
		return nil, nil
	}
	return properties, required
}

func (r *schemaReader) object() (properties, required []string, err error) {
	dec := r.dec
	if dec.PeekKind() != '{' {
		return nil, nil, errNotObject
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, nil, err
	}
	for dec.PeekKind() != '}' {
		key, err := dec.ReadToken()
		if err != nil {
			return nil, nil, err
		}
		switch k := key.String(); {
		case k == "properties" && dec.PeekKind() == '{':
			properties = properties[:0]
			if properties, err = r.keys(properties); err != nil {
				return nil, nil, err
			}
		case k == "required" && dec.PeekKind() == '[':
			required = required[:0]
			if required, err = r.strings(required); err != nil {
				return nil, nil, err
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return nil, nil, err
			}
		}
	}
	_, err = dec.ReadToken()
	return properties, required, err
}

// keys reads the object the decoder is at and returns its member names.
func (r *schemaReader) keys(dst []string) ([]string, error) {
	dec := r.dec
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	for dec.PeekKind() != '}' {
		key, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		dst = append(dst, key.String())
		if err := dec.SkipValue(); err != nil {
			return nil, err
		}
	}
	_, err := dec.ReadToken()
	return dst, err
}

// strings reads the array the decoder is at and returns its strings, skipping other values.
func (r *schemaReader) strings(dst []string) ([]string, error) {
	dec := r.dec
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	for dec.PeekKind() != ']' {
		if dec.PeekKind() != '"' {
			if err := dec.SkipValue(); err != nil {
				return nil, err
			}
			continue
		}
		v, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		dst = append(dst, v.String())
	}
	_, err := dec.ReadToken()
	return dst, err
}
