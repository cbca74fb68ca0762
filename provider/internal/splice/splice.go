// Package splice keeps a prompt's large media and texts out of the SDKs' JSON encoders. An SDK
// marshals its request into one buffer, often level by level, and a 20 MiB image became its
// base64 string, then that string quoted at every level of the request, then the body: some
// ten copies of the payload. Here a provider puts a short token where such a value goes
// ([Base64], [Bytes], [Text], [TextOf]); the token stands for the value by its address, so the
// request is built and marshalled small; and the transport ([Request]) splices the value in as
// the body is sent, base64 or JSON text encoded piece by piece, so it is never held whole a
// second time.
//
// Only the values of a prompt being sent become tokens: [With] registers them while the request
// is built and sent, and the functions above give anything else (a copy, a piece, a text joined
// from several) its plain encoding. The request's context carries the values its tokens may stand
// for; a token of anything else fails the request rather than reach the API.
package splice

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"net/http"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
)

// MinBytes is the size from which a value is spliced; smaller ones go into the request as they
// are, where a copy costs little.
const MinBytes = 64 << 10

// prefix starts every token. A token is prefix, a kind letter and 32 hex digits: 44 characters,
// all of base64's alphabet and a multiple of 4, so that a token is also the base64 of 33 bytes
// and survives any JSON encoder unescaped.
const prefix = "WieldSplice"

const tokenLen = len(prefix) + 1 + 32

// The kinds of splice: a value's standard base64, or a text's JSON escaping.
const (
	kindBase64 = 'B'
	kindText   = 'T'
)

// A key names a value by where it is: its first byte, its length and how it is spliced. Go's
// heap does not move, and a registered value is kept alive by its key, so no two live values
// share a key.
type key struct {
	p    unsafe.Pointer
	n    int
	kind byte
}

func bytesKey(data []byte, kind byte) key {
	return key{unsafe.Pointer(unsafe.SliceData(data)), len(data), kind}
}

func textKey(s string) key { return key{unsafe.Pointer(unsafe.StringData(s)), len(s), kindText} }

// The hash seeds are the process's key: a token names an address, which no one outside the
// process can forge a token for.
var seed1, seed2 = maphash.MakeSeed(), maphash.MakeSeed()

func (k key) token() string {
	var b [17]byte
	binary.LittleEndian.PutUint64(b[:], uint64(uintptr(k.p)))
	binary.LittleEndian.PutUint64(b[8:], uint64(k.n))
	b[16] = k.kind
	var sum [16]byte
	binary.LittleEndian.PutUint64(sum[:], maphash.Bytes(seed1, b[:]))
	binary.LittleEndian.PutUint64(sum[8:], maphash.Bytes(seed2, b[:]))
	return prefix + string(k.kind) + hex.EncodeToString(sum[:])
}

// registered holds the values of the prompts being sent, counted, for the functions that make
// tokens.
var registered struct {
	sync.RWMutex
	counts map[key]int
}

func isRegistered(k key) bool {
	if k.n < MinBytes {
		return false
	}
	registered.RLock()
	defer registered.RUnlock()
	return registered.counts[k] > 0
}

// Base64 returns the standard base64 of data, for a JSON string field: a token when data is a
// registered value ([With]).
func Base64(data []byte) string {
	if k := bytesKey(data, kindBase64); isRegistered(k) {
		return k.token()
	}
	return base64.StdEncoding.EncodeToString(data)
}

// Bytes returns what to put in a []byte field that the SDK's JSON encoder writes as standard
// base64: data itself, or, when data is a registered value, the bytes whose base64 is its token.
func Bytes(data []byte) []byte {
	k := bytesKey(data, kindBase64)
	if !isRegistered(k) {
		return data
	}
	b, err := base64.StdEncoding.DecodeString(k.token())
	if err != nil {
		panic("splice: a token is not base64: " + err.Error())
	}
	return b
}

// Text returns s for a JSON string field: a token when s is a registered text (a message's or a
// tool result's Content, a text part's Text), replaced by s's JSON escaping as the body is sent.
func Text(s string) string {
	if k := textKey(s); isRegistered(k) {
		return k.token()
	}
	return s
}

// TextOf returns data, UTF-8 text, as a string for a JSON string field: a token when data is a
// registered value, else a copy.
func TextOf(data []byte) string {
	if k := bytesKey(data, kindText); isRegistered(k) {
		return k.token()
	}
	return string(data)
}

// A value is what a token stands for.
type value struct {
	data []byte
	text string
	kind byte
}

// Set holds the values of a prompt, by token.
type Set struct {
	keys   []key
	values map[string]value
}

