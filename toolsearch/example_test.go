package toolsearch_test

import (
	"context"
	"fmt"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

type cityIn struct {
	City string `json:"city"`
}

func ExampleNew() {
	weather := tool.Must(tool.Func("getWeatherForecast", "Returns the weather forecast for a city.",
		func(_ context.Context, in cityIn) (string, error) { return "sunny in " + in.City, nil }))
	stocks := tool.Must(tool.Func("get_stock_price", "Current price of a stock.",
		func(context.Context, struct{}) (string, error) { return "42", nil }))

	// A scripted model standing in for a real one: it searches, calls what it found, answers.
	model := chattest.New(
		chattest.Calls(chattest.Call(toolsearch.SearchToolName, `{"queries":["weather forecast"]}`)),
		chattest.Calls(chattest.Call("getWeatherForecast", `{"city":"Oslo"}`)),
		chattest.Text("It will be sunny in Oslo."),
	)
	c, err := client.New(model, client.WithAdvisors(toolsearch.New(toolsearch.Config{})))
	if err != nil {
		panic(err)
	}
	answer, err := c.Prompt("Will it rain in Oslo tomorrow?").Tools(weather, stocks).
		Param(client.ParamConversationID, "user-42").Call(context.Background()).Content()
	if err != nil {
		panic(err)
	}
	for i, p := range model.Prompts() {
		var names []string
		for _, t := range p.Options.Tools {
			names = append(names, t.Definition().Name)
		}
		fmt.Println("request", i+1, "tools:", names)
	}
	fmt.Println(answer)
	// Output:
	// request 1 tools: [toolSearchTool]
	// request 2 tools: [toolSearchTool getWeatherForecast]
	// request 3 tools: [toolSearchTool getWeatherForecast]
	// It will be sunny in Oslo.
}

func ExampleKeywordIndex() {
	ix := toolsearch.NewKeywordIndex(nil)
	ctx := context.Background()
	err := ix.IndexTools(ctx, "session-1", []tool.Definition{
		{Name: "getWeatherForecast", Description: "Returns the weather forecast for a city."},
		{Name: "get_stock_price", Description: "Current price of a stock."},
		{Name: "send-email", Description: "Sends an email."},
	})
	if err != nil {
		panic(err)
	}
	hits, _ := ix.Search(ctx, toolsearch.SearchRequest{Session: "session-1", Query: "what will the weather be like", MaxResults: 2})
	for _, h := range hits {
		fmt.Println(h.Name)
	}
	// Output:
	// getWeatherForecast
}

func ExampleRegexIndex() {
	ix := toolsearch.NewRegexIndex()
	ctx := context.Background()
	_ = ix.IndexTools(ctx, "s", []tool.Definition{
		{Name: "github_list_issues", Description: "Lists issues."},
		{Name: "github_create_issue", Description: "Opens an issue."},
		{Name: "jira_search", Description: "Searches Jira issues."},
	})
	hits, _ := ix.Search(ctx, toolsearch.SearchRequest{Session: "s", Query: "^github_.*issue"})
	for _, h := range hits {
		fmt.Println(h.Name)
	}
	// Output:
	// github_create_issue
	// github_list_issues
}

func ExampleAny() {
	// Keep at most 500 sessions, none idle for more than an hour.
	adv := toolsearch.New(toolsearch.Config{Eviction: toolsearch.Any(toolsearch.LRU(500), toolsearch.TTL(time.Hour))})
	fmt.Println(adv.SearchTool().Name)
	// Output: toolSearchTool
}

func ExampleNewCatalog() {
	weather := tool.Must(tool.Func("getWeatherForecast", "Returns the weather forecast for a city.",
		func(_ context.Context, in cityIn) (string, error) { return "sunny in " + in.City, nil }))
	mail := tool.Must(tool.Func("sendEmail", "Sends an email to a recipient.",
		func(context.Context, struct{}) (string, error) { return "sent", nil }))

	// A large catalog is read once, here, not on every turn; every conversation shares its index.
	catalog, err := toolsearch.NewCatalog(weather, mail)
	if err != nil {
		panic(err)
	}
	// The model asks for two capabilities in one search, one query each.
	model := chattest.New(
		chattest.Calls(chattest.Call(toolsearch.SearchToolName, `{"queries":["weather forecast city","send email"]}`)),
		chattest.Calls(chattest.Call("getWeatherForecast", `{"city":"Oslo"}`)),
		chattest.Text("Sent: sunny in Oslo."),
	)
	c, err := client.New(model, client.WithAdvisors(toolsearch.New(toolsearch.Config{Catalog: catalog})))
	if err != nil {
		panic(err)
	}
	answer, err := c.Prompt("Email me tomorrow's forecast for Oslo.").
		Param(client.ParamConversationID, "user-42").Call(context.Background()).Content()
	if err != nil {
		panic(err)
	}
	search := model.Prompt(1).Messages[len(model.Prompt(1).Messages)-1].ToolResults[0].Content
	fmt.Println(search)
	fmt.Println(answer)
	// Output:
	// Found 2 tools, callable from your next step:
	// "weather forecast city": getWeatherForecast
	// "send email": sendEmail
	// Sent: sunny in Oslo.
}

func ExampleMerge() {
	// Two searches, one per capability: the weather query's scores are much higher.
	weather := []toolsearch.Hit{{Name: "getWeatherForecast", Score: 9.1}, {Name: "getWeatherAlerts", Score: 8.7}, {Name: "getAirQuality", Score: 8.2}}
	mail := []toolsearch.Hit{{Name: "sendEmail", Score: 3.2}, {Name: "readInbox", Score: 2.9}}
	for _, h := range toolsearch.Merge(3, weather, mail) {
		fmt.Println(h.Name)
	}
	// Output:
	// getWeatherForecast
	// sendEmail
	// getWeatherAlerts
}

// With Native, the provider searches: every tool goes deferred on every request, the pinned
// ones loaded, and what the provider's search did stays in the conversation.
func ExampleConfig_native() {
	weather := tool.Must(tool.Func("getWeatherForecast", "Returns the weather forecast for a city.",
		func(_ context.Context, in cityIn) (string, error) { return "sunny in " + in.City, nil }))
	stocks := tool.Must(tool.Func("get_stock_price", "Current price of a stock.",
		func(context.Context, struct{}) (string, error) { return "42", nil }))
	clock := tool.Must(tool.Func("now", "The current time.",
		func(context.Context, struct{}) (string, error) { return "12:00", nil }))

	// A scripted model standing in for Anthropic's: it searched on its side and calls what it
	// found, then answers.
	model := chattest.New(
		chattest.Calls(chattest.Call("getWeatherForecast", `{"city":"Oslo"}`)),
		chattest.Text("It will be sunny in Oslo."),
	)
	adv := toolsearch.New(toolsearch.Config{Native: chat.ToolSearchRegex, Pinned: []string{"now"}})
	c, err := client.New(model, client.WithAdvisors(adv))
	if err != nil {
		panic(err)
	}
	answer, err := c.Prompt("Will it rain in Oslo tomorrow?").Tools(weather, stocks, clock).
		Call(context.Background()).Content()
	if err != nil {
		panic(err)
	}
	for i, p := range model.Prompts() {
		var deferred []string
		for _, t := range p.Options.Tools {
			if name := t.Definition().Name; p.Options.ToolSearch.Deferred(name, "") {
				deferred = append(deferred, name)
			}
		}
		fmt.Println("request", i+1, p.Options.ToolSearch.Kind, "search, loaded:", p.Options.ToolSearch.Loaded, "deferred:", deferred)
	}
	fmt.Println(answer)
	// Output:
	// request 1 regex search, loaded: [now] deferred: [getWeatherForecast get_stock_price]
	// request 2 regex search, loaded: [now] deferred: [getWeatherForecast get_stock_price]
	// It will be sunny in Oslo.
}
