package mcp

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// MaxToolNameLength is the longest tool name the MCP specification's naming rules allow.
const MaxToolNameLength = 128

// ValidToolName reports whether name follows the MCP specification's rules for tool names
// (2025-11-25, "Tool names"): 1 to 128 characters, each an ASCII letter, a digit, '_', '-' or '.'.
func ValidToolName(name string) bool {
	if name == "" || len(name) > MaxToolNameLength {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !validNameByte(name[i]) {
			return false
		}
	}
	return true
}

func validNameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.'
}

// sanitizeToolName returns name within the MCP naming rules: each character outside them becomes
// '_', and a name longer than 128 characters is cut and ends with a hash of the whole name, so
// that two long names sharing a beginning stay apart. It is the identity on valid names, and the
// same name always gives the same result, so a renamed tool keeps its name across listings.
func sanitizeToolName(name string) string {
	if ValidToolName(name) || name == "" {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		if r < 0x80 && validNameByte(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if len(out) > MaxToolNameLength {
		h := fnv.New32a()
		h.Write([]byte(name))
		suffix := fmt.Sprintf("_%08x", h.Sum32())
		out = out[:MaxToolNameLength-len(suffix)] + suffix
	}
	return out
}

// quoteName quotes a name that came from elsewhere for a message: control and other
// non-printable characters are escaped, so they cannot act on the terminal that shows it, and a
// long name is cut.
func quoteName(name string) string {
	const max = 200
	if len(name) > max {
		return fmt.Sprintf("%q…", name[:max])
	}
	return fmt.Sprintf("%q", name)
}

// logName is a name that came from elsewhere, for a log record: escaped as quoteName does, but
// without quotes, which log handlers add as they need.
func logName(name string) string {
	const max = 200
	if len(name) > max {
		return printable(name[:max]) + "…"
	}
	return printable(name)
}
