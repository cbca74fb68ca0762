package gemini

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/internal/embedding"
)

// DefaultEmbeddingModel is the model an [Embedder] uses when [EmbedderConfig.Model] is empty.
const DefaultEmbeddingModel = "gemini-embedding-001"

// Task types say what embeddings are for; the model embeds a text differently for each. Tool
// search embeds the tools as documents and the searches as queries: see [EmbedderConfig.TaskType].
const (
	TaskRetrievalDocument  = "RETRIEVAL_DOCUMENT"   // a text of the corpus being searched
	TaskRetrievalQuery     = "RETRIEVAL_QUERY"      // a search query
	TaskCodeRetrievalQuery = "CODE_RETRIEVAL_QUERY" // a query for code blocks, which are embedded as documents
	TaskQuestionAnswering  = "QUESTION_ANSWERING"   // a question, answered by documents
	TaskFactVerification   = "FACT_VERIFICATION"    // a statement, verified by documents
	TaskSemanticSimilarity = "SEMANTIC_SIMILARITY"  // texts compared with each other
	TaskClassification     = "CLASSIFICATION"
	TaskClustering         = "CLUSTERING"
)

// Limits of one request. The Gemini API takes at most 100 texts per batchEmbedContents and 4 MiB
// per request; a quarter of that in text leaves room for the JSON around it. Vertex AI's
// predict takes 250 texts and 20,000 tokens (a token is at least one byte), and its Gemini
// embedding models one text per request.
const (
	maxGeminiAPIBatch      = 100
	maxGeminiAPIBatchBytes = 1 << 20
	maxVertexBatch         = 250
	maxVertexBatchBytes    = 20_000
)

// EmbedderConfig configures an [Embedder]. The zero value embeds with [DefaultEmbeddingModel]
// on the Gemini Developer API, with the API key from the environment, and no task type.
type EmbedderConfig struct {
	// Model names the embedding model; empty means [DefaultEmbeddingModel].
	Model string
	// TaskType tells the model what the vectors are for (the Task constants). A vector index
	// needs two embedders of one model: [TaskRetrievalDocument] for the indexed texts and
	// [TaskRetrievalQuery] for the searches (toolsearch.VectorConfig.QueryEmbedder). Empty
	// sends none, leaving the model's default.
	TaskType string
	// Dimensions asks for vectors of this length (outputDimensionality); zero leaves the
	// model's own (3072 for gemini-embedding-001). A server that returns another length fails
	// the call.
	Dimensions int
	// BatchSize caps the texts sent in one request; zero means the most the API takes: 100 on
	// the Gemini Developer API; on Vertex AI one for Gemini embedding models and 250 for others.
	BatchSize int
	// Configure, when set, may adjust every request's SDK configuration after wield has filled
	// it (Title, Vertex AI's AutoTruncate, HTTPOptions, …).
	Configure func(*genai.EmbedContentConfig)

	// APIKey, BaseURL, Transport and ClientConfig reach the API as for [Config]: the key
	// defaults to $GEMINI_API_KEY, then $GOOGLE_API_KEY; ClientConfig selects Vertex AI.
	APIKey       string
	BaseURL      string
	ClientConfig *genai.ClientConfig
	provider.Transport

	sleep func(context.Context, time.Duration) error // replaces retry waits in tests
}

// Embedder turns texts into vectors with the Gemini API's batchEmbedContents (or Vertex AI's
// embedding endpoints). It has the method set of toolsearch.Embedder, so it can back a
// toolsearch.VectorIndex. It is safe for concurrent use.
type Embedder struct {
	client   *genai.Client
	cfg      EmbedderConfig
	maxBytes int
}

// NewEmbedder returns an Embedder. ctx is used only while setting up credentials (Vertex AI).
func NewEmbedder(ctx context.Context, cfg EmbedderConfig) (*Embedder, error) {
	m, err := New(ctx, Config{APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, Transport: cfg.Transport, ClientConfig: cfg.ClientConfig, sleep: cfg.sleep})
	if err != nil {
		return nil, err
	}
	return newEmbedder(m.client, cfg)
}

