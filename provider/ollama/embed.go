package ollama

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/internal/embedding"
)

// DefaultEmbedBatchSize is how many texts an [Embedder] sends in one request unless
// [EmbedderConfig.BatchSize] says otherwise. Ollama documents no limit; bounded requests keep
// each one short and its retry cheap.
const DefaultEmbedBatchSize = 256

// EmbedderConfig configures an [Embedder]. Model is required; the server comes from BaseURL or
// $OLLAMA_HOST as for [Config].
type EmbedderConfig struct {
	// Model names the embedding model, such as "embeddinggemma", "nomic-embed-text" or
	// "qwen3-embedding".
	Model string
	// BaseURL is the server's address; empty means $OLLAMA_HOST, defaulting to
	// http://127.0.0.1:11434.
	BaseURL string
	// Transport says how requests reach the API: HTTP client, retries, timeouts, size bound,
	// headers.
	provider.Transport
	// Dimensions asks for vectors of this length, for models that can shorten theirs; zero
	// leaves the model's own. A server that returns another length fails the call.
	Dimensions int
	// Prefix is put before every text: the instruction a model is trained with, such as
	// nomic-embed-text's "search_document: " (tools) and "search_query: " (queries), or
	// embeddinggemma's "title: none | text: " and "task: search result | query: ".
	Prefix string
	// BatchSize caps the texts sent in one request; zero means [DefaultEmbedBatchSize].
	BatchSize int
	// Configure, when set, may adjust every request after wield has filled it (keep_alive,
	// truncate, options such as num_ctx).
	Configure func(*api.EmbedRequest)

	sleep func(context.Context, time.Duration) error // replaces retry waits in tests
}

// Embedder turns texts into vectors with Ollama's /api/embed. It has the method set of
// toolsearch.Embedder, so it can back a toolsearch.VectorIndex. It is safe for concurrent use.
type Embedder struct {
	m   *Model
	cfg EmbedderConfig
}

// NewEmbedder returns an Embedder.
func NewEmbedder(cfg EmbedderConfig) (*Embedder, error) {
	if cfg.Model == "" {
		return nil, errors.New("ollama: no embedding model: set EmbedderConfig.Model")
	}
	if cfg.Dimensions < 0 {
		return nil, fmt.Errorf("ollama: Dimensions is %d, want 0 or more", cfg.Dimensions)
	}
	if cfg.BatchSize < 0 {
		return nil, fmt.Errorf("ollama: BatchSize is %d, want 0 or more", cfg.BatchSize)
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultEmbedBatchSize
	}
	m, err := New(Config{Model: cfg.Model, BaseURL: cfg.BaseURL, Transport: cfg.Transport, sleep: cfg.sleep})
	if err != nil {
		return nil, err
	}
	return &Embedder{m: m, cfg: cfg}, nil
}

// Model returns the name of the embedding model.
func (e *Embedder) Model() string { return e.cfg.Model }

// Client returns the SDK client, which shares the Embedder's retries.
func (e *Embedder) Client() *api.Client { return e.m.client }

// Embed returns one vector per text, in the order of texts, in batches of
// [EmbedderConfig.BatchSize] sent one after the other. Error answers are *chat.ProviderError; an
// answer that does not hold exactly one vector per text, or vectors of different lengths, is an
// error.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := embedding.NewVectors(len(texts), e.cfg.Dimensions)
	for start, batch := range embedding.Batches(texts, e.cfg.BatchSize, 0) {
		input := make([]string, len(batch))
		for i, t := range batch {
			input[i] = e.cfg.Prefix + t
		}
		// The client sends "options" even when nil, and null is not the object the API describes.
		req := &api.EmbedRequest{Model: e.cfg.Model, Input: input, Dimensions: e.cfg.Dimensions, Options: map[string]any{}}
		if e.cfg.Configure != nil {
			e.cfg.Configure(req)
		}
		res, err := e.m.client.Embed(ctx, req)
		if err != nil {
			return nil, embedError(err)
		}
		if err := embedding.Count(len(res.Embeddings), len(batch)); err != nil {
			return nil, fmt.Errorf("ollama: %w", err)
		}
		for i, vec := range res.Embeddings {
			if err := out.Put(start+i, vec); err != nil {
				return nil, fmt.Errorf("ollama: %w", err)
			}
		}
	}
	return out.Result()
}

// embedError reports the client's error, as a *chat.ProviderError for an error status.
func embedError(err error) error {
	if pe := providerError(err); pe != nil {
		return pe
	}
	return fmt.Errorf("ollama: %w", err)
}
