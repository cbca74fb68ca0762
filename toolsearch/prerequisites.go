package toolsearch

import (
	"bytes"
	"errors"
	"slices"
	"unicode"
	"unicode/utf8"

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
	// The normalised names of the values each tool requires are kept in one arena; only the
	// values some tool returns get a number and a map entry. A large catalog's schemas then
	// cost few allocations, whatever the number of distinct input names.
	var (
		rd       schemaReader
		arena    []byte
		reqs     [][2]int32 // where each required value's name is in arena, tool after tool
		start    = make([]int32, len(defs)+1)
		ids      = map[string]int32{} // values returned, by name
		producer []int32              // by value: the tool returning it, -2 for several
		key      []byte
	)
	for t, d := range defs {
		start[t] = int32(len(reqs))
		if rd.read(d.InputSchema) {
		next:
			for _, ref := range rd.required {
				from := len(arena)
				if arena = appendValueKey(arena, rd.name(ref)); len(arena) == from {
					continue
				}
				for _, r := range reqs[start[t]:] {
					if bytes.Equal(arena[r[0]:r[1]], arena[from:]) {
						arena = arena[:from]
						continue next
					}
				}
				reqs = append(reqs, [2]int32{int32(from), int32(len(arena))})
			}
		}
		own := reqs[start[t]:]
		if !rd.read(d.OutputSchema) {
			continue
		}
	outputs:
		for _, ref := range rd.properties {
			if key = appendValueKey(key[:0], rd.name(ref)); len(key) == 0 {
				continue
			}
			// A tool that requires a value is no first step towards it, whatever it returns.
			for _, r := range own {
				if bytes.Equal(arena[r[0]:r[1]], key) {
					continue outputs
				}
			}
			switch v, ok := ids[string(key)]; {
			case !ok:
				ids[string(key)] = int32(len(producer))
				producer = append(producer, int32(t))
			case producer[v] != int32(t):
				producer[v] = -2
			}
		}
	}
	start[len(defs)] = int32(len(reqs))
	if len(ids) == 0 {
		return &Prerequisites{}
	}
	// The values the tools require, numbered, or -1 for those no tool returns.
	consumers := make([]int32, len(producer))
	required := make([]int32, len(reqs))
	for i, r := range reqs {
		v, ok := ids[string(arena[r[0]:r[1]])]
		if !ok {
			v = -1
		} else {
			consumers[v]++
		}
		required[i] = v
	}
	p := &Prerequisites{of: map[string][]Prerequisite{}}
	for t, d := range defs {
		var pre []Prerequisite
		for _, v := range required[start[t]:start[t+1]] {
			if v < 0 || producer[v] < 0 || consumers[v] < minConsumers {
				continue
			}
			if pt := defs[producer[v]].Name; !slices.ContainsFunc(pre, func(q Prerequisite) bool { return q.Tool == pt }) {
				pre = append(pre, Prerequisite{Tool: pt, Input: requiredName(&rd, d, arena, reqs[start[t]:start[t+1]], required[start[t]:start[t+1]], v)})
			}
		}
		if len(pre) > 0 {
			p.of[d.Name] = pre
		}
	}
	return p
}

// requiredName returns the name, as d spells it, of its required value v; refs and values are
// the tool's required values, as NewPrerequisites found them.
func requiredName(rd *schemaReader, d tool.Definition, arena []byte, refs [][2]int32, values []int32, v int32) string {
	ref := refs[slices.Index(values, v)]
	want := arena[ref[0]:ref[1]]
	rd.read(d.InputSchema)
	var key []byte
	for _, ref := range rd.required {
		if key = appendValueKey(key[:0], rd.name(ref)); bytes.Equal(key, want) {
			return string(rd.name(ref))
		}
	}
	return ""
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
		in      = make(map[string]bool, min(limit, 2*len(hits)))
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

// appendValueKey appends the name of a value as inputs and outputs are matched: its letters
// lower-cased and its digits, nothing else.
func appendValueKey(dst, name []byte) []byte {
	for i := 0; i < len(name); {
		c := name[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				dst = append(dst, c)
			case 'A' <= c && c <= 'Z':
				dst = append(dst, c+'a'-'A')
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(name[i:])
		switch {
		case unicode.IsLetter(r):
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		case unicode.IsDigit(r):
			dst = utf8.AppendRune(dst, r)
		}
		i += size
	}
	return dst
}

var errNotObject = errors.New("not a JSON object")

// schemaReader reads the top level of JSON Schemas of objects, reusing its decoder and its
// memory: the names read stay valid until the next read.
type schemaReader struct {
	rd    bytes.Reader
	dec   *jsontext.Decoder
	arena []byte
	// properties and required locate the names of the schema's properties and of its required
	// list in arena.
	properties, required [][2]int
}

// name returns the name ref locates.
func (r *schemaReader) name(ref [2]int) []byte { return r.arena[ref[0]:ref[1]] }

// read reads a schema, reporting whether it is a valid JSON object; it reads nothing of one that
// is not.
func (r *schemaReader) read(schema []byte) bool {
	r.arena, r.properties, r.required = r.arena[:0], r.properties[:0], r.required[:0]
	if len(bytes.TrimSpace(schema)) == 0 {
		return false
	}
	r.rd.Reset(schema)
	opts := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	if r.dec == nil {
		r.dec = jsontext.NewDecoder(&r.rd, opts...)
	} else {
		r.dec.Reset(&r.rd, opts...)
	}
	if err := r.object(); err != nil {
		r.arena, r.properties, r.required = r.arena[:0], r.properties[:0], r.required[:0]
		return false
	}
	return true
}

func (r *schemaReader) object() error {
	dec := r.dec
	if dec.PeekKind() != '{' {
		return errNotObject
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		key, err := dec.ReadValue()
		if err != nil {
			return err
		}
		switch k := string(key); {
		case k == `"properties"` && dec.PeekKind() == '{':
			r.properties = r.properties[:0] // a repeated member counts once, the last time
			r.properties, err = r.keys(r.properties)
		case k == `"required"` && dec.PeekKind() == '[':
			r.required = r.required[:0]
			r.required, err = r.strings(r.required)
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// str copies the string the decoder is at into the arena and locates it.
func (r *schemaReader) str() ([2]int, error) {
	raw, err := r.dec.ReadValue()
	if err != nil {
		return [2]int{}, err
	}
	from := len(r.arena)
	if bytes.IndexByte(raw, '\\') < 0 {
		r.arena = append(r.arena, raw[1:len(raw)-1]...)
	} else if r.arena, err = jsontext.AppendUnquote(r.arena, raw); err != nil {
		return [2]int{}, err
	}
	return [2]int{from, len(r.arena)}, nil
}

// keys reads the object the decoder is at and locates its member names.
func (r *schemaReader) keys(dst [][2]int) ([][2]int, error) {
	dec := r.dec
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	for dec.PeekKind() != '}' {
		ref, err := r.str()
		if err != nil {
			return nil, err
		}
		dst = append(dst, ref)
		if err := dec.SkipValue(); err != nil {
			return nil, err
		}
	}
	_, err := dec.ReadToken()
	return dst, err
}

// strings reads the array the decoder is at and locates its strings, skipping other values.
func (r *schemaReader) strings(dst [][2]int) ([][2]int, error) {
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
		ref, err := r.str()
		if err != nil {
			return nil, err
		}
		dst = append(dst, ref)
	}
	_, err := dec.ReadToken()
	return dst, err
}
