// Package catalogtest holds the tool catalog toolsearch's own tests and its public index kit
// (indextest) search, so both check indexes against the same tools.
package catalogtest

import (
	"encoding/json"

	"github.com/wield-ai/wield/tool"
)

// Def builds a definition whose string parameters are given as name, description pairs.
func Def(name, desc string, params ...string) tool.Definition {
	props := map[string]any{}
	for i := 0; i+1 < len(params); i += 2 {
		props[params[i]] = map[string]any{"type": "string", "description": params[i+1]}
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	return tool.Definition{Name: name, Description: desc, InputSchema: schema}
}

// Catalog is six tools named in the styles catalogs use (camelCase, snake_case, kebab-case,
// dotted), two of them about the weather.
func Catalog() []tool.Definition {
	return []tool.Definition{
		Def("getWeatherForecast", "Returns the weather forecast for a city for the next days.", "city", "Name of the city", "days", "Number of days"),
		Def("get_stock_price", "Current price of a stock on an exchange.", "ticker", "Stock ticker symbol"),
		Def("send-email", "Sends an email message to a recipient.", "to", "Recipient address", "body", "Message text"),
		Def("calendar.createEvent", "Creates an event in the user's calendar.", "title", "Event title", "start", "Start time"),
		Def("translateText", "Translates text between languages.", "text", "The text", "target", "Target language code"),
		Def("weather_history", "Historical temperatures recorded at a weather station.", "station", "Station id"),
	}
}
