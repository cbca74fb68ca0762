package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

// pipelineCatalog is a small catalog written for this test: a few tools per domain, several of
// them near each other, so that a request naming two domains tends to find one domain only.
var pipelineCatalog = []tool.Definition{
	{Name: "getWeatherForecast", Description: "Weather forecast for a city: temperature, rain and wind by day."},
	{Name: "getWeatherAlerts", Description: "Severe weather alerts for a city or region."},
	{Name: "getAirQuality", Description: "Air quality index and pollutants of a city."},
	{Name: "getWeatherHistory", Description: "Past weather of a city: temperature and rain of a given day."},
	{Name: "sendEmail", Description: "Sends an email to a recipient with a subject and a body."},
	{Name: "readInbox", Description: "Lists the latest emails of the inbox."},
	{Name: "deleteEmail", Description: "Deletes an email by id."},
	{Name: "createEvent", Description: "Creates a calendar event with a title, a start and an end time."},
	{Name: "listEvents", Description: "Lists calendar events between two dates."},
	{Name: "cancelEvent", Description: "Cancels a calendar event and notifies the attendees."},
	{Name: "getStockPrice", Description: "Current price of a stock by ticker symbol."},
	{Name: "getStockHistory", Description: "Daily closing prices of a stock over a period."},
	{Name: "convertCurrency", Description: "Converts an amount of money from one currency to another."},
	{Name: "getExchangeRate", Description: "Exchange rate between two currencies."},
	{Name: "searchFlights", Description: "Searches flights between two airports on a date."},
	{Name: "bookFlight", Description: "Books a flight found by a search for a passenger."},
	{Name: "bookHotel", Description: "Books a hotel room in a city for a number of nights."},
	{Name: "searchHotels", Description: "Searches hotels in a city by price and rating."},
	{Name: "rentCar", Description: "Rents a car at a pick-up location for some days."},
	{Name: "translateText", Description: "Translates text into another language."},
	{Name: "detectLanguage", Description: "Detects the language a text is written in."},
	{Name: "uploadFile", Description: "Uploads a file to the shared drive."},
	{Name: "downloadFile", Description: "Downloads a file from the shared drive."},
	{Name: "compressFolder", Description: "Compresses a folder into a zip archive."},
	{Name: "calculateMortgagePayment", Description: "Monthly payment of a mortgage loan from amount, rate and years."},
	{Name: "calculateCompoundInterest", Description: "Compound interest earned on savings over years at a yearly rate."},
	{Name: "getHeadlines", Description: "Top news headlines of a country."},
	{Name: "searchNews", Description: "Searches news articles about a topic."},
	{Name: "playSong", Description: "Plays a song by title and artist."},
	{Name: "createPlaylist", Description: "Creates a music playlist from songs."},
	{Name: "getSalesForecast", Description: "Sales forecast of a product for the next months."},
	{Name: "sendSms", Description: "Sends a text message to a phone number."},
	{Name: "emailReport", Description: "Emails a weather or sales report to the team every Monday."},
	{Name: "getCityInfo", Description: "Population, country and time zone of a city."},
	{Name: "translateDocument", Description: "Translates a document file and saves the translated file."},
	{Name: "shareFile", Description: "Shares a file of the drive with a user."},
	{Name: "getCompanyProfile", Description: "Profile of a listed company: sector, employees, today's stock summary."},
	{Name: "getRestaurantMenu", Description: "Menu of a restaurant for lunch or dinner."},
	{Name: "bookTable", Description: "Books a table at a restaurant for lunch or dinner for the team."},
	{Name: "getCountryFacts", Description: "Facts about a country: capital, currency, languages."},
	{Name: "getMarineForecast", Description: "Marine weather forecast: waves, tide and wind at sea."},
	{Name: "getPollenForecast", Description: "Pollen forecast of a region."},
	{Name: "getUvIndex", Description: "UV index forecast of a city."},
	{Name: "getStockDividends", Description: "Dividends a stock paid, by ticker."},
	{Name: "getStockNews", Description: "News about a stock and its price today."},
	{Name: "calculateLoanPayment", Description: "Monthly payment of a car loan over some years."},
	{Name: "getMortgageRates", Description: "Current mortgage rates of the banks of a country."},
	// An account service: the session token the account tools require is returned by login only.
	{Name: "login", Description: "Signs in with a user name and a password.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"user":{"type":"string"},"password":{"type":"string"}},"required":["user","password"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"session_token":{"type":"string"}}}`)},
	{Name: "deleteAccount", Description: "Deletes the user's account and all its data.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"sessionToken":{"type":"string"}},"required":["sessionToken"]}`)},
	{Name: "changeAccountEmail", Description: "Changes the email address of the user's account.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"sessionToken":{"type":"string"},"email":{"type":"string"}},"required":["sessionToken","email"]}`)},
	{Name: "listOrders", Description: "Lists the orders of the user's account.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"sessionToken":{"type":"string"}},"required":["sessionToken"]}`)},
}

var pipelineRequests = []Query{
	{ID: "1", Text: "Check the weather forecast for Oslo tomorrow. Then send an email to Ana with the forecast.",
		Gold: []string{"getWeatherForecast", "sendEmail"}},
	{ID: "2", Text: "Find flights from Paris to Rome on Friday, book a hotel room near the Colosseum for two nights, and rent a car at the airport.",
		Gold: []string{"searchFlights", "bookHotel", "rentCar"}},
	{ID: "3", Text: "Translate this paragraph into German, then upload the file to the shared drive.",
		Gold: []string{"translateText", "uploadFile"}},
	{ID: "4", Text: "What is the stock price of ACME today? Also convert 500 dollars to euros.",
		Gold: []string{"getStockPrice", "convertCurrency"}},
	{ID: "5", Text: "Create a calendar event for the team lunch on Monday and play a song by Queen.",
		Gold: []string{"createEvent", "playSong"}},
	{ID: "6", Text: "Show me the top news headlines in France. After that, calculate the monthly payment of a 200000 euro mortgage over 20 years.",
		Gold: []string{"getHeadlines", "calculateMortgagePayment"}},
	{ID: "7", Text: "How is the air quality in Delhi?", Gold: []string{"getAirQuality"}},
	// The request does not mention the token deleteAccount requires.
	{ID: "8", Text: "Please delete my account.", Gold: []string{"deleteAccount", "login"}},
}

// TestPerCapabilitySearch runs the whole multi-tool path on the small catalog: queries formed
// per capability, each searched by the keyword index, merged by toolsearch.Merge, prerequisites
// brought along. Every request must have all its tools among the first two more than it needs;
// the whole request sent as one query must fail at it at least once, or the catalog tests
// nothing, and so must the search without prerequisites.
func TestPerCapabilitySearch(t *testing.T) {
	search, err := indexSystem("keyword", func() toolsearch.Index { return toolsearch.NewKeywordIndex(nil) }).Build(pipelineCatalog)
	if err != nil {
		t.Fatal(err)
	}
	pre := toolsearch.NewPrerequisites(pipelineCatalog)
	allIn := func(p Protocol, q Query) (bool, []string) {
		top, err := p.search(search, pre, q.Text, len(q.Gold)+2)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range q.Gold {
			if !slices.Contains(top, g) {
				return false, top
			}
		}
		return true, top
	}
	wholeMissed, alongMissed := 0, 0
	for _, q := range pipelineRequests {
		if ok, top := allIn(perCapability, q); !ok {
			t.Errorf("request %s: per capability (queries %q) found %v, want %v among them", q.ID, capabilityQueries(q.Text), top, q.Gold)
		}
		if ok, _ := allIn(wholeRequest, q); !ok {
			wholeMissed++
		}
		if ok, _ := allIn(withoutPrerequisites, q); !ok {
			alongMissed++
		}
	}
	if wholeMissed == 0 {
		t.Error("the whole request as one query found every needed tool: the catalog is too easy to test anything")
	}
	if alongMissed == 0 {
		t.Error("the search without prerequisites found every needed tool: the catalog tests no prerequisite")
	}
}
