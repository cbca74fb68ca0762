package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/wield-ai/wield/chat"
)

// The fields of a Chat Completions assistant message that OpenAI-compatible servers use for
// reasoning. Each is a value of [Config.ReasoningField], and, prefixed with "openai/", the
// Provider of the [chat.Reasoning] entries read from it (see [ReasoningProvider]).
const (
	// FieldReasoningContent is a string: DeepSeek, vLLM, llama.cpp, xAI, Moonshot, Z.ai.
	FieldReasoningContent = "reasoning_content"
	// FieldReasoning is a string: OpenRouter, Groq, Cerebras, Ollama's compatible endpoint.
	FieldReasoning = "reasoning"
	// FieldReasoningDetails is an array of typed entries (reasoning.text with an optional
	// signature, reasoning.summary, reasoning.encrypted): OpenRouter and gateways built like it.
	// For Gemini 3 models an encrypted entry carries the thought signature the next request must
	// send back.
	FieldReasoningDetails = "reasoning_details"
	// FieldNone, as [Config.ReasoningField], never sends reasoning back.
	FieldNone = "none"
)

// ReasoningProvider returns the Provider of the [chat.Reasoning] entries a [ChatModel] reads
// from field: "openai/" + field. These entries are kept apart from the Responses API's
// ([Provider]), which [ResponsesModel] sends back as reasoning items.
func ReasoningProvider(field string) string { return "openai/" + field }

// reasoningField returns the field an entry came in, or "" for an entry that is not from Chat
// Completions.
func reasoningField(r chat.Reasoning) string {
	f, ok := strings.CutPrefix(r.Provider, "openai/")
	if !ok {
		return ""
	}
	switch f {
	case FieldReasoningContent, FieldReasoning, FieldReasoningDetails:
		return f
	}
	return ""
}

// messageReasoning reads the reasoning of a whole assistant message: the reasoning_details
// entries when there are any, else reasoning_content, else reasoning. Servers that send details
// repeat their text in a plain field, which is then left out, unless no entry holds text (only
// encrypted ones): the plain field is then the only readable reasoning, and comes first.
func messageReasoning(extra map[string]respjson.Field) []chat.Reasoning {
	var plain []chat.Reasoning
	for _, field := range []string{FieldReasoningContent, FieldReasoning} {
		if text := stringField(extra, field); text != "" {
			plain = []chat.Reasoning{{Provider: ReasoningProvider(field), Text: text}}
			break
		}
	}
	if raw := extraRaw(extra, FieldReasoningDetails); raw != "" {
		var entries []json.RawMessage
		if json.Unmarshal([]byte(raw), &entries) == nil && len(entries) > 0 {
			out := make([]chat.Reasoning, 0, len(entries)+1)
			readable := false
			for _, e := range entries {
				if r, ok := detailEntry(e); ok {
					out = append(out, r)
					readable = readable || r.Text != ""
				}
			}
			if !readable {
				out = append(plain, out...)
			}
			return out
		}
	}
	return plain
}

// extraRaw returns the JSON of a member the SDK does not know, or "" when it is absent or null.
// (The SDK marks such members as not valid, having no type to check them against.)
func extraRaw(extra map[string]respjson.Field, name string) string {
	f, ok := extra[name]
	if !ok || f.Raw() == respjson.Null {
		return ""
	}
	return f.Raw()
}

// stringField returns a string member of extra, or "".
func stringField(extra map[string]respjson.Field, name string) string {
	raw := extraRaw(extra, name)
	if raw == "" {
		return ""
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return ""
	}
	return s
}

// detail is a reasoning_details entry, its members kept as they came.
type detail map[string]any

// detailEntry maps a reasoning_details entry onto a chat entry: its text or summary as Text, its
// signature, its id, and the whole entry in Encrypted, which is sent back unchanged.
func detailEntry(raw json.RawMessage) (chat.Reasoning, bool) {
	var d detail
	if json.Unmarshal(raw, &d) != nil || d == nil {
		return chat.Reasoning{}, false
	}
	return d.entry()
}

func (d detail) str(key string) string {
	s, _ := d[key].(string)
	return s
}

func (d detail) entry() (chat.Reasoning, bool) {
	enc, err := json.Marshal(d)
	if err != nil {
		return chat.Reasoning{}, false
	}
	text := d.str("text")
	if d.str("type") == "reasoning.summary" {
		text = d.str("summary")
	}
	return chat.Reasoning{Provider: ReasoningProvider(FieldReasoningDetails), ID: d.str("id"), Text: text,
		Signature: d.str("signature"), Encrypted: string(enc)}, true
}

// continues reports whether fragment f belongs to the entry d being streamed: the same type and
// index, and no other id.
func (d detail) continues(f detail) bool {
	if d.str("type") != f.str("type") || fmt.Sprint(d["index"]) != fmt.Sprint(f["index"]) {
		return false
	}
	return d.str("id") == "" || f.str("id") == "" || d.str("id") == f.str("id")
}

