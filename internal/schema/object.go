package schema

import (
	"slices"
	"strconv"
)

// Member is one member of a JSON object as it is written.
type Member struct {
	// Key is the member's name, unescaped.
	Key string
	// RawKey is the name as written, with its quotes and escapes.
	RawKey string
	// Value is the JSON text of the value.
	Value string
}

// Members splits the JSON object text s into its members in order, checking its syntax as the
// validator does; blank text is the empty object. A key given twice is an error, since it would
// be ambiguous which value a reader sees. Errors are [*ArgumentError]s with Syntax set.
func Members(s string) ([]Member, error) {
	if isBlank(s) {
		return nil, nil
	}
	st := vstate{data: s}
	i := skipWS(s, 0)
	if s[i] != '{' {
		return nil, &ArgumentError{Syntax: true, Offset: i, Issues: []Issue{{Message: "the arguments are not a JSON object", Keyword: "type"}}}
	}
	members := make([]Member, 0, 4)
	var keys map[string]bool // once there are many members
	i = skipWS(s, i+1)
	if i < len(s) && s[i] == '}' {
		i++
	} else {
		for {
			if i >= len(s) || s[i] != '"' {
				st.unexpected(i, "looking for the beginning of an object key")
				return nil, st.err
			}
			kend, esc := st.scanString(i)
			if kend < 0 {
				return nil, st.err
			}
			m := Member{RawKey: s[i:kend], Key: s[i+1 : kend-1]}
			if esc {
				m.Key = string(unescape(nil, m.Key))
			}
			dup := keys[m.Key]
			if keys == nil {
				for _, o := range members {
					dup = dup || o.Key == m.Key
				}
				if len(members) >= 16 {
					keys = make(map[string]bool, 2*len(members))
					for _, o := range members {
						keys[o.Key] = true
					}
				}
			}
			if dup {
				return nil, &ArgumentError{Syntax: true, Offset: i, Issues: []Issue{{Message: "key " + strconv.Quote(m.Key) + " appears twice", Keyword: "duplicate"}}}
			}
			if keys != nil {
				keys[m.Key] = true
			}
			i = skipWS(s, kend)
			if i >= len(s) || s[i] != ':' {
				st.unexpected(i, "after object key (expected ':')")
				return nil, st.err
			}
			i = skipWS(s, i+1)
			end := st.value(anyNode, i)
			if end < 0 {
				return nil, st.err
			}
			m.Value = s[i:end]
			members = append(members, m)
			i = skipWS(s, end)
			if i >= len(s) {
				st.syntaxError(i, "unexpected end of input in object")
				return nil, st.err
			}
			if s[i] == '}' {
				i++
				break
			}
			if s[i] != ',' {
				st.unexpected(i, "after object member (expected ',' or '}')")
				return nil, st.err
			}
			i = skipWS(s, i+1)
		}
	}
	if i = skipWS(s, i); i < len(s) {
		st.syntaxError(i, "unexpected data after top-level value")
		return nil, st.err
	}
	return members, nil
}

// AppendObject writes members as a JSON object, keys as written.
func AppendObject(b []byte, members []Member) []byte {
	size := 2
	for _, m := range members {
		size += len(m.RawKey) + len(m.Key) + 4 + len(m.Value)
	}
	b = slices.Grow(b, size)
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		if m.RawKey != "" {
			b = append(b, m.RawKey...)
		} else {
			b = appendString(b, m.Key)
		}
		b = append(b, ':')
		b = append(b, m.Value...)
	}
	return append(b, '}')
}
