package providertest

import (
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chat/modeltest"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/replay"
)

// Conformance is a provider under the public model kit, chat/modeltest, driven by its recorded
// traffic: each case is answered by a server replaying the recording of that answer.
type Conformance struct {
	// New returns the provider's model talking to the server at url.
	New func(t testing.TB, url string) chat.Model
	// Answer returns the recorded answer to c, called or streamed, or false to skip c in that
	// mode (the provider has no recording of it).
	Answer func(t testing.TB, c modeltest.Case, stream bool) (replay.Exchange, bool)
	// Prompt returns the prompt the answer of c answered (its tools by their recorded names);
	// nil, or a nil result, means modeltest's.
	Prompt func(c modeltest.Case) *chat.Prompt
	// Refused are parts the provider cannot take.
	Refused []content.Part
}

// Run runs modeltest.Run on the provider. A refusal is checked against a server with nothing
// to replay, which fails the test if the refused request reaches it.
func (cf Conformance) Run(t *testing.T) {
	modeltest.Run(t, modeltest.Config{
		New: func(t *testing.T, c modeltest.Case, stream bool) chat.Model {
			if c == modeltest.Refusal {
				return cf.New(t, replay.NewServer(t).URL)
			}
			ex, ok := cf.Answer(t, c, stream)
			if !ok {
				return nil
			}
			return cf.New(t, replay.NewServer(t, ex).URL)
		},
		Prompt:  cf.Prompt,
		Refused: cf.Refused,
	})
}

// Recording returns exchange n, counted from 1, of the recorded case testdata/dir.
func Recording(t testing.TB, dir string, n int) replay.Exchange {
	t.Helper()
	exs := Load(t, dir)
	if n < 1 || n > len(exs) {
		t.Fatalf("%s has %d exchanges, not %d", dir, len(exs), n)
	}
	return exs[n-1]
}

// CallOrStream returns Recording(t, stream, 1) when stream is set, else Recording(t, call, 1):
// the answers of one case, called and streamed.
func CallOrStream(t testing.TB, stream bool, call, streamed string) (replay.Exchange, bool) {
	t.Helper()
	if stream {
		return Recording(t, streamed, 1), true
	}
	return Recording(t, call, 1), true
}

// VariantOrStream returns the variant answer ([VariantAnswer]) of one case, called or streamed:
// the answers of a case no recording holds, written from the provider's API description.
func VariantOrStream(t testing.TB, stream bool, call, streamed string) (replay.Exchange, bool) {
	t.Helper()
	if stream {
		ex, _ := VariantAnswer(t, streamed)
		return ex, true
	}
	ex, _ := VariantAnswer(t, call)
	return ex, true
}
