// Package toolname gives tools names a provider's API accepts, and maps the model's calls back
// to the tools' own names.
//
// wield accepts any tool name (an MCP server's tools can be named anything), but every provider
// restricts the names of the functions it is offered: OpenAI and Anthropic accept
// ^[a-zA-Z0-9_-]{1,64}$, Gemini a letter or underscore then letters, digits, '_', '.' and '-',
// 64 at most. A name outside its provider's [Rule] is sent under another name, the same for the
// same name and distinct from every other tool of the request, and the model's calls of that
// name come back under the original one, so neither the tool nor the user ever sees the wire
// name.
//
// A provider builds one [Map] per request from the request's tools and the tool calls and results
// of its conversation ([ForPrompt]), sends [Map.Wire] of every name (tool definitions, tool
// choice, calls and results in the history), and passes each response or stream chunk through
// [Map.Restore] (or maps single names with [Map.User]).
package toolname

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
)

// Rule is a provider's rule for tool names: ASCII letters and digits, the characters of Punct,
// at most Max bytes, and, with LetterFirst, a letter or '_' first. Punct must hold '_', the
// character that stands in for the ones a rule does not allow.
type Rule struct {
	// Max is the longest name, in bytes.
	Max int
	// Punct lists the characters allowed besides ASCII letters and digits.
	Punct string
	// LetterFirst requires a name to start with a letter or '_'.
	LetterFirst bool
}

// The rules of the providers, as their documentation states them.
var (
	// OpenAI is the rule of the Chat Completions and Responses APIs: "a-z, A-Z, 0-9, or contain
	// underscores and dashes, with a maximum length of 64" (^[a-zA-Z0-9_-]{1,64}$).
	OpenAI = Rule{Max: 64, Punct: "_-"}
	// Anthropic is the rule of the Messages API: ^[a-zA-Z0-9_-]{1,64}$.
	Anthropic = Rule{Max: 64, Punct: "_-"}
	// Gemini is the rule the Gemini API and Vertex AI enforce on function declarations: start
	// with a letter or an underscore, then letters, digits, underscores, dots and dashes, 64 at
	// most. Newer API versions also allow colons and, on Vertex AI, 128 characters; the rule
	// keeps to what every version accepts.
	Gemini = Rule{Max: 64, Punct: "_-.", LetterFirst: true}
	// Ollama documents no rule: names reach the model's chat template as they are. Open models
	// are trained on OpenAI-style function names, and some templates read a dot as a separator
	// (gpt-oss addresses tools as "functions.<name>"), so OpenAI's rule is used.
	Ollama = OpenAI
)

// Valid reports whether the rule accepts name.
func (r Rule) Valid(name string) bool {
	if name == "" || len(name) > r.Max {
		return false
	}
	if r.LetterFirst && !isLetter(name[0]) && name[0] != '_' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !r.allowed(name[i]) {
			return false
		}
	}
	return true
}

func (r Rule) allowed(c byte) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
		return true
	}
	return strings.IndexByte(r.Punct, c) >= 0
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { u := c &^ 0x20; return 'A' <= u && u <= 'Z' }

// Map holds the wire names of one request's tools. Names the rule accepts are their own wire
// names; only the others are stored. The nil Map maps every name to itself. A Map is safe for
// concurrent reads.
type Map struct {
	rule   Rule
	toWire map[string]string
	toUser map[string]string
}

// New returns the Map of names under rule. Every name a request can send must be among names
// (its tools' and those of the calls and results in its conversation), so that wire names are
// distinct: a name the rule accepts keeps it; any other becomes the name with each character
// the rule refuses replaced by '_' (accents dropped first, so "météo" becomes "meteo") when that
// is free and unambiguous, or else that replacement cut short and followed by '_' and 8 hex
// digits of the name's SHA-256 (a longer hash on the rare collision). The wire name of a name
// depends only on the set of names, not on their order.
func New(rule Rule, names ...string) *Map {
	m := &Map{rule: rule}
	var bad []string
	for _, n := range names {
		if !rule.Valid(n) {
			bad = append(bad, n)
		}
	}
	if len(bad) == 0 {
		return m
	}
	slices.Sort(bad)
	bad = slices.Compact(bad)
	taken := make(map[string]bool, len(names))
	for _, n := range names {
		if rule.Valid(n) {
			taken[n] = true
		}
	}
	type candidate struct {
		name, base string
		plain      bool
	}
	cands := make([]candidate, len(bad))
	uses := map[string]int{}
	for i, n := range bad {
		base, lossless := rule.sanitize(n)
		c := candidate{name: n, base: base, plain: lossless && len(base) <= rule.Max}
		if c.plain {
			uses[base]++
		}
		cands[i] = c
	}
	m.toWire = make(map[string]string, len(bad))
	m.toUser = make(map[string]string, len(bad))
	for _, c := range cands {
		w := c.base
		if !c.plain || uses[c.base] > 1 || taken[w] {
			w = rule.hashed(c.base, c.name, taken)
		}
		taken[w] = true
		m.toWire[c.name] = w
		m.toUser[w] = c.name
	}
	return m
}

