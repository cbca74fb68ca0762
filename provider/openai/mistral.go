package openai

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"strings"

	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/wield-ai/wield/chat"
)

// DefaultMistralBaseURL is the API root [NewMistral] uses when [Config.BaseURL] is empty.
const DefaultMistralBaseURL = "https://api.mistral.ai/v1"

// MistralProvider is the Provider of the [chat.Reasoning] entries read from Mistral's thinking
// chunks (Magistral models). They are not sent back: Mistral does not need them.
const MistralProvider = "mistral"

// NewMistral returns a model on Mistral's chat completions API (POST {base URL}/chat/completions),
// which follows OpenAI's Chat Completions with differences this model handles:
//
//   - tool-call ids must be 9 letters or digits: ids of other providers (and made-up ones) in the
//     history are sent as such ids, derived from them (the same id always maps to the same one,
//     distinct within a request), in both the calls and the results answering them;
//   - tool messages carry the tool's name; Mistral answers tool calls without a type and streams
//     them whole without an index, which is read as one call each;
//   - the request schema refuses fields it does not define: stream_options is not sent (the last
//     chunk carries the usage anyway), Seed goes in random_seed, Store is an error, and reasoning
//     from other servers is not sent back;
//   - Magistral answers with content chunks: text chunks become the text, thinking chunks
//     [chat.Reasoning] entries of [MistralProvider];
//   - the finish reason model_length is [chat.FinishLength].
//
// The base URL defaults to [DefaultMistralBaseURL] and the key to $MISTRAL_API_KEY. [New] with a
// base URL on api.mistral.ai makes the same model.
func NewMistral(cfg Config) (*ChatModel, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultMistralBaseURL
	}
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("MISTRAL_API_KEY")
	}
	if cfg.APIKey == "" {
		return nil, errors.New("openai: Mistral needs an API key: set Config.APIKey or $MISTRAL_API_KEY")
	}
	if cfg.Azure != nil {
		return nil, errors.New("openai: NewMistral with Config.Azure")
	}
	m, err := New(cfg)
	if err != nil {
		return nil, err
	}
	m.mistral = true
	return m, nil
}

// isMistral reports whether a base URL is Mistral's API.
func isMistral(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.mistral.ai")
}

// mistralRequest adjusts a request's settings to Mistral's schema: the extra body fields to send
// (random_seed in place of seed, before the caller's own ExtraBody).
func mistralRequest(s *callSettings) (map[string]any, error) {
	if s.store != nil {
		return nil, fmt.Errorf("openai: Mistral: %w: Store", ErrUnsupported)
	}
	body := map[string]any{}
	if seed := s.opts.Seed; seed != nil {
		body["random_seed"] = *seed
	}
	for k, v := range s.body {
		body[k] = v
	}
	return body, nil
}

// mistralIDs gives tool calls ids Mistral accepts: an id of 9 letters and digits is kept; any
// other becomes 9 base-62 digits of its SHA-256, distinct within the request.
type mistralIDs struct {
	wire  map[string]string // id → wire id
	taken map[string]bool
}

func newMistralIDs() *mistralIDs {
	return &mistralIDs{wire: map[string]string{}, taken: map[string]bool{}}
}

func mistralValidID(id string) bool {
	if len(id) != 9 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

func (m *mistralIDs) id(id string) string {
	if w, ok := m.wire[id]; ok {
		return w
	}
	w := id
	if !mistralValidID(id) || m.taken[id] {
		for salt := 0; ; salt++ {
			sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", id, salt)))
			digits := new(big.Int).SetBytes(sum[:]).Text(62)
			w = (digits + "000000000")[:9]
			if !m.taken[w] {
				break
			}
		}
	}
	m.wire[id] = w
	m.taken[w] = true
	return w
}

// contentChunks reads a message content that came as an array of chunks (Magistral): text
// chunks joined, and thinking chunks as reasoning entries. ok is false when raw is not such an
// array.
func contentChunks(raw string) (text string, reasoning []chat.Reasoning, ok bool) {
	if !strings.HasPrefix(strings.TrimSpace(raw), "[") {
		return "", nil, false
	}
	var chunks []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Thinking []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"thinking"`
	}
	if json.Unmarshal([]byte(raw), &chunks) != nil {
		return "", nil, false
	}
	var b strings.Builder
	for _, c := range chunks {
		switch c.Type {
		case "text":
			b.WriteString(c.Text)
		case "thinking":
			var t strings.Builder
			for _, p := range c.Thinking {
				t.WriteString(p.Text)
			}
			if t.Len() > 0 {
				reasoning = append(reasoning, chat.Reasoning{Provider: MistralProvider, Text: t.String()})
			}
		}
	}
	return b.String(), reasoning, true
}

// numCachedTokens reads the num_cached_tokens member of Mistral's usage, which it reports
// beside (or instead of) prompt_tokens_details.cached_tokens.
func numCachedTokens(extra map[string]respjson.Field) int {
	return intField(extra, "num_cached_tokens")
}

// intField returns an integer member the SDK does not know, or 0.
func intField(extra map[string]respjson.Field, name string) int {
	raw := extraRaw(extra, name)
	var n int
	if raw == "" || json.Unmarshal([]byte(raw), &n) != nil {
		return 0
	}
	return n
}
