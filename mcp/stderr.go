package mcp

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Bounds of the standard error kept from a stdio server, for the error that reports its failure.
const (
	tailBytes = 4 << 10
	tailLines = 12
)

// tailBuffer keeps the last bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(p) >= tailBytes {
		b.buf = append(b.buf[:0], p[len(p)-tailBytes:]...)
		return len(p), nil
	}
	if over := len(b.buf) + len(p) - tailBytes; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// lines returns the last lines written, safe to print: a cut first line is dropped, control
// characters are escaped.
func (b *tailBuffer) lines() string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	data := string(b.buf)
	full := len(b.buf) < tailBytes
	b.mu.Unlock()
	data = strings.TrimRight(data, "\r\n\t ")
	if data == "" {
		return ""
	}
	lines := strings.Split(data, "\n")
	if !full && len(lines) > 1 {
		lines = lines[1:] // its beginning was cut
	}
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	for i, l := range lines {
		lines[i] = printable(strings.TrimRight(l, "\r"))
	}
	return strings.Join(lines, "\n")
}

// printable escapes what a terminal would act on (control characters, invalid UTF-8), keeping
// tabs and the rest of the text as it is.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || (unicode.IsControl(r) && r != '\t') || r == '\u2028' || r == '\u2029' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				fmt.Fprintf(&b, `\x%02x`, s[i])
				continue
			}
			b.WriteRune(r)
		case r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
