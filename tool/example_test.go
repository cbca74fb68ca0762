package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wield-ai/wield/tool"
)

type WeatherRequest struct {
	Location string `json:"location" jsonschema:"City and country, e.g. Copenhagen, Denmark"`
	Unit     string `json:"unit,omitempty" enum:"C,F" default:"C"`
}

type WeatherResponse struct {
	Temp float64 `json:"temp"`
	Unit string  `json:"unit"`
}

func getWeather(_ context.Context, req WeatherRequest) (WeatherResponse, error) {
	return WeatherResponse{Temp: 30.0, Unit: req.Unit}, nil
}

func ExampleFunc() {
	weather, err := tool.Func("currentWeather", "Get the weather in location", getWeather)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(weather.Definition().InputSchema))

	// The model's arguments are validated, completed with defaults, then passed to getWeather.
	out, err := weather.Call(context.Background(), `{"location":"Copenhagen"}`)
	fmt.Println(out, err)

	// Invalid arguments never reach the function; the error tells the model what to fix.
	_, err = weather.Call(context.Background(), `{"location":"Copenhagen","unit":"K"}`)
	fmt.Println(err)
	// Output:
	// {"type":"object","properties":{"location":{"type":"string","description":"City and country, e.g. Copenhagen, Denmark"},"unit":{"type":"string","default":"C","enum":["C","F"]}},"required":["location"],"additionalProperties":false}
	// {"temp":30,"unit":"C"} <nil>
	// invalid arguments: /unit: "K" is not one of ["C","F"]
}

// DateTimeTools are tools for the model, like Spring AI's example class.
type DateTimeTools struct {
	Now func() time.Time
}

// AlarmRequest is the input of SetAlarm.
type AlarmRequest struct {
	Time time.Time `json:"time" jsonschema:"Time in ISO-8601 format"`
}

// GetCurrentDateTime gets the current date and time.
func (d DateTimeTools) GetCurrentDateTime() string {
	return d.Now().Format(time.RFC3339)
}

// SetAlarm sets a user alarm for the given time.
func (d DateTimeTools) SetAlarm(ctx context.Context, req AlarmRequest) error {
	fmt.Println("alarm set for", req.Time.Format(time.Kitchen))
	return nil
}

// String is not a tool: only the methods a type registers (or Methods' caller lists) are.
func (d DateTimeTools) String() string { return "DateTimeTools" }

func init() {
	// `wield gen` writes this from //wield:tool directives and doc comments.
	tool.RegisterMethods[DateTimeTools](
		tool.MethodDoc{Method: "GetCurrentDateTime", Description: "Get the current date and time in the user's timezone"},
		tool.MethodDoc{Method: "SetAlarm", Description: "Set a user alarm for the given time"},
	)
}

func ExampleMethods() {
	clock := DateTimeTools{Now: func() time.Time { return time.Date(2025, 6, 1, 7, 0, 0, 0, time.UTC) }}
	tools, err := tool.Methods(clock)
	if err != nil {
		panic(err)
	}
	for _, t := range tools {
		def := t.Definition()
		fmt.Printf("%s: %s %s\n", def.Name, def.Description, def.InputSchema)
	}
	out, _ := tools[0].Call(context.Background(), "")
	fmt.Println(out)
	out, _ = tools[1].Call(context.Background(), `{"time":"2025-06-01T07:30:00Z"}`)
	fmt.Println(out)
	// Output:
	// getCurrentDateTime: Get the current date and time in the user's timezone {"type":"object","properties":{},"additionalProperties":false}
	// setAlarm: Set a user alarm for the given time {"type":"object","properties":{"time":{"type":"string","description":"Time in ISO-8601 format","format":"date-time"}},"required":["time"],"additionalProperties":false}
	// 2025-06-01T07:00:00Z
	// alarm set for 7:30AM
	// Done
}

func ExampleDefaultName() {
	for _, method := range []string{"GetCurrentDateTime", "URL", "HTTPServer", "ID"} {
		fmt.Println(method, "→", tool.DefaultName(method))
	}
	// Output:
	// GetCurrentDateTime → getCurrentDateTime
	// URL → url
	// HTTPServer → httpServer
	// ID → id
}

func ExampleNew() {
	lookup, err := tool.New(tool.Definition{
		Name:        "lookupOrder",
		Description: "Find an order by id",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]}`),
	}, func(_ context.Context, args map[string]any) (any, error) {
		return map[string]any{"id": args["id"], "status": "shipped"}, nil
	})
	if err != nil {
		panic(err)
	}
	out, _ := lookup.Call(context.Background(), `{"id":42}`)
	fmt.Println(out)
	_, err = lookup.Call(context.Background(), `{"id":0}`)
	fmt.Println(err)
	// Output:
	// {"id":42,"status":"shipped"}
	// invalid arguments: /id: 0 is less than the minimum 1
}

func ExampleInvoke() {
	slow, err := tool.Func("slowLookup", "Look something up, slowly",
		func(ctx context.Context, _ struct{}) (string, error) {
			select {
			case <-time.After(time.Minute):
				return "found", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}, tool.WithTimeout(20*time.Millisecond))
	if err != nil {
		panic(err)
	}
	// Invoke applies the tool's timeout and recovers its panics, whoever runs the tool.
	_, err = tool.Invoke(context.Background(), slow, `{}`)
	fmt.Println(err, errors.Is(err, tool.ErrTimeout))

	boom := tool.Must(tool.Func("boom", "Fail badly", func(context.Context, struct{}) (string, error) {
		panic("out of cheese")
	}))
	_, err = tool.Invoke(context.Background(), boom, `{}`)
	var pe *tool.PanicError
	fmt.Println(err, errors.As(err, &pe))
	// Output:
	// tool call timed out after 20ms true
	// the tool panicked: out of cheese true
}

func ExampleSchemaFor() {
	type Query struct {
		Text  string   `json:"text" jsonschema:"What to search for"`
		Limit *int     `json:"limit" jsonschema:"At most this many results"`
		Tags  []string `json:"tags,omitempty"`
	}
	s, err := tool.SchemaFor[Query]()
	if err != nil {
		panic(err)
	}
	b, _ := json.MarshalIndent(s, "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "type": "object",
	//   "properties": {
	//     "text": {
	//       "type": "string",
	//       "description": "What to search for"
	//     },
	//     "limit": {
	//       "type": "integer",
	//       "description": "At most this many results"
	//     },
	//     "tags": {
	//       "type": "array",
	//       "items": {
	//         "type": "string"
	//       }
	//     }
	//   },
	//   "required": [
	//     "text"
	//   ],
	//   "additionalProperties": false
	// }
}
