package temporal_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"path/filepath"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/temporal/internal/servertest"
)

// sealCodec encrypts every payload with AES-GCM, as an application's encrypting codec would.
type sealCodec struct{ aead cipher.AEAD }

func newSealCodec(t *testing.T) *sealCodec {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	return &sealCodec{aead}
}

const sealedEncoding = "binary/sealed"

func (c *sealCodec) Encode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		plain, err := p.Marshal()
		if err != nil {
			return nil, err
		}
		nonce := make([]byte, c.aead.NonceSize())
		if _, err := rand.Read(nonce); err != nil {
			return nil, err
		}
		out[i] = &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte(sealedEncoding)},
			Data: c.aead.Seal(nonce, nonce, plain, nil)}
	}
	return out, nil
}

func (c *sealCodec) Decode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != sealedEncoding {
			out[i] = p
			continue
		}
		n := c.aead.NonceSize()
		if len(p.GetData()) < n {
			return nil, errors.New("sealed payload too short")
		}
		plain, err := c.aead.Open(nil, p.GetData()[:n], p.GetData()[n:], nil)
		if err != nil {
			return nil, err
		}
		out[i] = &commonpb.Payload{}
		if err := out[i].Unmarshal(plain); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// TestEncryptingCodecThroughATurn: with an encrypting codec, a client-loop turn stops for
// approval, its pending state is read (from its encrypted memo, with no worker) and decided, a
// running tool's progress is read, the turn ends, its history holds no plain text, and it
// replays with the codec.
func TestEncryptingCodecThroughATurn(t *testing.T) {
	addr, ns := servertest.Start(t)
	dc := converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), newSealCodec(t))
	tc, err := sdkclient.Dial(sdkclient.Options{HostPort: addr, Namespace: ns, DataConverter: dc, Logger: servertest.Quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Close)
	queue := "sealed-" + rand.Text()[:8]
	runs := filepath.Join(t.TempDir(), "runs")
	cfg := approvalConfig(queue)
	cfg.DataConverter = dc
	w := startWorker(t, tc, approvalClient(runs), cfg)
	ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("delete the secret-file-7731")}})
	st := waitPending(t, ctx, turn)
	w.Stop()
	quick, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	got, err := turn.Pending(quick) // from the memo, decoded with the codec
	if err != nil || got == nil || got.Seq != st.Seq || len(got.Pending()) != 1 {
		t.Fatalf("pending from the sealed memo = %+v, %v", got, err)
	}
	if ps, err := turn.Progress(ctx); err != nil || len(ps) != 0 {
		t.Fatalf("progress of a waiting turn = %+v, %v", ps, err)
	}
	startWorker(t, tc, approvalClient(runs), cfg)
	if err := turn.Decide(ctx, got.Seq, client.Approve(got.Pending()[0].Call.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := turn.Result(ctx); err != nil {
		t.Fatal(err)
	}

	h := fetchHistory(t, tc, turn.ID())
	raw, err := h.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("secret-file-7731")) {
		t.Fatal("the history holds the conversation in plain text")
	}
	r, err := temporal.NewClientReplayer(approvalClient(runs), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.ReplayWorkflowHistory(nil, h); err != nil {
		t.Fatalf("replaying with the codec: %v", err)
	}
	plain, err := temporal.NewClientReplayer(approvalClient(runs), approvalConfig(queue))
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.ReplayWorkflowHistory(nil, h); err == nil {
		t.Fatal("a replayer without the codec replayed a sealed history")
	}

	// A running tool's progress, from its sealed heartbeat.
	lookups := filepath.Join(t.TempDir(), "lookups")
	pcfg := crashConfig(queue+"-progress", memory.NewWindow(memory.NewInMemory(), 50))
	pcfg.DataConverter = dc
	startWorker(t, tc, engineCrashClient(lookups, true), pcfg)
	_, pturn := startTurn(t, tc, pcfg, time.Minute, temporal.Request{ConversationID: "p", Messages: []chat.Message{chat.User("look up")}})
	eventually(t, time.Minute, "the lookup's sealed progress", func() bool {
		ps, err := pturn.Progress(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(ps) == 1 && ps[0].Progress != nil && ps[0].Progress.Message == "searching"
	})
	if err := pturn.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
}
