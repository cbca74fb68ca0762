package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/wield-ai/wield/content"
)

// Bounds of the files the command reads from a path a user or a configuration names
// (configuration and MCP server files): each is far above any real file, and keeps a hostile or
// mistaken one (/dev/zero, a 200 MB value) from taking the machine's memory.
const (
	maxConfigFileBytes = 1 << 20  // a whole file
	maxConfigString    = 64 << 10 // one JSON string, key or value
	maxConfigList      = 4096     // the elements of one JSON array or the members of one object
	maxConfigDepth     = 32       // nesting of arrays and objects
)

// readBounded reads the regular file at path, refusing anything else (a directory, a device such
// as /dev/zero, a named pipe or socket, which may never end or wait for a writer) and files over
// maxBytes. It never waits: the file is opened without blocking, and checked again once open.
func readBounded(path string, maxBytes int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, fi, maxBytes); err != nil {
		return nil, err
	}
	f, err := openNoWait(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The path may have been replaced between the two looks.
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkRegular(path, fi, maxBytes); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("%s is over the limit of %s", path, content.FormatSize(int(maxBytes)))
	}
	return data, nil
}

func checkRegular(path string, fi os.FileInfo, maxBytes int64) error {
	mode := fi.Mode()
	switch {
	case mode.IsRegular():
		if fi.Size() > maxBytes {
			return fmt.Errorf("%s is %s; the limit is %s", path, content.FormatSize(int(fi.Size())), content.FormatSize(int(maxBytes)))
		}
		return nil
	case mode.IsDir():
		return fmt.Errorf("%s is a directory", path)
	case mode&os.ModeNamedPipe != 0:
		return fmt.Errorf("%s is a named pipe; give a regular file", path)
	case mode&os.ModeDevice != 0:
		return fmt.Errorf("%s is a device; give a regular file", path)
	case mode&os.ModeSocket != 0:
		return fmt.Errorf("%s is a socket; give a regular file", path)
	default:
		return fmt.Errorf("%s is not a regular file", path)
	}
}

// readJSONFile reads a JSON configuration file at path through readBounded and checks its shape
// with checkJSONBounds.
func readJSONFile(path string) ([]byte, error) {
	data, err := readBounded(path, maxConfigFileBytes)
	if err != nil {
		return nil, err
	}
	if err := checkJSONBounds(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// checkJSONBounds refuses JSON that a decoder would take silently but that is surely a mistake or
// an attack: a key given twice in one object (the decoder keeps the last), strings, arrays or
// objects over the bounds, nesting too deep. Syntax errors are left to the decoder that follows,
// which says where they are.
func checkJSONBounds(data []byte) error {
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
			if len(k) > maxConfigString {
				return fmt.Errorf("%s: a key of %s is over the limit of %s", top.path, content.FormatSize(len(k)), content.FormatSize(maxConfigString))
			}
			if top.keys[k] {
				return fmt.Errorf("%s: key %q is given twice", memberPath(top.path, k), k)
			}
			top.keys[k] = true
			if top.n++; top.n > maxConfigList {
				return fmt.Errorf("%s has more than %d members", top.path, maxConfigList)
			}
			top.wantKey, top.lastKey = false, k
			continue
		}
		// A value: its place, for messages.
		name := "the file"
		switch {
		case top != nil && top.object:
			name = memberPath(top.path, top.lastKey)
			top.wantKey = true
		case top != nil:
			name = top.path + "[" + strconv.Itoa(top.n) + "]"
			if top.n++; top.n > maxConfigList {
				return fmt.Errorf("%s has more than %d elements", top.path, maxConfigList)
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			if len(stack) >= maxConfigDepth {
				return fmt.Errorf("%s: nested more than %d deep", name, maxConfigDepth)
			}
			stack = append(stack, &level{object: v == '{', keys: map[string]bool{}, path: name, wantKey: v == '{'})
		case string:
			if len(v) > maxConfigString {
				return fmt.Errorf("%s: a string of %s is over the limit of %s", name, content.FormatSize(len(v)), content.FormatSize(maxConfigString))
			}
		}
	}
}

// memberPath names member key of the object at path.
func memberPath(path, key string) string {
	if strings.ContainsAny(key, ". []\"") || safeLine(key) != key {
		key = strconv.Quote(key)
	}
	if path == "the file" {
		return key
	}
	return path + "." + key
}
