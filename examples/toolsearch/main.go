// Command toolsearch shows the Tool Search Tool: a catalog of service tools is indexed, the
// model is sent only the search tool, finds the tool it needs and calls it.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

// Args is the input of every tool of the catalog.
type Args struct {
	Target string `json:"target" jsonschema:"What the operation applies to: a channel, repository, issue key or city"`
	Text   string `json:"text,omitempty" jsonschema:"Free text for the operation, such as a message body"`
}

// catalog builds the tools of a few connected services, as an agent with several MCP servers
// would have.
func catalog() ([]tool.Tool, error) {
	specs := []struct{ name, desc string }{
		{"slack_post_message", "Post a message to a Slack channel."},
		{"slack_list_channels", "List the Slack channels of the workspace."},
		{"slack_search_messages", "Search Slack messages by keyword."},
		{"github_create_issue", "Open an issue in a GitHub repository."},
		{"github_list_pull_requests", "List the open pull requests of a GitHub repository."},
		{"github_merge_pull_request", "Merge a pull request in a GitHub repository."},
		{"jira_create_ticket", "Create a Jira ticket in a project."},
		{"jira_transition_ticket", "Move a Jira ticket to another status."},
		{"calendar_create_event", "Create an event in the user's calendar."},
		{"calendar_list_events", "List the user's calendar events for a day."},
		{"weather_forecast", "Get the weather forecast for a city for the next days."},
		{"currency_convert", "Convert an amount between currencies."},
	}
	var tools []tool.Tool
	for _, s := range specs {
		name := s.name
		t, err := tool.Func(name, s.desc, func(_ context.Context, a Args) (string, error) {
			if name == "weather_forecast" {
				return "Light rain tomorrow in " + a.Target + ", 12°C.", nil
			}
			return name + " done for " + a.Target, nil
		})
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

func run(ctx context.Context, model chat.Model, out io.Writer) error {
	tools, err := catalog()
	if err != nil {
		return err
	}
	search := toolsearch.New(toolsearch.Config{MaxResults: 3})
	c, err := client.New(model, client.WithAdvisors(search))
	if err != nil {
		return err
	}

	// Every request carries the requests' tools; the advisor decides which the model sees.
	var seen [][]string
	observer := &recorder{seen: &seen}
	answer, err := c.Prompt("Will it rain in Oslo tomorrow?").Tools(toAny(tools)...).Advisors(observer).
		Param(client.ParamConversationID, "user-42").Call(ctx).Content()
	if err != nil {
		return err
	}
	for i, names := range seen {
		fmt.Fprintf(out, "request %d: %s\n", i+1, strings.Join(names, ", "))
	}
	fmt.Fprintln(out, "answer:", answer)

	all, one := 0, 0
	for _, t := range tools {
		all += size(t.Definition())
	}
	one = size(search.SearchTool())
	fmt.Fprintf(out, "definition tokens: %d for the whole catalog, %d for the search tool\n", all/4, one/4)
	return nil
}

// recorder is an advisor inside the tool loop that records the tools of each model request.
type recorder struct{ seen *[][]string }

func (r *recorder) Order() int { return client.OrderToolCalling + 100 }

func (r *recorder) Advise(ctx context.Context, req *client.Request, next client.Next) (*client.Response, error) {
	var names []string
	for _, t := range req.Prompt.Options.Tools {
		names = append(names, t.Definition().Name)
	}
	*r.seen = append(*r.seen, names)
	return next(ctx, req)
}

func size(d tool.Definition) int {
	b, _ := json.Marshal(d)
	return len(b)
}

func toAny(tools []tool.Tool) []any {
	out := make([]any, len(tools))
	for i, t := range tools {
		out[i] = t
	}
	return out
}

// scriptedModel answers the way a model using tool search does.
func scriptedModel() *chattest.Model {
	return chattest.New(
		chattest.Calls(chattest.Call(toolsearch.SearchToolName, `{"query":"weather forecast"}`)),
		chattest.Calls(chattest.Call("weather_forecast", `{"target":"Oslo"}`)),
		chattest.Text("Yes: light rain is expected in Oslo tomorrow, around 12°C."),
	)
}

func main() {
	if err := run(context.Background(), scriptedModel(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}
