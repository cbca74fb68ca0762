package toolsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Analyzer turns text into the terms a [KeywordIndex] matches: tool names, descriptions and
// parameter docs when tools are indexed, the model's query when it searches. One analyzer must
// serve both sides, or terms written alike will not meet.
type Analyzer interface {
	// Terms appends the terms of text to dst and returns the extended slice.
	Terms(dst []string, text string) []string
}

// TextAnalyzer is the configurable [Analyzer]. Text is cut into words at every character that is
// neither a letter nor a digit (an underscore too, when identifiers are split), words are
// lower-cased, stop words dropped and the rest stemmed.
//
// Tool names are identifiers (getWeather, get_weather, get-weather, weather.get), while a query
// is prose ("what's the weather"); splitting identifiers and stemming is what lets the two meet.
type TextAnalyzer struct {
	// SplitIdentifiers cuts words at underscores and camelCase boundaries, so that
	// "getHTTPResponse_code" gives get, http, response, code. Without it an underscore is part of
	// a word (like the regular expression \w+). Hyphens and dots always separate words.
	SplitIdentifiers bool
	// KeepJoined also emits the parts of a split identifier joined together (getweather for
	// getWeather), for queries that name a tool the way it is written.
	KeepJoined bool
	// Expand maps a lower-case word to the word it abbreviates (info to information), or returns
	// it as it is; applied before stop words and stemming. Nil expands nothing.
	Expand func(word string) string
	// StopWords reports words to drop (after lower-casing, before stemming); nil keeps every word.
	StopWords func(word string) bool
	// Stem maps a lower-case word to its stem; nil keeps words as they are.
	Stem func(word string) string
}

// English returns the analyzer the keyword index uses by default: identifiers split, the common
// abbreviations of identifiers expanded ([ExpandAbbreviation]), English stop words dropped, words
// stemmed with the Snowball English (Porter2) stemmer.
func English() *TextAnalyzer {
	return &TextAnalyzer{
		SplitIdentifiers: true,
		Expand:           ExpandAbbreviation,
		StopWords:        english.IsStopWord,
		Stem:             stemEnglish,
	}
}

// ExpandAbbreviation returns the word a lower-case abbreviation common in tool and parameter
// names stands for (info: information, repo: repository, msg: message, db: database, ...), or
// the word itself. Names abbreviate what requests spell out: "information about the company"
// should meet getCompanyInfo by its name, not only by its description. Abbreviations of more
// than one common meaning (temp, auth, min, loc) are left alone.
func ExpandAbbreviation(word string) string {
	if full, ok := abbreviations[word]; ok {
		return full
	}
	return word
}

// abbreviations are the common abbreviations of API identifiers with one meaning.
var abbreviations = map[string]string{
	"acct": "account", "addr": "address", "admin": "administrator", "amt": "amount",
	"app": "application", "apps": "applications", "avg": "average", "calc": "calculate",
	"config": "configuration", "configs": "configurations", "db": "database", "dept": "department",
	"desc": "description", "dir": "directory", "dirs": "directories", "doc": "document",
	"docs": "documents", "env": "environment", "freq": "frequency", "img": "image", "imgs": "images",
	"info": "information", "infos": "information", "lang": "language", "max": "maximum",
	"mgmt": "management", "msg": "message", "msgs": "messages", "num": "number", "org": "organization",
	"orgs": "organizations", "param": "parameter", "params": "parameters", "perf": "performance",
	"pic": "picture", "pics": "pictures", "pref": "preference", "prefs": "preferences",
	"pwd": "password", "qty": "quantity", "repo": "repository", "repos": "repositories",
	"req": "request", "resp": "response", "spec": "specification", "specs": "specifications",
	"stat": "statistic", "stats": "statistics", "txn": "transaction", "txns": "transactions",
	"util": "utility",
}

func stemEnglish(w string) string { return english.Stem(w, true) }

// Terms implements [Analyzer].
func (a *TextAnalyzer) Terms(dst []string, text string) []string {
	var parts []string
	for i := 0; ; {
		var word string
		if word, i = a.nextWord(text, i); word == "" {
			return dst
		}
		dst, parts = a.wordTerms(dst, parts, word)
	}
}

