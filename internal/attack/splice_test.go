package attack

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/anthropic"
	"github.com/wield-ai/wield/provider/bedrock"
	"github.com/wield-ai/wield/provider/gemini"
	"github.com/wield-ai/wield/provider/ollama"
	"github.com/wield-ai/wield/provider/openai"
)

// TestLargeValuesReachTheAPIWhole: providers send a large image and a large tool result as
// tokens through their SDK and splice the values in as the body goes out. Whatever the SDK and
// the platform do to the body on the way (Bedrock's SigV4 signature over it, Vertex's rewriting),
// the API must receive valid JSON holding the image's exact base64 and the result's exact text,
// escapes and invalid UTF-8 included, by Call and by Stream.
func TestLargeValuesReachTheAPIWhole(t *testing.T) {
	img := make([]byte, 300<<10+1)
	_, _ = rand.Read(img)
	copy(img, "\x89PNG\r\n\x1a\n")
	var b strings.Builder
	for b.Len() < 200<<10 {
		b.WriteString("line \"quoted\" \\ tab\t nl\n ctl\x01 é 日本 \u2028 bad\xff <&> ")
	}
	result := b.String()
	wantImage := base64.StdEncoding.EncodeToString(img)
	wantResult := jsonRoundTrip(t, result)

	const region = "us-east-1"
	awsCreds := credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")
	var mu sync.Mutex
	var problems []string
	report := func(s string) {
		mu.Lock()
		problems = append(problems, s)
		mu.Unlock()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			report("reading the body: " + err.Error())
			return
		}
		if r.ContentLength >= 0 && int64(len(body)) != r.ContentLength {
			report("the body does not match its Content-Length")
		}
		if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, "AWS4-HMAC-SHA256") {
			if err := checkSigV4(r, body, awsCreds, region); err != nil {
				report("signature: " + err.Error())
			}
		}
		var doc any
		if err := json.Unmarshal(body, &doc); err != nil {
			report("the body is not JSON: " + err.Error())
			return
		}
		var sawImage, sawResult bool
		walkStrings(doc, func(s string) {
			sawImage = sawImage || strings.Contains(s, wantImage)
			sawResult = sawResult || strings.Contains(s, wantResult)
			if strings.Contains(s, "WieldSplice") {
				report("a token reached the API")
			}
		})
		if !sawImage || !sawResult {
			report("the body lacks the image or the result")
		}
		answer := textAnswer[r.Header.Get("X-Test-Provider")]
		switch {
		case strings.Contains(r.URL.Path, "invoke"): // Claude on Bedrock answers as Anthropic
			answer = textAnswer["anthropic"]
		case strings.Contains(r.URL.Path, "rawPredict"): // Claude on Vertex AI
			answer = textAnswer["anthropic"]
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	defer srv.Close()

	ctx := context.Background()
	awsCfg := aws.Config{Region: region, Credentials: awsCreds}
	vertexCreds := &google.Credentials{ProjectID: "p", TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: oauthToken})}
	header := func(name string) provider.Transport {
		return provider.Transport{MaxRetries: -1, Header: http.Header{"X-Test-Provider": {name}}}
	}
	build := map[string]func() (chat.Model, error){
		"openai": func() (chat.Model, error) {
			return openai.New(openai.Config{BaseURL: srv.URL, APIKey: apiKey, Model: "m", Transport: header("openai")})
		},
		"openai-responses": func() (chat.Model, error) {
			return openai.NewResponses(openai.Config{BaseURL: srv.URL, APIKey: apiKey, Model: "m", Transport: header("openai-responses")})
		},
		"anthropic": func() (chat.Model, error) {
			return anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: apiKey, Model: "m", Transport: header("anthropic")})
		},
		"anthropic-bedrock": func() (chat.Model, error) {
			return anthropic.NewBedrock(ctx, anthropic.BedrockConfig{Config: anthropic.Config{BaseURL: srv.URL, Model: "m", Transport: header("anthropic")}, AWS: &awsCfg})
		},
		"anthropic-vertex": func() (chat.Model, error) {
			return anthropic.NewVertex(ctx, anthropic.VertexConfig{Config: anthropic.Config{BaseURL: srv.URL, Model: "m@1", Transport: header("anthropic")}, Region: "us-east5", Credentials: vertexCreds})
		},
		"gemini": func() (chat.Model, error) {
			return gemini.New(ctx, gemini.Config{BaseURL: srv.URL, APIKey: apiKey, Model: "m", Transport: header("gemini")})
		},
		"ollama": func() (chat.Model, error) {
			return ollama.New(ollama.Config{BaseURL: srv.URL, Model: "m", Transport: header("ollama")})
		},
		"bedrock": func() (chat.Model, error) {
			return bedrock.New(ctx, bedrock.Config{BaseURL: srv.URL, Model: "m", AWS: &awsCfg, MaxAttempts: 1, Transport: header("bedrock")})
		},
	}
	p := &chat.Prompt{Messages: []chat.Message{
		chat.User("What is this?", content.Image(img, "image/png")),
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "big", Arguments: "{}"}}},
		{Role: chat.RoleTool, ToolResults: []chat.ToolResult{{ID: "call_1", Name: "big", Content: result}}},
	}}
	for name, newModel := range build {
		t.Run(name, func(t *testing.T) {
			m, err := newModel()
			if err != nil {
				t.Fatal(err)
			}
			for _, how := range []string{"call", "stream"} {
				mu.Lock()
				problems = nil
				mu.Unlock()
				if how == "call" {
					_, err = m.Call(ctx, p)
				} else {
					// The server answers a stream with a whole JSON answer; only the request matters.
					for _, err = range m.Stream(ctx, p) {
					}
				}
				mu.Lock()
				if how == "call" && err != nil {
					t.Errorf("%s: %v", how, err)
				}
				for _, s := range problems {
					t.Errorf("%s: %s", how, s)
				}
				mu.Unlock()
			}
		})
	}
}

// jsonRoundTrip is s as a JSON reader reads it back: each byte of invalid UTF-8 made U+FFFD.
func jsonRoundTrip(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back string
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

func walkStrings(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, e := range v {
			walkStrings(e, f)
		}
	case map[string]any:
		for _, e := range v {
			walkStrings(e, f)
		}
	}
}

// checkSigV4 signs a copy of r again over the body received and compares the signatures: a body
// spliced after signing would not match the hash the client signed.
func checkSigV4(r *http.Request, body []byte, creds aws.CredentialsProvider, region string) error {
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return err
	}
	c, err := creds.Retrieve(r.Context())
	if err != nil {
		return err
	}
	req, err := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), nil)
	if err != nil {
		return err
	}
	auth := r.Header.Get("Authorization")
	// Sign the headers the client signed, as it sent them.
	_, signed, _ := strings.Cut(auth, "SignedHeaders=")
	signed, _, _ = strings.Cut(signed, ",")
	for _, h := range strings.Split(signed, ";") {
		if h != "host" {
			req.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	req.Header.Del("Authorization")
	req.ContentLength = int64(len(body))
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(r.Context(), c, req, hex.EncodeToString(sum[:]), "bedrock", region, when); err != nil {
		return err
	}
	if got := req.Header.Get("Authorization"); got != auth {
		return errSignature
	}
	return nil
}

var errSignature = errorString("the signature does not cover the body received")

type errorString string

func (e errorString) Error() string { return string(e) }