type setKey struct{}

// With registers the large values of p's messages while the request for p is built and sent,
// and returns ctx carrying them for [Request], and the function that ends the registration, to
// be called once the request is done. It reads no bytes, only where they are. A nil p, or one
// without large values, gives ctx itself.
func With(ctx context.Context, p *chat.Prompt) (context.Context, func()) {
	if p == nil {
		return ctx, func() {}
	}
	var set Set // on the stack until a large value is found: most prompts have none
	for i := range p.Messages {
		m := &p.Messages[i]
		set.addParts(m.Content, m.Parts)
		for _, r := range m.ToolResults {
			set.addParts(r.Content, r.Parts)
		}
	}
	if len(set.values) == 0 {
		return ctx, func() {}
	}
	s := &Set{keys: set.keys, values: set.values}
	registered.Lock()
	if registered.counts == nil {
		registered.counts = make(map[key]int)
	}
	for _, k := range s.keys {
		registered.counts[k]++
	}
	registered.Unlock()
	var once sync.Once
	return context.WithValue(ctx, setKey{}, s), func() {
		once.Do(func() {
			registered.Lock()
			defer registered.Unlock()
			for _, k := range s.keys {
				if registered.counts[k]--; registered.counts[k] <= 0 {
					delete(registered.counts, k)
				}
			}
		})
	}
}

// addParts adds a message's (or a result's) large text and parts.
func (s *Set) addParts(text string, parts []content.Part) {
	s.addText(text)
	for _, p := range parts {
		s.addText(p.Text)
		if len(p.Data) >= MinBytes {
			s.add(bytesKey(p.Data, kindBase64), value{data: p.Data, kind: kindBase64})
			// A text document goes as text ([TextOf]); the string is only read.
			s.add(bytesKey(p.Data, kindText), value{text: unsafe.String(unsafe.SliceData(p.Data), len(p.Data)), kind: kindText})
		}
	}
}

func (s *Set) addText(text string) {
	if len(text) >= MinBytes {
		s.add(textKey(text), value{text: text, kind: kindText})
	}
}

func (s *Set) add(k key, v value) {
	if s.values == nil {
		s.values = make(map[string]value)
	}
	tok := k.token()
	if _, dup := s.values[tok]; dup {
		return
	}
	s.keys = append(s.keys, k)
	s.values[tok] = v
}

// ErrUnknown is the error of a request whose body holds a token its context has no value for.
var ErrUnknown = errors.New("splice: the request holds a value that is not in its prompt")

// Request returns r with the values its body's tokens stand for spliced in, streamed as the body
// is read, and its ContentLength and GetBody set to match. A request whose context carries no
// values is returned as it is, unread. The body read is the SDK's, small: the large values are
// not in it. r's body is closed, whatever the outcome.
func Request(r *http.Request) (*http.Request, error) {
	s, _ := r.Context().Value(setKey{}).(*Set)
	if s == nil || r.Body == nil || r.Body == http.NoBody {
		return r, nil
	}
	raw, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	if err != nil {
		return nil, err
	}
	segs, n, err := s.segments(raw)
	if err != nil {
		return nil, err
	}
	// Spliced once: a transport further down finds no values to splice again.
	r = r.Clone(context.WithValue(r.Context(), setKey{}, (*Set)(nil)))
	r.ContentLength = n
	r.GetBody = func() (io.ReadCloser, error) { return newBody(segs), nil }
	r.Body = newBody(segs)
	return r, nil
}

// A segment of a body: literal bytes, or a value encoded as it is read.
type segment struct {
	lit []byte
	v   *value
}

// segments cuts raw at its tokens and returns the body's pieces and its length.
func (s *Set) segments(raw []byte) ([]segment, int64, error) {
	var segs []segment
	var n int64
	for {
		i := bytes.Index(raw, []byte(prefix))
		if i < 0 || len(raw)-i < tokenLen {
			segs = append(segs, segment{lit: raw})
			return segs, n + int64(len(raw)), nil
		}
		v, ok := s.values[string(raw[i:i+tokenLen])]
		if !ok {
			if isToken(raw[i : i+tokenLen]) {
				return nil, 0, ErrUnknown
			}
			// Text that only starts like a token.
			segs = append(segs, segment{lit: raw[:i+len(prefix)]})
			n += int64(i + len(prefix))
			raw = raw[i+len(prefix):]
			continue
		}
		segs = append(segs, segment{lit: raw[:i]}, segment{v: &v})
		n += int64(i) + v.encodedLen()
		raw = raw[i+tokenLen:]
	}
}

