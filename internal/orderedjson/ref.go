package orderedjson

import (
	"fmt"
	"strconv"
	"strings"
)

// ResolveRef finds the value a local $ref points to in root: "#" is root itself, "#/a/b/0" a JSON
// pointer (RFC 6901, with ~1 for "/" and ~0 for "~") through objects and arrays. Objects may be
// *Object or map[string]any, so that root may come from [Parse] or from encoding/json. References
// to other documents and to anchors are errors, as is a pointer to nothing.
func ResolveRef(root any, ref string) (any, error) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("only local $ref is supported, got %q", ref)
	}
	if ptr == "" {
		return root, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("unsupported $ref %q (anchors are not supported)", ref)
	}
	cur := root
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		var next any
		found := false
		switch node := cur.(type) {
		case *Object:
			next, found = node.Lookup(tok)
		case map[string]any:
			next, found = node[tok]
		case []any:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(node) {
				next, found = node[i], true
			}
		}
		if !found {
			return nil, fmt.Errorf("$ref %q points nowhere", ref)
		}
		cur = next
	}
	return cur, nil
}