// ForPrompt returns the Map of a request's names: its tools' and those of the tool calls and
// results in its messages. Nil tools are skipped (the provider reports them).
func ForPrompt(rule Rule, tools []tool.Tool, msgs []chat.Message) *Map {
	var names []string
	for _, t := range tools {
		if t != nil {
			names = append(names, t.Definition().Name)
		}
	}
	for i := range msgs {
		for _, c := range msgs[i].ToolCalls {
			names = append(names, c.Name)
		}
		for _, r := range msgs[i].ToolResults {
			names = append(names, r.Name)
		}
	}
	return New(rule, names...)
}

// Wire returns the name to send for name. A name the Map was not built with is mapped on its
// own: a hashed name if the rule refuses it.
func (m *Map) Wire(name string) string {
	if m == nil || name == "" {
		return name
	}
	if w, ok := m.toWire[name]; ok {
		return w
	}
	if m.rule.Valid(name) {
		return name
	}
	base, _ := m.rule.sanitize(name)
	return m.rule.hashed(base, name, nil)
}

// User returns the tool name for a name the API used; names the Map did not give out come back
// unchanged (the model may call a tool that does not exist, and must hear so under that name).
func (m *Map) User(wire string) string {
	if m == nil {
		return wire
	}
	if n, ok := m.toUser[wire]; ok {
		return n
	}
	return wire
}

// Renames reports whether any name has a wire name of its own.
func (m *Map) Renames() bool { return m != nil && len(m.toWire) > 0 }

// Restore gives the tool calls of every generation of r, and the tools its server tools loaded,
// the tools' own names. It does nothing when no name was renamed.
func (m *Map) Restore(r *chat.Response) {
	if !m.Renames() || r == nil {
		return
	}
	for i := range r.Generations {
		msg := &r.Generations[i].Message
		for j := range msg.ToolCalls {
			msg.ToolCalls[j].Name = m.User(msg.ToolCalls[j].Name)
		}
		for j := range msg.ServerTools {
			for k, n := range msg.ServerTools[j].Tools {
				msg.ServerTools[j].Tools[k] = m.User(n)
			}
		}
	}
}

// sanitize replaces what the rule refuses: accents are dropped, then each other character the
// rule does not allow becomes one '_' (a run of them one '_'), and the ends are trimmed of the
// '_' that stood for something. lossless is false when a character outside ASCII was replaced
// rather than transliterated, or nothing readable remains, so that the name needs a hash to be
// told apart.
func (r Rule) sanitize(name string) (base string, lossless bool) {
	var b strings.Builder
	b.Grow(len(name))
	lossless = true
	replaced := false // the last byte written stands for refused characters
	decomposed := name
	if !isASCII(name) {
		decomposed = norm.NFKD.String(name)
	}
	for _, c := range decomposed {
		switch {
		case c < utf8.RuneSelf && r.allowed(byte(c)):
			b.WriteByte(byte(c))
			replaced = false
			continue
		case unicode.Is(unicode.Mn, c):
			continue // a combining accent, dropped
		case c >= utf8.RuneSelf:
			lossless = false
		}
		if !replaced && strings.IndexByte(r.Punct, '_') >= 0 {
			b.WriteByte('_')
			replaced = true
		}
	}
	base = strings.Trim(b.String(), "_")
	if strings.HasPrefix(name, "_") {
		base = "_" + base // a leading '_' of the name is its own, not a replacement
	}
	readable := strings.IndexFunc(base, func(c rune) bool { return c < utf8.RuneSelf && (isLetter(byte(c)) || '0' <= c && c <= '9') }) >= 0
	if !readable {
		return "tool", false
	}
	if r.LetterFirst && !isLetter(base[0]) && base[0] != '_' {
		base = "_" + base
	}
	return base, lossless
}

// hashed returns base, cut to fit, followed by '_' and a hash of name long enough to be free in
// taken. When even the longest hash the rule has room for is taken (possible only with a tiny
// Max), the hash is salted with a counter until it is free.
func (r Rule) hashed(base, name string, taken map[string]bool) string {
	room := max(r.Max-1, 1)
	for salt := 0; ; salt++ {
		h := sha256.New()
		h.Write([]byte(name))
		if salt > 0 {
			fmt.Fprintf(h, "\x00%d", salt)
		}
		digits := hex.EncodeToString(h.Sum(nil))
		for n := 8; ; n += 4 {
			n = min(n, len(digits), room)
			b := base
			if keep := r.Max - 1 - n; len(b) > keep {
				b = strings.TrimRight(b[:max(keep, 0)], "_.-")
			}
			w := digits[:n]
			switch {
			case b != "":
				w = b + "_" + w
			case r.LetterFirst && !isLetter(w[0]) && len(w) < r.Max:
				w = "_" + w
			case r.LetterFirst && !isLetter(w[0]):
				w = "_" + w[1:]
			}
			if !taken[w] || salt == maxSalt {
				return w
			}
			if n == len(digits) || n == room {
				break
			}
		}
	}
}

// maxSalt bounds the search for a free hash; only a rule with room for a handful of names can
// reach it.
const maxSalt = 1 << 16