// merge joins a streamed fragment into d: text, summary, signature and data are concatenated,
// other members keep their first value.
func (d detail) merge(f detail) {
	for k, v := range f {
		switch k {
		case "text", "summary", "signature", "data":
			s, _ := v.(string)
			d[k] = d.str(k) + s
		default:
			if d[k] == nil {
				d[k] = v
			}
		}
	}
}

// reasoningStream gathers the reasoning of one streamed generation. Servers stream it in
// fragments; chat.Aggregate keeps reasoning entries as they are yielded, so an entry is yielded
// whole, as soon as something else (a new entry, text, a tool call, the finish reason) shows it
// is complete.
type reasoningStream struct {
	details  bool // the server sends reasoning_details: plain fields repeat them
	provider string
	text     strings.Builder
	open     detail
}

// delta takes the reasoning of one delta and returns the entries it completed.
func (s *reasoningStream) delta(extra map[string]respjson.Field) []chat.Reasoning {
	var out []chat.Reasoning
	if raw := extraRaw(extra, FieldReasoningDetails); raw != "" {
		var frags []detail
		if json.Unmarshal([]byte(raw), &frags) == nil && len(frags) > 0 {
			s.details = true
			out = s.flushText(out)
			for _, fr := range frags {
				if fr == nil {
					continue
				}
				if s.open != nil && s.open.continues(fr) {
					s.open.merge(fr)
					continue
				}
				out = s.flushDetail(out)
				s.open = detail{}
				s.open.merge(fr)
			}
			return out
		}
	}
	if s.details {
		return nil
	}
	for _, field := range []string{FieldReasoningContent, FieldReasoning} {
		if text := stringField(extra, field); text != "" {
			return s.plain(out, ReasoningProvider(field), text)
		}
	}
	return out
}

// plain adds a fragment of plain reasoning text of provider.
func (s *reasoningStream) plain(out []chat.Reasoning, provider, text string) []chat.Reasoning {
	if s.provider != provider {
		out = s.flushText(out)
	}
	s.provider = provider
	s.text.WriteString(text)
	return out
}

// flush returns what is still open: the stream moved on to text, tool calls or its end.
func (s *reasoningStream) flush() []chat.Reasoning {
	return s.flushDetail(s.flushText(nil))
}

func (s *reasoningStream) flushText(out []chat.Reasoning) []chat.Reasoning {
	if s.text.Len() > 0 {
		out = append(out, chat.Reasoning{Provider: s.provider, Text: s.text.String()})
		s.text.Reset()
	}
	return out
}

func (s *reasoningStream) flushDetail(out []chat.Reasoning) []chat.Reasoning {
	if s.open != nil {
		if r, ok := s.open.entry(); ok {
			out = append(out, r)
		}
		s.open = nil
	}
	return out
}

// reasoningFields returns the members to add to an assistant message so the server gets its
// reasoning back: with field "" each entry's text in the field it came in (reasoning_details
// entries as they came); with FieldReasoningContent or FieldReasoning every text in that field;
// with FieldReasoningDetails the details as they came and plain text as reasoning.text entries;
// with FieldNone nothing. Entries of other providers are left out.
func reasoningFields(rs []chat.Reasoning, field string) (map[string]any, error) {
	if field == FieldNone {
		return nil, nil
	}
	var texts = map[string]*strings.Builder{}
	var details []json.RawMessage
	addText := func(f, text string) {
		if texts[f] == nil {
			texts[f] = &strings.Builder{}
		}
		texts[f].WriteString(text)
	}
	for _, r := range rs {
		from := reasoningField(r)
		switch {
		case from == "":
			continue
		case from == FieldReasoningDetails && (field == "" || field == FieldReasoningDetails):
			if !json.Valid([]byte(r.Encrypted)) || !bytes.HasPrefix(bytes.TrimSpace([]byte(r.Encrypted)), []byte("{")) {
				return nil, fmt.Errorf("openai: a %s reasoning entry does not hold its JSON object", FieldReasoningDetails)
			}
			details = append(details, json.RawMessage(r.Encrypted))
		case field == FieldReasoningDetails:
			if r.Text != "" {
				d, _ := json.Marshal(map[string]any{"type": "reasoning.text", "text": r.Text, "format": "unknown", "index": len(details)})
				details = append(details, d)
			}
		case field == "":
			addText(from, r.Text)
		default:
			addText(field, r.Text)
		}
	}
	out := map[string]any{}
	for f, b := range texts {
		if b.Len() > 0 {
			out[f] = b.String()
		}
	}
	if len(details) > 0 {
		out[FieldReasoningDetails] = details
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
