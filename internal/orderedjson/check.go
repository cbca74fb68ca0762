package orderedjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/wield-ai/wield/content"
)

// Bounds limit the shape of JSON that [Check] accepts; a zero field sets no limit.
type Bounds struct {
	MaxString int // bytes in one string, key or value
	MaxList   int // elements of one array, or members of one object
	MaxDepth  int // nesting of arrays and objects
}

// ConfigBounds are the bounds of a configuration file a person writes: each is far above any
// real file, and keeps a hostile or mistaken one (a 200 MB value, a million-element list) from
// taking the machine's memory once decoded.
var ConfigBounds = Bounds{MaxString: 64 << 10, MaxList: 4096, MaxDepth: 32}

// Check refuses JSON that a decoder would take silently but that is surely a mistake or an
// attack: a key given twice in one object (encoding/json keeps the last, so a file edited by
// hand could mean one thing to its reader and another to the program), and strings, arrays,
// objects or nesting past b. Each error names where in data it is, as a.b[2].c. Syntax errors
// are left to the decoder that follows, which says where they are.
func Check(data []byte, b Bounds) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type level struct {
		object  bool
		keys    map[string]bool
		n       int
		path    string // where the level is, as a.b[2]
		wantKey bool   // in an object: the next token is a key, not a value
		lastKey string
	}
	over := func(n, limit int) bool { return limit > 0 && n > limit }
	var stack []*level
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or a syntax error the decoder reports
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if top != nil && top.object && top.wantKey {
			k, _ := tok.(string)
			if over(len(k), b.MaxString) {
				return fmt.Errorf("%s: a key of %s is over the limit of %s", top.path, content.FormatSize(len(k)), content.FormatSize(b.MaxString))
			}
			if top.keys[k] {
				return fmt.Errorf("%s: key %q is given twice (a duplicate key, of which a decoder keeps only the last)", memberPath(top.path, k), k)
			}
			top.keys[k] = true
			if top.n++; over(top.n, b.MaxList) {
				return fmt.Errorf("%s has more than %d members", top.path, b.MaxList)
			}
			top.wantKey, top.lastKey = false, k
			continue
		}
		// A value: its place, for messages.
		name := topLevel
		switch {
		case top != nil && top.object:
			name = memberPath(top.path, top.lastKey)
			top.wantKey = true
		case top != nil:
			name = top.path + "[" + strconv.Itoa(top.n) + "]"
			if top.n++; over(top.n, b.MaxList) {
				return fmt.Errorf("%s has more than %d elements", top.path, b.MaxList)
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			if b.MaxDepth > 0 && len(stack) >= b.MaxDepth {
				return fmt.Errorf("%s: nested more than %d deep", name, b.MaxDepth)
			}
			stack = append(stack, &level{object: v == '{', keys: map[string]bool{}, path: name, wantKey: v == '{'})
		case string:
			if over(len(v), b.MaxString) {
				return fmt.Errorf("%s: a string of %s is over the limit of %s", name, content.FormatSize(len(v)), content.FormatSize(b.MaxString))
			}
		}
	}
}

// topLevel names the value data holds, in messages.
const topLevel = "the document"

// memberPath names member key of the object at path, quoting a key that would be ambiguous in a
// path or unsafe to print (a control or bidirectional character).
func memberPath(path, key string) string {
	if strings.ContainsAny(key, ". []\"") || strconv.Quote(key) != `"`+key+`"` {
		key = strconv.Quote(key)
	}
	if path == topLevel {
		return key
	}
	return path + "." + key
}
