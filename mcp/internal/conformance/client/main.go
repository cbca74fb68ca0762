// Command client is an MCP client built on wield for the official MCP conformance suite
// (@modelcontextprotocol/conformance, "conformance client --command"). The suite runs it with the
// test server's URL as its argument and the scenario in $MCP_CONFORMANCE_SCENARIO; it connects
// with mcp.Connect, lists the server's tools through the wield client and calls them as tool.Tool
// values, the way a tool loop does.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/tool"
)

func main() {
	log.SetFlags(0)
	if len(os.Args) != 2 {
		log.Fatalf("usage: %s <server-url> (with MCP_CONFORMANCE_SCENARIO set)", os.Args[0])
	}
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	var extra map[string]any
	if s := os.Getenv("MCP_CONFORMANCE_CONTEXT"); s != "" {
		if err := json.Unmarshal([]byte(s), &extra); err != nil {
			log.Fatalf("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, scenario, os.Args[1], extra); err != nil {
		log.Fatalf("scenario %q: %v", scenario, err)
	}
}

func run(ctx context.Context, scenario, serverURL string, extra map[string]any) error {
	cfg := mcp.ServerConfig{
		Name:           "conformance",
		Type:           mcp.TypeHTTP,
		URL:            serverURL,
		Implementation: &sdk.Implementation{Name: "wield-conformance-client", Version: "1.0.0"},
	}
	// The tool to call, with its arguments, and a check of the text the model would read.
	var (
		name  string
		args  = `{}`
		check = func(string) error { return nil }
	)
	switch {
	case scenario == "initialize":
	case scenario == "tools_call":
		name, args = "add_numbers", `{"a":5,"b":3}`
		check = func(out string) error {
			if !strings.Contains(out, "8") {
				return fmt.Errorf("add_numbers answered %q", out)
			}
			return nil
		}
	case scenario == "elicitation-sep1034-client-defaults":
		name = "test_client_elicitation_defaults"
		// Accept without filling anything in: the SDK's client applies the schema's defaults.
		cfg.Options = &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		}}
	case scenario == "sse-retry":
		name = "test_reconnection"
	case strings.HasPrefix(scenario, "auth/"):
		handler, err := oauth(extra)
		if err != nil {
			return err
		}
		cfg.OAuth = handler
		name = "test-tool"
	default:
		return fmt.Errorf("unknown scenario")
	}

	c, err := mcp.Connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	tools, err := c.Tools(ctx)
	if err != nil {
		return err
	}
	if name == "" {
		return nil
	}
	t, err := find(tools, name)
	if err != nil {
		return err
	}
	out, err := t.Call(ctx, args)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	log.Printf("%s: %s", name, out)
	return check(out)
}

func find(tools []tool.Tool, name string) (tool.Tool, error) {
	for _, t := range tools {
		if t.Definition().Name == name {
			return t, nil
		}
	}
	return nil, fmt.Errorf("server has no tool %q", name)
}

// oauth is the authorization-code flow the suite's authorization servers expect: client ID
// metadata documents, dynamic registration, or the pre-registered client the scenario names.
func oauth(extra map[string]any) (auth.OAuthHandler, error) {
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              "http://localhost:3000/callback",
		AuthorizationCodeFetcher: fetchCode,
		ClientIDMetadataDocumentConfig: &auth.ClientIDMetadataDocumentConfig{
			URL: "https://conformance-test.local/client-metadata.json",
		},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{RedirectURIs: []string{"http://localhost:3000/callback"}},
		},
	}
	id, _ := extra["client_id"].(string)
	secret, _ := extra["client_secret"].(string)
	if id != "" && secret != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: id, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: secret}}
	}
	return auth.NewAuthorizationCodeHandler(cfg)
}

// fetchCode plays the user's browser: the suite's authorization server redirects at once to the
// callback with the code.
func fetchCode(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, fmt.Errorf("authorization redirect: %w", err)
	}
	q := loc.Query()
	if q.Get("code") == "" {
		return nil, errors.New("authorization redirect without a code")
	}
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}