// isToken reports whether b has a token's form.
func isToken(b []byte) bool {
	if len(b) != tokenLen || (b[len(prefix)] != kindBase64 && b[len(prefix)] != kindText) {
		return false
	}
	for _, c := range b[len(prefix)+1:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func (v *value) encodedLen() int64 {
	if v.kind == kindBase64 {
		return int64(base64.StdEncoding.EncodedLen(len(v.data)))
	}
	n := int64(0)
	for i := 0; i < len(v.text); {
		if plain := plainRun(v.text[i:]); plain > 0 {
			n += int64(plain)
			i += plain
			continue
		}
		esc, size := escapeAt(v.text, i)
		n += int64(len(esc))
		if esc == "" {
			n += int64(size)
		}
		i += size
	}
	return n
}

// plainRun returns the length of the run of ASCII at the start of s that JSON takes as it is.
func plainRun(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return len(s)
}

// body reads segments in turn, encoding values piece by piece.
type body struct {
	segs []segment
	off  int    // into the current segment's literal or value
	pend []byte // encoded bytes not yet read
	buf  [4 << 10]byte
}

func newBody(segs []segment) io.ReadCloser { return &body{segs: segs} }

func (b *body) Close() error { return nil }

func (b *body) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(b.pend) > 0 {
			c := copy(p[n:], b.pend)
			b.pend = b.pend[c:]
			n += c
			continue
		}
		if len(b.segs) == 0 {
			break
		}
		seg := &b.segs[0]
		switch {
		case seg.v == nil:
			c := copy(p[n:], seg.lit[b.off:])
			b.off += c
			n += c
			if b.off == len(seg.lit) {
				b.next()
			}
		case seg.v.kind == kindBase64:
			n += b.readBase64(p[n:], seg.v.data)
		default:
			b.fillText(seg.v.text)
		}
	}
	if n == 0 && len(b.segs) == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (b *body) next() {
	b.segs = b.segs[1:]
	b.off = 0
}

// readBase64 encodes data from b.off straight into p, whole groups of three bytes at a time; a
// p too short for one group, or the last group, goes through pend.
func (b *body) readBase64(p []byte, data []byte) int {
	rest := data[b.off:]
	if groups := min(len(p)/4, len(rest)/3); groups > 0 {
		base64.StdEncoding.Encode(p, rest[:groups*3])
		b.off += groups * 3
		if b.off == len(data) {
			b.next()
		}
		return groups * 4
	}
	in := rest[:min(3, len(rest))]
	b.pend = b.buf[:base64.StdEncoding.EncodedLen(len(in))]
	base64.StdEncoding.Encode(b.pend, in)
	b.off += len(in)
	if b.off == len(data) {
		b.next()
	}
	return 0
}

// fillText escapes the text from b.off into pend, a buffer's worth.
func (b *body) fillText(s string) {
	out := b.buf[:0]
	i := b.off
	for i < len(s) && len(out) <= len(b.buf)-utf8.UTFMax*2 {
		if plain := plainRun(s[i:min(len(s), i+len(b.buf)-len(out))]); plain > 0 {
			out = append(out, s[i:i+plain]...)
			i += plain
			continue
		}
		esc, size := escapeAt(s, i)
		if esc != "" {
			out = append(out, esc...)
		} else {
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	b.off = i
	b.pend = out
	if i == len(s) {
		b.next()
	}
}

// controlEscapes are the escapes of the control characters JSON has no short form for.
var controlEscapes = func() (e [0x20]string) {
	for c := range e {
		e[c] = fmt.Sprintf(`\u%04x`, c)
	}
	return e
}()

// escapeAt returns how the character at s[i] is written inside a JSON string, as encoding/json
// writes it without HTML escaping: "" when it is written as it is, and the character's length.
// Invalid UTF-8 becomes U+FFFD.
func escapeAt(s string, i int) (string, int) {
	c := s[i]
	if c < utf8.RuneSelf {
		switch {
		case c == '"':
			return `\"`, 1
		case c == '\\':
			return `\\`, 1
		case c == '\n':
			return `\n`, 1
		case c == '\r':
			return `\r`, 1
		case c == '\t':
			return `\t`, 1
		case c == '\b':
			return `\b`, 1
		case c == '\f':
			return `\f`, 1
		case c < 0x20:
			return controlEscapes[c], 1
		}
		return "", 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return `\ufffd`, 1
	case r == '\u2028':
		return `\u2028`, size
	case r == '\u2029':
		return `\u2029`, size
	}
	return "", size
}
