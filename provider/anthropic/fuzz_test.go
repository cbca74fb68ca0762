package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/replay"
)

// FuzzStreamEvents feeds arbitrary event sequences (one JSON payload per line) to the stream
// mapping and the aggregator: whatever arrives, the result is deltas or an error, never a panic.
// The corpus starts from every recorded stream and the hand-written thinking stream.
func FuzzStreamEvents(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*-response.sse"))
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(bytes.Join(replay.SSEData(body), []byte("\n")))
	}
	f.Add(bytes.Join(replay.SSEData(thinkingStream), []byte("\n")))
	f.Fuzz(func(t *testing.T, data []byte) {
		var st streamState
		var agg chat.Aggregator
		for _, line := range bytes.Split(data, []byte("\n")) {
			var ev sdk.MessageStreamEventUnion
			if json.Unmarshal(line, &ev) != nil {
				continue
			}
			chunk, err := st.event(&ev)
			if err != nil {
				return
			}
			agg.Add(chunk)
		}
		_ = st.finish(context.Background(), nil)
		_ = agg.Response()
	})
}
