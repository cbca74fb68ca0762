package toolsearch

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

func TestTextAnalyzer(t *testing.T) {
	plain := &TextAnalyzer{}
	split := &TextAnalyzer{SplitIdentifiers: true}
	joined := &TextAnalyzer{SplitIdentifiers: true, KeepJoined: true}
	english := English()
	tests := []struct {
		name string
		a    *TextAnalyzer
		text string
		want []string
	}{
		{"plain keeps snake_case whole", plain, "get_weather now", []string{"get_weather", "now"}},
		{"plain splits dots and hyphens", plain, "math.sqrt real-time", []string{"math", "sqrt", "real", "time"}},
		{"plain lower-cases camelCase whole", plain, "getWeather", []string{"getweather"}},
		{"camelCase", split, "getWeatherForecast", []string{"get", "weather", "forecast"}},
		{"PascalCase", split, "GetWeather", []string{"get", "weather"}},
		{"acronym then word", split, "parseHTTPResponse", []string{"parse", "http", "response"}},
		{"acronym at end", split, "getURL", []string{"get", "url"}},
		{"snake_case", split, "get_current_weather", []string{"get", "current", "weather"}},
		{"kebab-case", split, "list-open-issues", []string{"list", "open", "issues"}},
		{"dotted", split, "triangle_properties.get", []string{"triangle", "properties", "get"}},
		{"digits stay", split, "mp3ToBase64 s3Bucket", []string{"mp3", "to", "base64", "s3", "bucket"}},
		{"mixed connectors", split, "ChaDri.change_drink", []string{"cha", "dri", "change", "drink"}},
		{"sentence punctuation", split, "Get the weather. Then, stop!", []string{"get", "the", "weather", "then", "stop"}},
		{"doubled connectors", split, "a__b--c", []string{"a", "b", "c"}},
		{"trailing connector", split, "weather_", []string{"weather"}},
		{"unicode letters", split, "größeBerechnen café", []string{"größe", "berechnen", "café"}},
		{"joined form", joined, "getWeather simple", []string{"get", "weather", "getweather", "simple"}},
		{"joined snake", joined, "get_user_id", []string{"get", "user", "id", "getuserid"}},
		{"english stems and drops stop words", english, "Gets the current weather forecasts for cities",
			[]string{"get", "current", "weather", "forecast", "citi"}},
		{"english on identifiers", english, "searchMoviesByTitle", []string{"search", "movi", "titl"}},
		{"english expands abbreviations", english, "getCompanyInfo repo_stats DB", []string{"get", "compani", "inform", "repositori", "statist", "databas"}},
		{"english expands prose too", english, "company information", []string{"compani", "inform"}},
		{"english leaves ambiguous abbreviations", english, "temp min", []string{"temp", "min"}},
		{"empty", english, "", nil},
		{"only stop words", english, "the of and", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.a.Terms(nil, tt.text)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Terms(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestExpandAbbreviation(t *testing.T) {
	for abbr, full := range abbreviations {
		if abbr == full || abbr != strings.ToLower(abbr) || full != strings.ToLower(full) {
			t.Errorf("%q → %q: want a lower-case abbreviation of another word", abbr, full)
		}
		if _, again := abbreviations[full]; again {
			t.Errorf("%q → %q expands again", abbr, full)
		}
		if english.IsStopWord(full) {
			t.Errorf("%q → %q, a stop word", abbr, full)
		}
	}
	if got := ExpandAbbreviation("weather"); got != "weather" {
		t.Errorf("ExpandAbbreviation(weather) = %q", got)
	}
	// Only lower-case words are expanded: the analyzer lower-cases first.
	if got := ExpandAbbreviation("Info"); got != "Info" {
		t.Errorf("ExpandAbbreviation(Info) = %q", got)
	}
}

func TestTextAnalyzerAppends(t *testing.T) {
	got := English().Terms([]string{"keep"}, "weather")
	if !slices.Equal(got, []string{"keep", "weather"}) {
		t.Errorf("Terms appended %q", got)
	}
}

func FuzzTextAnalyzer(f *testing.F) {
	for _, s := range []string{"getWeather", "a_b-c.d", "HTTPServer", "é\xffx", "ĲsselMeer", "A.B_C"} {
		f.Add(s)
	}
	joined := &TextAnalyzer{SplitIdentifiers: true, KeepJoined: true}
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range joined.Terms(nil, s) {
			if term == "" {
				t.Fatalf("empty term from %q", s)
			}
		}
		English().Terms(nil, s)
	})
}

// referenceTerms is the rune-by-rune definition of TextAnalyzer.Terms, which the ASCII fast path
// of nextWord must match.
func referenceTerms(a *TextAnalyzer, text string) []string {
	var dst, parts []string
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r, !a.SplitIdentifiers) {
			i += size
			continue
		}
		start, end := i, i
		for i < len(text) {
			r, size = utf8.DecodeRuneInString(text[i:])
			if isWordRune(r, !a.SplitIdentifiers) {
				i += size
				end = i
				continue
			}
			if a.SplitIdentifiers && isConnector(r) {
				i += size
				continue
			}
			break
		}
		dst, parts = a.wordTerms(dst, parts, text[start:end])
	}
	return dst
}

func FuzzTermsMatchesReference(f *testing.F) {
	for _, s := range []string{"getWeather_forecast-v2.api", "__x__", "é_ü-ß.ñ", "a..b__c--d", "HTTPServer 42 km/h", "\xff\xfeab_c", "日本語_テキスト"} {
		f.Add(s)
	}
	analyzers := []*TextAnalyzer{English(), {}, {SplitIdentifiers: true, KeepJoined: true}}
	f.Fuzz(func(t *testing.T, text string) {
		for _, a := range analyzers {
			got, want := a.Terms(nil, text), referenceTerms(a, text)
			if !slices.Equal(got, want) {
				t.Fatalf("%+v: Terms(%q) = %q, reference %q", *a, text, got, want)
			}
		}
	})
}

// The fast path of splitIdentifier for plain words agrees with the rune-by-rune split, on any
// word (empty, connectors only, non-ASCII, invalid UTF-8).
func FuzzSplitIdentifier(f *testing.F) {
	for _, s := range []string{"", "weather", "The", "getWeather", "mp3", "_", "a_b", "HTTPServer", "é", "x\xff", "ABC", "v2Api"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, word string) {
		got, want := splitIdentifier(nil, word), splitIdentifierRunes(nil, word)
		if !slices.Equal(got, want) {
			t.Fatalf("splitIdentifier(%q) = %q, rune by rune %q", word, got, want)
		}
	})
}

// BenchmarkSplitIdentifier splits the words of a synthetic catalog's names, descriptions and
// schemas, as an index build does; the baseline is the rune-by-rune split alone.
func BenchmarkSplitIdentifier(b *testing.B) {
	s := newSynthetic(2000, 1, 8)
	a := English()
	var words []string
	for _, d := range s.tools {
		for _, text := range []string{d.Name, d.Description, string(d.InputSchema)} {
			for i := 0; ; {
				var w string
				if w, i = a.nextWord(text, i); w == "" {
					break
				}
				words = append(words, w)
			}
		}
	}
	for _, bc := range []struct {
		name  string
		split func([]string, string) []string
	}{{"baseline-runes", splitIdentifierRunes}, {"split", splitIdentifier}} {
		b.Run(bc.name, func(b *testing.B) {
			var parts []string
			for b.Loop() {
				for _, w := range words {
					parts = bc.split(parts[:0], w)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(words)), "ns/word")
		})
	}
}
