package budget

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/tool"
)

func TestTextPerFamily(t *testing.T) {
	s := strings.Repeat("hello world ", 1000) // 12,000 ASCII bytes
	for _, tc := range []struct {
		f        Family
		min, max int
	}{
		{FamilyOpenAI, 2900, 3200},
		{FamilyAnthropic, 3400, 3700},
		{FamilyGemini, 2900, 3100},
		{FamilyGeneric, 3300, 3600},
	} {
		if n := For(tc.f).Text(s); n < tc.min || n > tc.max {
			t.Errorf("%q: %d tokens, want %d..%d", tc.f, n, tc.min, tc.max)
		}
	}
	// Non-ASCII text costs about a token a rune, not a token per four bytes of UTF-8.
	cjk := strings.Repeat("日本語", 1000)
	if n := For(FamilyAnthropic).Text(cjk); n != 3000 {
		t.Errorf("CJK: %d tokens, want 3000", n)
	}
	var zero Estimator
	if zero.Text("abcd") == 0 || zero.Text("") != 0 {
		t.Error("zero Estimator")
	}
}

func pngOf(w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func TestImages(t *testing.T) {
	img := content.Image(pngOf(1000, 1000), "image/png")
	if n := For(FamilyAnthropic).Part(img); n != 1334 { // 1000*1000/750 + 1
		t.Errorf("anthropic: %d", n)
	}
	if n := For(FamilyOpenAI).Part(img); n != 85+170*4 { // scaled to 768x768: 2x2 tiles
		t.Errorf("openai: %d", n)
	}
	if n := For(FamilyGemini).Part(content.Image(pngOf(300, 200), "image/png")); n != 258 {
		t.Errorf("gemini small: %d", n)
	}
	if n := For(FamilyGemini).Part(img); n != 258*4 {
		t.Errorf("gemini tiles: %d", n)
	}
	// Bytes that are no image still cost the family's default, never their length as text.
	if n := For(FamilyAnthropic).Part(content.Image(bytes.Repeat([]byte{1}, 1<<20), "image/png")); n != 1600 {
		t.Errorf("undecodable: %d", n)
	}
	if n := For(FamilyOpenAI).Part(content.ImageURL("https://example.com/a.png")); n != 765 {
		t.Errorf("url: %d", n)
	}
}

func TestDocuments(t *testing.T) {
	pdf := []byte("%PDF-1.4\n1 0 obj << /Type /Pages /Count 3 >>\n2 0 obj << /Type /Page >>\n3 0 obj <</Type/Page>>\n4 0 obj << /Type /Page /Parent 1 0 R >>\n")
	if n := For(FamilyGemini).Part(content.Document(pdf, "application/pdf", "a.pdf")); n != 3*258 {
		t.Errorf("pdf pages: %d", n)
	}
	txt := content.Document([]byte(strings.Repeat("a", 4000)), "text/plain", "a.txt")
	if n := For(FamilyGemini).Part(txt); n != 1000 {
		t.Errorf("text document: %d", n)
	}
	if n := For(FamilyOpenAI).Part(content.Audio(make([]byte, 40000), "audio/mpeg")); n != 101 {
		t.Errorf("audio: %d", n)
	}
}

func TestPromptCountsEverything(t *testing.T) {
	e := For(FamilyOpenAI)
	def := tool.Definition{Name: "lookup", Description: "Looks a thing up.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	msgs := []chat.Message{
		chat.System("be brief"),
		chat.User("what is x?"),
		chat.Assistant("", chat.ToolCall{ID: "1", Name: "lookup", Arguments: `{"q":"x"}`}),
		chat.ToolMessage(chat.ToolResult{ID: "1", Name: "lookup", Content: strings.Repeat("r", 400)}),
	}
	p := &chat.Prompt{Messages: msgs, Options: &chat.Options{Tools: []tool.Tool{defTool{def}}}}
	want := e.Messages(msgs) + e.Definition(def)
	if got := e.Prompt(p); got != want {
		t.Fatalf("Prompt %d, want %d", got, want)
	}
	if e.Result(&msgs[3].ToolResults[0]) < 100 {
		t.Error("a 400-byte result under 100 tokens")
	}
	if e.Prompt(nil) != 0 {
		t.Error("nil prompt")
	}
}

type defTool struct{ d tool.Definition }

func (d defTool) Definition() tool.Definition                { return d.d }
func (defTool) Metadata() tool.Metadata                      { return tool.Metadata{} }
func (defTool) Call(context.Context, string) (string, error) { return "", nil }

func TestCalibrate(t *testing.T) {
	e := For(FamilyOpenAI)
	raw := e.Text(strings.Repeat("x", 4000))
	c := e.Calibrate(raw, chat.Usage{InputTokens: raw * 2})
	if got := c.Text(strings.Repeat("x", 4000)); got != raw*2 {
		t.Errorf("calibrated %d, want %d", got, raw*2)
	}
	// A second calibration replaces the first rather than compounding it.
	c = c.Calibrate(raw, chat.Usage{InputTokens: raw})
	if c.Scale() != 1000 {
		t.Errorf("scale %d after recalibration", c.Scale())
	}
	// One absurd report is bounded.
	if s := e.Calibrate(1000, chat.Usage{InputTokens: 1}).Scale(); s != 250 {
		t.Errorf("lower bound: %d", s)
	}
	if s := e.Calibrate(1, chat.Usage{InputTokens: 1 << 30}).Scale(); s != 4000 {
		t.Errorf("upper bound: %d", s)
	}
	if e.Calibrate(100, chat.Usage{}).Scale() != 1000 || c.Raw().Scale() != 1000 {
		t.Error("no usage must leave the estimator alone")
	}
	// Raw counts of parts, summed and corrected once, are what the corrected estimate of the
	// whole is (the rounding included).
	msgs := []chat.Message{chat.User(strings.Repeat("y", 333)), chat.Assistant("é" + strings.Repeat("z", 77))}
	p := &chat.Prompt{Messages: msgs}
	c = e.Calibrate(1000, chat.Usage{InputTokens: 1337})
	if got, want := c.Scaled(e.Messages(msgs[:1])+e.Messages(msgs[1:])), c.Prompt(p); got != want {
		t.Errorf("Scaled of the parts' raw counts %d, want Prompt's %d", got, want)
	}
}

func TestLookup(t *testing.T) {
	tab := Models()
	for _, tc := range []struct {
		model string
		want  Limits
	}{
		{"gpt-4o-mini", Limits{128_000, 16_384}},
		{"gpt-4.1-mini-2025-04-14", Limits{1_047_576, 32_768}},
		{"claude-opus-4-5-20251101", Limits{200_000, 64_000}},
		{"claude-opus-4-1-20250805", Limits{200_000, 32_000}},
		{"us.anthropic.claude-sonnet-4-20250514-v1:0", Limits{200_000, 64_000}},
		{"mistral.mistral-large-2407-v1:0", Limits{128_000, 8_192}},
		{"amazon.nova-pro-v1:0", Limits{300_000, 10_000}},
		{"llama3.1:8b", Limits{Context: 131_072}},
		{"Gemini-2.5-Flash", Limits{1_048_576, 65_536}},
	} {
		got, ok := tab.Lookup(tc.model)
		if !ok || got != tc.want {
			t.Errorf("%s: %+v %v, want %+v", tc.model, got, ok, tc.want)
		}
	}
	if _, ok := tab.Lookup("no-such-model"); ok {
		t.Error("unknown model found")
	}
	over := tab.Merge(Table{"gpt-4o": {Context: 32_000, Output: 1_000}, "my-model": {Context: 8_000}})
	if l, _ := over.Lookup("gpt-4o-2024-08-06"); l.Context != 32_000 {
		t.Errorf("override: %+v", l)
	}
	if l, _ := tab.Lookup("gpt-4o"); l.Context != 128_000 {
		t.Error("Merge changed the table it was called on")
	}
	if err := tab.Validate(); err != nil {
		t.Error(err)
	}
	if err := (Table{"x": {Context: 10, Output: 20}}).Validate(); err == nil {
		t.Error("output over the window accepted")
	}
	var fromConfig Table
	if err := json.Unmarshal([]byte(`{"local-model":{"context":32768,"output":2048}}`), &fromConfig); err != nil {
		t.Fatal(err)
	}
	if l, ok := tab.Merge(fromConfig).Lookup("local-model"); !ok || l.Budget(0) != 32768-2048 {
		t.Errorf("config: %+v", l)
	}
}

func TestBudget(t *testing.T) {
	l := Limits{Context: 200_000, Output: 64_000}
	if b := l.Budget(0); b != 150_000 { // the reserve never takes over a quarter
		t.Errorf("budget %d", b)
	}
	if b := l.Budget(1000); b != 199_000 {
		t.Errorf("with MaxTokens: %d", b)
	}
	if b := (Limits{Context: 32_000}).Budget(0); b != 32_000-DefaultReserve {
		t.Errorf("default reserve: %d", b)
	}
	if (Limits{}).Budget(0) != 0 {
		t.Error("unknown window")
	}
}

func TestFamilyOf(t *testing.T) {
	for p, want := range map[string]Family{
		"openai": FamilyOpenAI, "azure.ai.openai": FamilyOpenAI, "anthropic": FamilyAnthropic,
		"gcp.gemini": FamilyGemini, "gcp.vertex_ai": FamilyGemini, "aws.bedrock": FamilyBedrock,
		"ollama": FamilyOllama, "other": FamilyGeneric,
	} {
		if got := FamilyOf(p); got != want {
			t.Errorf("%s: %q", p, got)
		}
	}
}

// conversation returns about size bytes of a tool loop's history.
func conversation(size int) []chat.Message {
	var ms []chat.Message
	ms = append(ms, chat.System("You are a careful assistant."), chat.User("Investigate the repository."))
	chunk := strings.Repeat("func main() { fmt.Println(\"héllo\") } // 日本 ", 100)
	for n := 0; n < size; n += len(chunk) + 40 {
		ms = append(ms,
			chat.Assistant("", chat.ToolCall{ID: "c", Name: "read_file", Arguments: `{"path":"main.go"}`}),
			chat.ToolMessage(chat.ToolResult{ID: "c", Name: "read_file", Content: chunk}))
	}
	return ms
}

// BenchmarkEstimate1MB estimates a 1 MB conversation; the target is under 5 ms.
func BenchmarkEstimate1MB(b *testing.B) {
	ms := conversation(1 << 20)
	e := For(FamilyAnthropic)
	b.SetBytes(1 << 20)
	b.ReportAllocs()
	for b.Loop() {
		if e.Messages(ms) == 0 {
			b.Fatal("zero")
		}
	}
}

func TestCountRunesMatchesNaive(t *testing.T) {
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghé", "日本語abcdefghij€", strings.Repeat("xé", 37), "\xff\xfe invalid"} {
		a, o := 0, 0
		for i := 0; i < len(s); i++ {
			if s[i] < 0x80 {
				a++
			} else if s[i]&0xC0 != 0x80 {
				o++
			}
		}
		if ga, gox := countRunes(s); ga != a || gox != o {
			t.Errorf("%q: %d,%d want %d,%d", s, ga, gox, a, o)
		}
		if ga, gox := countRunes([]byte(s)); ga != a || gox != o {
			t.Errorf("bytes %q: %d,%d", s, ga, gox)
		}
	}
}
