package openai

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/internal/embedding"
)

// DefaultEmbeddingModel is the model an [Embedder] uses when [EmbedderConfig.Model] is empty.
const DefaultEmbeddingModel = "text-embedding-3-small"

// Limits of one Embeddings API request, from the API reference: at most 2048 inputs and
// 300,000 tokens summed over them. A token is at least one byte, so capping the bytes caps
// the tokens.
const (
	maxEmbeddingInputs = 2048
	maxEmbeddingBytes  = 300_000
)

// EmbedderConfig configures an [Embedder]. The zero value embeds with [DefaultEmbeddingModel],
// reading the API key and base URL from the environment like [Config].
type EmbedderConfig struct {
	// APIKey authenticates requests; empty reads $OPENAI_API_KEY.
	APIKey string
	// BaseURL is the API root, version path included: empty reads $OPENAI_BASE_URL, then uses
	// [DefaultBaseURL]. "embeddings" is appended to it, so OpenAI-compatible servers (vLLM,
	// llama.cpp, LM Studio, Ollama's "/v1", …) are reached through their own root.
	BaseURL string
	// Model names the embedding model; empty means [DefaultEmbeddingModel].
	Model string
	// Dimensions asks for vectors of this length (text-embedding-3 and later models shorten
	// their vectors on request); zero leaves the model's own. A server that returns another
	// length fails the call.
	Dimensions int
	// Prefix is put before every text: the instruction some open models are trained with, such
	// as nomic-embed-text's "search_document: " and "search_query: ". OpenAI's models need
	// none.
	Prefix string
	// BatchSize caps the texts sent in one request; zero, or more than the API allows, means
	// 2048, the API's limit. Requests also stay under the API's 300,000 tokens per request.
	BatchSize int
	// Transport says how requests reach the API: HTTP client, retries, timeouts, size bound,
	// headers.
	provider.Transport
	// Azure, when set, embeds with an embedding deployment on Azure OpenAI, [Azure.Deployment]
	// (or Model) naming it; BaseURL and APIKey must then be empty.
	Azure *Azure
	// SDKOptions are passed to the SDK client after the options above.
	SDKOptions []option.RequestOption
	// RequestOptions are passed after SDKOptions.
	//
	// Deprecated: use SDKOptions.
	RequestOptions []option.RequestOption
}

// Embedder turns texts into vectors with the Embeddings API (POST /embeddings). It has the
// method set of toolsearch.Embedder, so it can back a toolsearch.VectorIndex. It is safe for
// concurrent use.
type Embedder struct {
	b      base
	model  string
	dims   int
	prefix string
	batch  int
}

// NewEmbedder returns an Embedder.
func NewEmbedder(cfg EmbedderConfig) (*Embedder, error) {
	if cfg.Dimensions < 0 {
		return nil, fmt.Errorf("openai: Dimensions is %d, want 0 or more", cfg.Dimensions)
	}
	if cfg.BatchSize < 0 {
		return nil, fmt.Errorf("openai: BatchSize is %d, want 0 or more", cfg.BatchSize)
	}
	b, err := newBase(Config{APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, Transport: cfg.Transport, Model: cfg.Model,
		SDKOptions: cfg.SDKOptions, RequestOptions: cfg.RequestOptions, Azure: cfg.Azure})
	if err != nil {
		return nil, err
	}
	e := &Embedder{b: b, model: b.cfg.Model, dims: cfg.Dimensions, prefix: cfg.Prefix, batch: cfg.BatchSize}
	if e.model == "" {
		e.model = DefaultEmbeddingModel
	}
	if e.batch == 0 || e.batch > maxEmbeddingInputs {
		e.batch = maxEmbeddingInputs
	}
	return e, nil
}

// Model returns the name of the embedding model.
func (e *Embedder) Model() string { return e.model }

// Client returns the SDK client, which carries the Embedder's retries, timeouts and headers.
func (e *Embedder) Client() *oai.Client { return &e.b.client }

// Embed returns one vector per text, in the order of texts, sending as few requests as the
// API's limits allow, one after the other. Vectors are matched to texts by the index the API
// gives each, whatever the order of the response. HTTP failures are *chat.ProviderError; a
// response that does not hold exactly one vector per text, or vectors of different lengths,
// is an error.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if e.prefix != "" {
		prefixed := make([]string, len(texts))
		for i, t := range texts {
			prefixed[i] = e.prefix + t
		}
		texts = prefixed
	}
	out := embedding.NewVectors(len(texts), e.dims)
	for start, batch := range embedding.Batches(texts, e.batch, maxEmbeddingBytes) {
		if err := e.embedBatch(ctx, start, batch, out); err != nil {
			return nil, err
		}
	}
	return out.Result()
}

func (e *Embedder) embedBatch(ctx context.Context, start int, batch []string, out *embedding.Vectors) error {
	params := oai.EmbeddingNewParams{
		Model: e.model,
		Input: oai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: batch},
	}
	if e.dims > 0 {
		params.Dimensions = oai.Int(int64(e.dims))
	}
	if e.b.isOpenAI() {
		// A quarter of the size of decimal floats, and exact. Compatible servers are asked for
		// their default (floats), since not all of them know the setting.
		params.EncodingFormat = oai.EmbeddingNewParamsEncodingFormatBase64
	}
	ctx, f := withFailure(ctx)
	var res embeddingsResponse
	if _, err := e.b.client.Embeddings.New(ctx, params, callOptions(ctx, []option.RequestOption{option.WithResponseBodyInto(&res)})...); err != nil {
		return wrapError(err, f)
	}
	if err := embedding.Count(len(res.Data), len(batch)); err != nil {
		return fmt.Errorf("openai: %w", err)
	}
	for _, d := range res.Data {
		if d.Index == nil {
			return errors.New("openai: an embedding without an index")
		}
		i := *d.Index
		if i < 0 || i >= int64(len(batch)) {
			return fmt.Errorf("openai: embedding index %d, but the request had %d inputs", i, len(batch))
		}
		if err := out.Put(start+int(i), d.Embedding); err != nil {
			return fmt.Errorf("openai: %w", err)
		}
	}
	return nil
}

// embeddingsResponse is what Embed reads of a CreateEmbeddingResponse. It is decoded here, not
// into the SDK's type, which holds float64s, cannot read base64 vectors and turns values of the
// wrong type into zeros.
type embeddingsResponse struct {
	Data []struct {
		Index     *int64 `json:"index"`
		Embedding vector `json:"embedding"`
	} `json:"data"`
}

// vector is an embedding sent as a list of numbers or, for encoding_format "base64", as base64
// of little-endian float32s.
type vector []float32

func (v *vector) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '"' {
		return json.Unmarshal(b, (*[]float32)(v))
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("base64 embedding: %w", err)
	}
	if len(raw)%4 != 0 {
		return fmt.Errorf("base64 embedding of %d bytes, not a whole number of float32s", len(raw))
	}
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	*v = out
	return nil
}
