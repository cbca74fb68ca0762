package budget

import (
	"bytes"
	"strings"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/tool"
)

// Family is a provider family whose tokenizer and media accounting an [Estimator] follows.
type Family string

// The families wield's providers belong to. FamilyGeneric is used for a provider not known.
const (
	FamilyGeneric   Family = ""
	FamilyOpenAI    Family = "openai"
	FamilyAnthropic Family = "anthropic"
	FamilyGemini    Family = "gemini"
	FamilyBedrock   Family = "bedrock"
	FamilyOllama    Family = "ollama"
)

// FamilyOf returns the family of a provider named as [chat.Info.Provider] names it ("openai",
// "azure.ai.openai", "anthropic", "gcp.gemini", "gcp.vertex_ai", "aws.bedrock", "ollama").
func FamilyOf(provider string) Family {
	p := strings.ToLower(provider)
	switch {
	case strings.Contains(p, "anthropic"):
		return FamilyAnthropic
	case strings.Contains(p, "gemini"), strings.Contains(p, "vertex"):
		return FamilyGemini
	case strings.Contains(p, "bedrock"):
		return FamilyBedrock
	case strings.Contains(p, "ollama"):
		return FamilyOllama
	case strings.Contains(p, "openai"), strings.Contains(p, "azure"):
		return FamilyOpenAI
	}
	return FamilyGeneric
}

// FamilyFor returns the family of a model that names itself ([chat.Describer]), or
// FamilyGeneric.
func FamilyFor(m chat.Model) Family {
	if d, ok := m.(chat.Describer); ok {
		return FamilyOf(d.Info().Provider)
	}
	return FamilyGeneric
}

// profile holds one family's accounting. Rates are in thousandths of a token so that estimates
// stay integer arithmetic.
type profile struct {
	asciiPerToken1000 int // thousandths of an ASCII byte per token: 4000 means 4 bytes a token
	otherRuneMilli    int // thousandths of a token per non-ASCII rune (CJK, accents, emoji)
	message           int // framing of one message (role, separators)
	toolCall          int // framing of one call or result (id, name, wrapping)
	toolDef           int // framing of one tool definition
	image             int // an image whose size is not known
	imageMax          int // cap for an image whose size is known
	pdfPage           int // one page of a PDF
	mediaURL          int // a document or audio clip by URL, size unknown
	audioBytesPerTok  int // compressed audio bytes per token
}

// claude is the profile of Claude's tokenizer, which yields more tokens for the same text than
// o200k, and of its image and PDF accounting.
var claude = profile{asciiPerToken1000: 3400, otherRuneMilli: 1000, message: 5, toolCall: 10, toolDef: 16,
	image: 1600, imageMax: 1600, pdfPage: 2300, mediaURL: 2300, audioBytesPerTok: 400}

var profiles = map[Family]profile{
	// o200k: English prose runs close to 4 bytes a token; code and JSON a little less.
	FamilyOpenAI: {asciiPerToken1000: 3900, otherRuneMilli: 800, message: 4, toolCall: 8, toolDef: 12,
		image: 765, imageMax: 1105, pdfPage: 1000, mediaURL: 1000, audioBytesPerTok: 400},
	FamilyAnthropic: claude,
	// Gemini counts images as 258 per 768x768 tile and PDF pages as 258.
	FamilyGemini: {asciiPerToken1000: 4000, otherRuneMilli: 700, message: 4, toolCall: 8, toolDef: 12,
		image: 1032, imageMax: 1032, pdfPage: 258, mediaURL: 258, audioBytesPerTok: 500},
	// Bedrock is estimated as the Claude models it serves.
	FamilyBedrock: claude,
	FamilyOllama: {asciiPerToken1000: 3700, otherRuneMilli: 1000, message: 4, toolCall: 8, toolDef: 12,
		image: 768, imageMax: 1024, pdfPage: 1000, mediaURL: 1000, audioBytesPerTok: 400},
	FamilyGeneric: {asciiPerToken1000: 3500, otherRuneMilli: 1000, message: 5, toolCall: 10, toolDef: 16,
		image: 1600, imageMax: 1600, pdfPage: 2300, mediaURL: 2300, audioBytesPerTok: 400},
}

// Estimator estimates tokens for one provider family. Its zero value estimates for
// FamilyGeneric, which errs on the high side. An Estimator is a value: copy it freely; it is
// safe for concurrent use.
type Estimator struct {
	p profile
	// family is kept for Family.
	family Family
	// scale1000 corrects every estimate by thousandths (1000 is none); see [Estimator.Calibrate].
	scale1000 int
}