// nextWord returns the first word of text at or after byte i, and where the search for the next
// one resumes; the word is "" when there is none. With identifiers split, a word runs on across
// connectors (get_weather is one word here, split by wordTerms) but does not end with one.
func (a *TextAnalyzer) nextWord(text string, i int) (word string, next int) {
	underscore := !a.SplitIdentifiers
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf {
			if asciiWord[c] || (underscore && c == '_') {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if isWordRune(r, underscore) {
			break
		}
		i += size
	}
	start, end := i, i
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case asciiWord[c] || (underscore && c == '_'):
				i++
				end = i
				continue
			case a.SplitIdentifiers && (c == '_' || c == '-' || c == '.'):
				i++
				continue
			}
			break
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r, underscore) {
			break
		}
		i += size
		end = i
	}
	return text[start:end], i
}

// asciiWord marks the ASCII letters and digits.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// wordTerms appends the terms of one word (from nextWord) to dst; parts is scratch space, and
// returned for reuse.
func (a *TextAnalyzer) wordTerms(dst, parts []string, word string) ([]string, []string) {
	if !a.SplitIdentifiers {
		return a.emit(dst, strings.ToLower(word)), parts
	}
	parts = splitIdentifier(parts[:0], word)
	for _, p := range parts {
		dst = a.emit(dst, strings.ToLower(p))
	}
	if a.KeepJoined && len(parts) > 1 {
		dst = a.emit(dst, strings.ToLower(strings.Join(parts, "")))
	}
	return dst, parts
}

// isWordRune reports whether r belongs to a word; underscore counts only when identifiers are
// kept whole.
func isWordRune(r rune, underscore bool) bool {
	if r == '_' {
		return underscore
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isConnector reports the characters that join the parts of an identifier: snake_case,
// kebab-case and dotted.names.
func isConnector(r rune) bool { return r == '_' || r == '-' || r == '.' }

func (a *TextAnalyzer) emit(dst []string, w string) []string {
	if a.Expand != nil {
		w = a.Expand(w)
	}
	if a.StopWords != nil && a.StopWords(w) {
		return dst
	}
	if a.Stem != nil {
		w = a.Stem(w)
	}
	if w == "" {
		return dst
	}
	return append(dst, w)
}

// splitIdentifier cuts an identifier at its connectors and at camelCase boundaries: before an upper-case
// letter that follows a lower-case letter or a digit (getWeather, v2Api), and before the last
// upper-case letter of a run followed by a lower-case one (HTTPServer → HTTP, Server). Digits
// stay with their letters (mp3, base64, s3).
func splitIdentifier(dst []string, word string) []string {
	// Most words are plain (weather, The): no connector, no capital after the first letter.
	plain := true
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c >= utf8.RuneSelf || c == '_' || c == '-' || c == '.' || (i > 0 && 'A' <= c && c <= 'Z') {
			plain = false
			break
		}
	}
	if plain {
		if word == "" {
			return dst
		}
		return append(dst, word)
	}
	return splitIdentifierRunes(dst, word)
}

// splitIdentifierRunes is splitIdentifier, rune by rune: the definition the fast path of plain
// ASCII words must agree with.
func splitIdentifierRunes(dst []string, word string) []string {
	start := 0
	var prev rune = -1
	for i, r := range word {
		if isConnector(r) {
			if i > start {
				dst = append(dst, word[start:i])
			}
			start = i + 1
			prev = r
			continue
		}
		if i > start && unicode.IsUpper(r) {
			switch {
			case unicode.IsLower(prev) || unicode.IsDigit(prev):
				dst = append(dst, word[start:i])
				start = i
			case unicode.IsUpper(prev):
				next, _ := utf8.DecodeRuneInString(word[i+utf8.RuneLen(r):])
				if unicode.IsLower(next) && i > start {
					dst = append(dst, word[start:i])
					start = i
				}
			}
		}
		prev = r
	}
	if start < len(word) {
		dst = append(dst, word[start:])
	}
	return dst
}

// memoized returns an analyzer that remembers the stems it computed, for the many repeated words
// of one indexing run; stemming dominates the cost of analysis. The result is not safe for
// concurrent use. Analyzers other than *TextAnalyzer are returned as they are.
func memoized(an Analyzer) Analyzer {
	ta, ok := an.(*TextAnalyzer)
	if !ok || ta.Stem == nil {
		return an
	}
	c := *ta
	stems := make(map[string]string)
	c.Stem = func(w string) string {
		s, ok := stems[w]
		if !ok {
			s = ta.Stem(w)
			stems[w] = s
		}
		return s
	}
	return &c
}
