package splice

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
)

// hostileText is a text of every kind of character JSON escapes, invalid UTF-8 among them, long
// enough to be spliced.
func hostileText() string {
	var b strings.Builder
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"plain ascii ", `"quoted"`, `back\slash`, "\n\r\t\b\f\x00\x1f", "é日本🎉", "\u2028\u2029", "\xff\xfe", "<&>", "\xe6\x97"}
	for b.Len() < MinBytes*3 {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// jsonText is s as encoding/json carries it: each byte of invalid UTF-8 made U+FFFD.
func jsonText(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back string
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

func payload(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// wireBody is what an SDK marshals: a struct holding the tokens where the values go, in a
// string field, a []byte field and a text field.
type wireBody struct {
	Image  string `json:"image"`
	Bytes  []byte `json:"bytes"`
	Result string `json:"result"`
	Small  string `json:"small"`
	Tiny   []byte `json:"tiny"`
}

func TestRequestSplicesWhatTheEncoderWouldWrite(t *testing.T) {
	img := payload(MinBytes*2 + 1) // not a multiple of 3: the last group is padded
	doc := payload(MinBytes + 2)
	text := hostileText()
	msgs := []chat.Message{
		chat.User("look", content.Image(img, "image/png")),
		{Role: chat.RoleTool, ToolResults: []chat.ToolResult{{ID: "1", Name: "t", Content: text, Parts: []content.Part{content.Document(doc, "application/pdf", "")}}}},
	}
	ctx, done := With(context.Background(), &chat.Prompt{Messages: msgs})
	defer done()
	sent := wireBody{Image: Base64(img), Bytes: Bytes(doc), Result: Text(text), Small: Text("small"), Tiny: Bytes([]byte("tiny"))}
	raw, err := json.Marshal(sent)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 1024 {
		t.Fatalf("the marshalled request is %d bytes: the values went into it", len(raw))
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Request(r)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, body io.Reader) {
		t.Helper()
		got, err := io.ReadAll(body)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(got)) != out.ContentLength {
			t.Errorf("%s: %d bytes, ContentLength %d", name, len(got), out.ContentLength)
		}
		var back wireBody
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%s: not JSON: %v", name, err)
		}
		want := wireBody{Image: base64.StdEncoding.EncodeToString(img), Bytes: doc, Result: jsonText(t, text), Small: "small", Tiny: []byte("tiny")}
		if back.Image != want.Image || !bytes.Equal(back.Bytes, want.Bytes) || back.Result != want.Result || back.Small != want.Small || !bytes.Equal(back.Tiny, want.Tiny) {
			t.Errorf("%s: the body does not decode to the values", name)
		}
		// Byte for byte what encoding/json writes of the values, HTML escaping aside.
		var direct bytes.Buffer
		enc := json.NewEncoder(&direct)
		enc.SetEscapeHTML(false)
		sentValues := want
		sentValues.Result = text
		if err := enc.Encode(sentValues); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, bytes.TrimSuffix(direct.Bytes(), []byte("\n"))) {
			t.Errorf("%s: the body differs from encoding/json's", name)
		}
	}
	check("body", out.Body)
	again, err := out.GetBody()
	if err != nil {
		t.Fatal(err)
	}
	check("GetBody, read a byte at a time", iotest.OneByteReader(again))
	again, _ = out.GetBody()
	check("GetBody, read in odd sizes", iotest.HalfReader(again))

	// Spliced once: a transport further down reads nothing again.
	if out2, err := Request(out); err != nil || out2 != out {
		t.Errorf("a spliced request was spliced again: %v", err)
	}
}

func TestRequestWithoutValuesIsUntouched(t *testing.T) {
	text := hostileText()
	ctx, done := With(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User(text)}})
	body := io.NopCloser(strings.NewReader(`{"a":"` + Text(text) + `"}`))
	done()
	r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/", body)
	if out, err := Request(r); err != nil || out != r || out.Body != body {
		t.Fatalf("a request without values was changed: %v", err)
	}
	// Small values only: nothing to carry.
	if ctx2, done := With(ctx, &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}); ctx2 != ctx {
		t.Error("With carried a prompt without large values")
	} else {
		done()
	}
	if ctx2, done := With(ctx, nil); ctx2 != ctx {
		t.Error("With carried a nil prompt")
	} else {
		done()
	}
}