// For returns the estimator of family; an unknown family gets FamilyGeneric's accounting.
func For(f Family) Estimator {
	p, ok := profiles[f]
	if !ok {
		p = profiles[FamilyGeneric]
	}
	return Estimator{p: p, family: f, scale1000: 1000}
}

// Family returns the family the estimator follows.
func (e Estimator) Family() Family { return e.family }

func (e Estimator) prof() profile {
	if e.p.asciiPerToken1000 == 0 {
		return profiles[FamilyGeneric]
	}
	return e.p
}

func (e Estimator) scale(n int) int {
	if e.scale1000 == 0 || e.scale1000 == 1000 {
		return n
	}
	return int((int64(n)*int64(e.scale1000) + 999) / 1000)
}

// Text returns the tokens of s.
func (e Estimator) Text(s string) int { return e.scale(e.text(s)) }

func (e Estimator) text(s string) int {
	if s == "" {
		return 0
	}
	p := e.prof()
	ascii, other := countRunes(s)
	n := (ascii*1000+p.asciiPerToken1000-1)/p.asciiPerToken1000 + (other*p.otherRuneMilli+999)/1000
	return n
}

func (e Estimator) bytesText(b []byte) int {
	p := e.prof()
	ascii, other := countRunes(b)
	return (ascii*1000+p.asciiPerToken1000-1)/p.asciiPerToken1000 + (other*p.otherRuneMilli+999)/1000
}

// Part returns the tokens of one content part: text by the family's tokenizer, an image by its
// pixel size where its header tells it, a PDF by its pages, a text document by its text, audio by
// its length.
func (e Estimator) Part(p content.Part) int { return e.scale(e.part(p)) }

func (e Estimator) part(p content.Part) int {
	pr := e.prof()
	switch p.Kind {
	case content.KindText:
		return e.text(p.Text)
	case content.KindImage:
		if len(p.Data) == 0 {
			return pr.image
		}
		if w, h, ok := imageSize(p.Data); ok {
			return e.imageTokens(w, h)
		}
		return pr.image
	case content.KindDocument:
		if len(p.Data) == 0 {
			return pr.mediaURL
		}
		mt := strings.ToLower(p.MediaType)
		if mt == "application/pdf" || bytes.HasPrefix(p.Data, []byte("%PDF")) {
			pages := pdfPages(p.Data)
			if pages == 0 {
				pages = 1 + len(p.Data)/(100<<10)
			}
			return pages * pr.pdfPage
		}
		return e.bytesText(p.Data)
	case content.KindAudio:
		if len(p.Data) == 0 {
			return pr.mediaURL
		}
		return 1 + len(p.Data)/pr.audioBytesPerTok
	}
	// An unknown kind is counted as its bytes would be as text: never zero for something sent.
	return e.text(p.Text) + e.bytesText(p.Data)
}

// imageTokens follows each family's published image accounting.
func (e Estimator) imageTokens(w, h int) int {
	if w <= 0 || h <= 0 {
		return e.prof().image
	}
	switch e.family {
	case FamilyOpenAI, FamilyOllama:
		// High detail: fit in 2048x2048, shortest side to 768, then 170 a 512px tile plus 85.
		fw, fh := float64(w), float64(h)
		if m := max(fw, fh); m > 2048 {
			fw, fh = fw*2048/m, fh*2048/m
		}
		if s := min(fw, fh); s > 768 {
			fw, fh = fw*768/s, fh*768/s
		}
		tiles := ((int(fw) + 511) / 512) * ((int(fh) + 511) / 512)
		return min(85+170*tiles, e.prof().imageMax)
	case FamilyGemini:
		if w <= 384 && h <= 384 {
			return 258
		}
		return 258 * ((w + 767) / 768) * ((h + 767) / 768)
	default:
		// Anthropic: long edge scaled to 1568, then width*height/750, capped near 1600.
		fw, fh := float64(w), float64(h)
		if m := max(fw, fh); m > 1568 {
			fw, fh = fw*1568/m, fh*1568/m
		}
		return min(int(fw*fh/750)+1, e.prof().imageMax)
	}
}

// Definition returns the tokens a tool definition costs in a request.
func (e Estimator) Definition(d tool.Definition) int {
	return e.scale(e.definition(d))
}

func (e Estimator) definition(d tool.Definition) int {
	return e.prof().toolDef + e.text(d.Name) + e.text(d.Description) + e.bytesText(d.InputSchema)
}

