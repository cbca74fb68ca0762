// Command toolserver is the remote agent of the mcpdelegation example: a separate process that
// owns the tools and runs every call the model asks for, served over MCP on stdio (or streamable
// HTTP with -http ADDR). It logs each call it runs to stderr, with its process id, so the
// delegating side can see where the work happened.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"strings"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/tool"
)

// CityRequest names a city.
type CityRequest struct {
	City string `json:"city" jsonschema:"The city name, such as Paris"`
}

// Weather is the current weather in a city.
type Weather struct {
	City        string  `json:"city"`
	Temperature float64 `json:"temperature" jsonschema:"degrees Fahrenheit"`
	Conditions  string  `json:"conditions"`
}

// CityInfo describes a city.
type CityInfo struct {
	City       string `json:"city"`
	Country    string `json:"country"`
	Population int    `json:"population"`
}

var (
	weather = map[string]Weather{
		"paris":  {City: "Paris", Temperature: 72, Conditions: "sunny"},
		"london": {City: "London", Temperature: 59, Conditions: "light rain"},
	}
	cities = map[string]CityInfo{
		"paris":  {City: "Paris", Country: "France", Population: 2102650},
		"london": {City: "London", Country: "United Kingdom", Population: 8866180},
	}
)

func getWeather(_ context.Context, in CityRequest) (Weather, error) {
	logCall("getWeather", in.City)
	w, ok := weather[strings.ToLower(in.City)]
	if !ok {
		return Weather{}, fmt.Errorf("no weather data for %q; try Paris or London", in.City)
	}
	return w, nil
}

func getCityInfo(_ context.Context, in CityRequest) (CityInfo, error) {
	logCall("getCityInfo", in.City)
	c, ok := cities[strings.ToLower(in.City)]
	if !ok {
		return CityInfo{}, fmt.Errorf("no information about %q; try Paris or London", in.City)
	}
	return c, nil
}

func logCall(name, city string) {
	log.Printf("toolserver pid %d: %s(%q)", os.Getpid(), name, city)
}

// Tools are the tools this agent offers.
func Tools() []tool.Tool {
	return []tool.Tool{
		tool.Must(tool.Func("getWeather", "Get the current weather for a city", getWeather)),
		tool.Must(tool.Func("getCityInfo", "Get the country and population of a city", getCityInfo)),
	}
}

func main() {
	addr := flag.String("http", "", "serve streamable HTTP at this address instead of stdio")
	flag.Parse()
	log.SetFlags(0)

	server, err := mcp.NewServer(&sdkmcp.Implementation{Name: "toolserver", Version: "v1.0.0"}, nil, Tools()...)
	if err != nil {
		log.Fatal(err)
	}
	if *addr == "" {
		if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("toolserver listening on http://%s/mcp", ln.Addr())
	log.Fatal(server.Serve(context.Background(), ln, nil))
}