// TestOnlyRegisteredValuesBecomeTokens: a copy, a piece or a join of a prompt's text, and any
// value once its request is done, is encoded in place: only what Request can splice is a token.
func TestOnlyRegisteredValuesBecomeTokens(t *testing.T) {
	text := hostileText()
	data := payload(MinBytes)
	_, done := With(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User(text, content.Image(data, "image/png"))}})
	for name, got := range map[string]string{
		"a copy":           Text(strings.Clone(text)),
		"a piece":          Text(text[1:]),
		"a join":           Text(text + "x"),
		"the bytes' copy":  Base64(bytes.Clone(data)),
		"the text's bytes": Base64([]byte(text)),
	} {
		if strings.Contains(got, prefix) {
			t.Errorf("%s became a token", name)
		}
	}
	if !isToken([]byte(Text(text))) || !isToken([]byte(Base64(data))) || !isToken([]byte(TextOf(data))) {
		t.Fatal("a registered value did not become a token")
	}
	// Two prompts holding one value: it stays registered until both are done.
	_, done2 := With(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User(text)}})
	done()
	done() // a second call does nothing
	if !isToken([]byte(Text(text))) {
		t.Error("a value still in a prompt being sent was dropped")
	}
	done2()
	if Text(text) != text || Base64(data) != base64.StdEncoding.EncodeToString(data) || !bytes.Equal(Bytes(data), data) || TextOf(data) != string(data) {
		t.Error("a value stayed registered after its requests were done")
	}
}

func TestRequestRefusesAValueNotInItsPrompt(t *testing.T) {
	ours := hostileText()
	other := strings.Repeat("x", MinBytes)
	ctx, done := With(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User(ours)}})
	defer done()
	_, doneOther := With(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User(other)}})
	defer doneOther()
	for name, body := range map[string]string{
		"another prompt's text":  `{"a":"` + Text(other) + `"}`,
		"text that looks like a": `{"a":"` + prefix + "T" + strings.Repeat("0", 32) + `"}`,
	} {
		r, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
		if _, err := Request(r); !errors.Is(err, ErrUnknown) {
			t.Errorf("%s: %v, want ErrUnknown", name, err)
		}
	}
	// A text that only starts like a token goes as it is.
	body := `{"a":"` + prefix + `, and more","b":"` + Text(ours) + `"}`
	r, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
	out, err := Request(r)
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ A, B string }
	got, _ := io.ReadAll(out.Body)
	if err := json.Unmarshal(got, &back); err != nil || back.A != prefix+", and more" || back.B != jsonText(t, ours) {
		t.Errorf("decoded %q…, %v", back.A, err)
	}
}

func TestTokenForm(t *testing.T) {
	data := payload(MinBytes)
	_, done := With(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("", content.Image(data, "image/png"), content.Image(data[:len(data)-1], "image/png"))}})
	defer done()
	tok := Base64(data)
	if len(tok) != tokenLen || len(tok)%4 != 0 || !isToken([]byte(tok)) {
		t.Fatalf("token %q", tok)
	}
	if got := base64.StdEncoding.EncodeToString(Bytes(data)); got != tok {
		t.Fatalf("Bytes encodes to %q, want the token %q", got, tok)
	}
	if Base64(data[:len(data)-1]) == tok || TextOf(data) == tok {
		t.Error("tokens of different values are equal")
	}
}

func BenchmarkSpliceText(b *testing.B) {
	for _, bc := range []struct {
		name string
		text string
	}{{"plain", strings.Repeat("plain text, mostly. ", 1<<16)}, {"hostile", hostileText()}} {
		b.Run(bc.name, func(b *testing.B) { benchSplice(b, bc.text) })
	}
}

func benchSplice(b *testing.B, text string) {
	ctx, done := With(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User(text)}})
	defer done()
	raw := []byte(`{"a":"` + Text(text) + `"}`)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/", bytes.NewReader(raw))
		out, err := Request(r)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, out.Body)
	}
}