// Message returns the tokens of one message: its framing, text, parts, reasoning, server tool
// steps, tool calls and results.
func (e Estimator) Message(m *chat.Message) int { return e.scale(e.message(m)) }

func (e Estimator) message(m *chat.Message) int {
	p := e.prof()
	n := p.message + e.text(m.Content)
	for i := range m.Parts {
		n += e.part(m.Parts[i])
	}
	for i := range m.Reasoning {
		r := &m.Reasoning[i]
		// Signatures are not counted by providers; encrypted reasoning is, roughly as its text.
		n += e.text(r.Text) + len(r.Encrypted)/4
	}
	for i := range m.ServerTools {
		s := &m.ServerTools[i]
		n += p.toolCall + e.text(s.Arguments) + 8*len(s.Tools)
	}
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		n += p.toolCall + e.text(c.Name) + e.text(c.Arguments)
	}
	for i := range m.ToolResults {
		n += e.result(&m.ToolResults[i])
	}
	return n
}

// Result returns the tokens of one tool result.
func (e Estimator) Result(r *chat.ToolResult) int { return e.scale(e.result(r)) }

func (e Estimator) result(r *chat.ToolResult) int {
	n := e.prof().toolCall + e.text(r.Content)
	for i := range r.Parts {
		n += e.part(r.Parts[i])
	}
	return n
}

// Messages returns the tokens of a conversation.
func (e Estimator) Messages(ms []chat.Message) int {
	n := 0
	for i := range ms {
		n += e.message(&ms[i])
	}
	return e.scale(n)
}

// Tools returns the tokens of the definitions of tools.
func (e Estimator) Tools(ts []tool.Tool) int {
	n := 0
	for _, t := range ts {
		n += e.definition(t.Definition())
	}
	return e.scale(n)
}

// Prompt returns the input tokens of a request: its messages and the definitions of its tools.
// A request whose tools the provider searches natively ([chat.Options.ToolSearch]) still counts
// them all, the upper bound.
func (e Estimator) Prompt(p *chat.Prompt) int {
	if p == nil {
		return 0
	}
	n := 0
	for i := range p.Messages {
		n += e.message(&p.Messages[i])
	}
	if p.Options != nil {
		for _, t := range p.Options.Tools {
			n += e.definition(t.Definition())
		}
	}
	return e.scale(n)
}

// Calibrate returns the estimator corrected so that an estimate of estimated tokens becomes
// what the provider reported (u.InputTokens) for the same request. The correction is bounded
// (between a quarter and four times the heuristic) so that one odd report cannot make estimates
// useless, and it replaces an earlier one rather than compounding: estimated must be the
// uncorrected estimate, as [Estimator.Raw] gives it.
func (e Estimator) Calibrate(estimated int, u chat.Usage) Estimator {
	if estimated <= 0 || u.InputTokens <= 0 {
		return e
	}
	s := int(int64(u.InputTokens) * 1000 / int64(estimated))
	e.scale1000 = min(max(s, 250), 4000)
	return e
}

// Scale returns the correction in thousandths (1000 when none).
func (e Estimator) Scale() int {
	if e.scale1000 == 0 {
		return 1000
	}
	return e.scale1000
}

// Scaled returns n, a count of the uncorrected estimator ([Estimator.Raw]), corrected as every
// estimate of e is: a caller that keeps raw counts of parts of a request (the messages it saw
// before) sums them and corrects the sum once, getting what [Estimator.Prompt] would.
func (e Estimator) Scaled(n int) int { return e.scale(n) }

// Raw returns the estimator without its calibration.
func (e Estimator) Raw() Estimator {
	e.scale1000 = 1000
	return e
}

// countRunes counts the ASCII bytes and the other runes' leading bytes of s, eight bytes at a
// time where they are all ASCII (the common case of code, JSON and English).
func countRunes[S string | []byte](s S) (ascii, other int) {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 == 0 {
			ascii += 8
			continue
		}
		for j := i; j < i+8; j++ {
			ascii, other = count(s[j], ascii, other)
		}
	}
	for ; i < len(s); i++ {
		ascii, other = count(s[i], ascii, other)
	}
	return ascii, other
}

func count(b byte, ascii, other int) (int, int) {
	if b < 0x80 {
		return ascii + 1, other
	}
	if b&0xC0 != 0x80 { // a rune's leading byte
		return ascii, other + 1
	}
	return ascii, other
}