// NewEmbedderWithClient returns an Embedder that uses an SDK client built by the caller. No
// retry transport is added; APIKey, BaseURL, HTTPClient, MaxRetries and ClientConfig of cfg are
// ignored.
func NewEmbedderWithClient(client *genai.Client, cfg EmbedderConfig) (*Embedder, error) {
	if client == nil {
		return nil, errors.New("gemini: nil client")
	}
	return newEmbedder(client, cfg)
}

func newEmbedder(client *genai.Client, cfg EmbedderConfig) (*Embedder, error) {
	if cfg.Dimensions < 0 || cfg.Dimensions > math.MaxInt32 {
		return nil, fmt.Errorf("gemini: Dimensions is %d, want 0 or more", cfg.Dimensions)
	}
	if cfg.BatchSize < 0 {
		return nil, fmt.Errorf("gemini: BatchSize is %d, want 0 or more", cfg.BatchSize)
	}
	if cfg.Model == "" {
		cfg.Model = DefaultEmbeddingModel
	}
	e := &Embedder{client: client, cfg: cfg}
	limit := maxGeminiAPIBatch
	e.maxBytes = maxGeminiAPIBatchBytes
	if client.ClientConfig().Backend == genai.BackendVertexAI {
		limit, e.maxBytes = maxVertexBatch, maxVertexBatchBytes
		if name := strings.ToLower(cfg.Model); strings.Contains(name, "gemini") || strings.Contains(name, "maas") {
			limit = 1
		}
	}
	if e.cfg.BatchSize == 0 || e.cfg.BatchSize > limit {
		e.cfg.BatchSize = limit
	}
	return e, nil
}

// Model returns the name of the embedding model.
func (e *Embedder) Model() string { return e.cfg.Model }

// TaskType returns the task type sent with every text, or "" for none.
func (e *Embedder) TaskType() string { return e.cfg.TaskType }

// Client returns the SDK client.
func (e *Embedder) Client() *genai.Client { return e.client }

// Embed returns one vector per text, in the order of texts, sending as few requests as the
// API's limits allow, one after the other. API errors are *chat.ProviderError; an answer that
// does not hold exactly one vector per text, or vectors of different lengths, is an error.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := embedding.NewVectors(len(texts), e.cfg.Dimensions)
	for start, batch := range embedding.Batches(texts, e.cfg.BatchSize, e.maxBytes) {
		res, err := e.embed(ctx, batch)
		if err != nil {
			return nil, wrapError(err)
		}
		if err := embedding.Count(len(res.Embeddings), len(batch)); err != nil {
			return nil, fmt.Errorf("gemini: %w", err)
		}
		for i, emb := range res.Embeddings {
			var vec []float32
			if emb != nil {
				vec = emb.Values
			}
			if err := out.Put(start+i, vec); err != nil {
				return nil, fmt.Errorf("gemini: %w", err)
			}
		}
	}
	return out.Result()
}

// embed sends one batch, turning the SDK's panics on well-formed JSON of the wrong shape into
// errors.
func (e *Embedder) embed(ctx context.Context, batch []string) (res *genai.EmbedContentResponse, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("malformed response: %v", r)
		}
	}()
	contents := make([]*genai.Content, len(batch))
	for i, t := range batch {
		contents[i] = &genai.Content{Parts: []*genai.Part{{Text: t}}}
	}
	cfg := &genai.EmbedContentConfig{TaskType: e.cfg.TaskType}
	if e.cfg.Dimensions > 0 {
		d := int32(e.cfg.Dimensions)
		cfg.OutputDimensionality = &d
	}
	if e.cfg.Configure != nil {
		e.cfg.Configure(cfg)
	}
	return e.client.Models.EmbedContent(ctx, e.cfg.Model, contents, cfg)
}
