package main

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text from models, MCP servers and stored sessions is untrusted: printed raw, an escape
// sequence in a tool name could clear the screen, rewrite the title or fake a prompt. Everything
// of theirs that wield prints on a line of its own goes through safeLine; answers printed to a
// terminal go through safeText.

// safeLine returns s with every control character, line break included, and every invisible
// formatting character (bidirectional overrides, zero-width characters) escaped as Go escapes
// them (\x1b, \n, \u202e), and invalid UTF-8 shown as \ufffd, so s prints on one line as what
// it is.
func safeLine(s string) string { return escapeText(s, false) }

// safeText is safeLine for text of several lines: line feeds and tabs stay, carriage returns and
// other control characters are escaped.
func safeText(s string) string { return escapeText(s, true) }

// escapeText is safeText when multiline, safeLine otherwise.
func escapeText(s string, multiline bool) string {
	if !needsEscape(s, multiline) {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, width := utf8.DecodeRuneInString(s[i:])
		w = width
		switch {
		case r == utf8.RuneError && width == 1:
			b.WriteString(`\ufffd`)
		case escaped(r, multiline):
			b.WriteString(escapeRune(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsEscape(s string, multiline bool) bool {
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 || escaped(r, multiline) {
			return true
		}
		i += w
	}
	return false
}

// escaped reports whether r must not reach a terminal as is: C0 and C1 controls, DEL, and the
// format characters (Unicode category Cf) that reorder or hide text.
func escaped(r rune, multiline bool) bool {
	if multiline && (r == '\n' || r == '\t') {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

func escapeRune(r rune) string {
	switch r {
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	if r < 0x100 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// userinfo finds the user:password@ part of anything that looks like a URL, for strings that do
// not parse as one.
var userinfo = regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://)[^/?#@\s]*@`)

// secretParams are query parameters that carry credentials (Gemini's key=, OAuth's
// access_token=, ...).
var secretParams = []string{"key", "api_key", "apikey", "api-key", "access_token", "token", "sig", "signature", "password"}

// redactURL returns u without its credentials, safe to print: its user information and the
// values of query parameters that carry keys. When u does not parse as a
// URL, any user information is cut out whole, since where it ends is unclear.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return userinfo.ReplaceAllString(u, "${1}xxxxx@")
	}
	changed := false
	if p.User != nil {
		// A user name alone can be a token too (https://TOKEN@host).
		p.User = url.User("xxxxx")
		changed = true
	}
	if p.RawQuery != "" {
		q := p.Query()
		for k := range q {
			for _, s := range secretParams {
				if strings.EqualFold(k, s) {
					q.Set(k, "xxxxx")
					changed = true
				}
			}
		}
		if changed {
			p.RawQuery = q.Encode()
		}
	}
	if !changed {
		return u
	}
	return p.String()
}
