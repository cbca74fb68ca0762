package main

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"

	"github.com/wield-ai/wield/toolsearch"
)

// maxCapabilityQueries caps the queries formed from one request, as the search tool caps the
// queries of one call.
const maxCapabilityQueries = toolsearch.MaxSearchQueries

// detailWords is the most content words a clause may have and still be taken for a detail of
// the request before it rather than a request of its own (chosen on Seal-Tools dev among 1, 2
// and 3).
const detailWords = 2

var (
	// sentenceEnd finds the ends of sentences: . ? ! ; followed by white space (so 19.4,
	// example.com and 'SELECT * FROM users' stay whole), line breaks and the numbers or bullets of
	// list items. A full stop after an abbreviation or an initial ends no sentence (abbreviation).
	sentenceEnd = regexp.MustCompile(`[.?!;]+["')\]]*\s+|\s*\n\s*(?:(?:\d+(?:\.\d+)*[.)]|[-*•])\s+)?`)
	// abbreviation matches the end of a text that closes with an abbreviation or an initial.
	abbreviation = regexp.MustCompile(`(?i)(?:^|[\s(])(?:mr|mrs|ms|dr|prof|st|jr|sr|inc|ltd|co|corp|vs|etc|no|e\.g|i\.e|approx|[a-z](?:\.[a-z])*)\.$`)
	// clauseStart finds where a new request starts inside a sentence: at the words that chain
	// requests ("then", "also", "after that", "finally", ...), at ", and", and at "and" before a
	// verb that asks for something; never at a bare "and", which mostly joins the objects of one
	// request ("the GCD of 96 and 128"). The cut is made before the verb, which stays.
	clauseStart = regexp.MustCompile(`(?i)((?:,\s*|\s+)(?:and\s+)?(?:then|also|after\s+that|afterwards|finally|lastly|additionally|moreover|besides|plus|as\s+well\s+as)\b[,:]?\s*` +
		`|,\s+and\s+)|(\s+and\s+)` + requestVerbs)
	// requestVerbs are the verbs that open a request; "and" followed by one of them (and by white
	// space, so "check-out" is no verb) starts a new request.
	requestVerbs = `(?:find|get|give|show|tell|list|search|look\s+up|fetch|retrieve|obtain|check|calculate|compute|convert|create|make|add|set|book|schedule|send|update|delete|remove|cancel|analy[sz]e|estimate|predict|generate|provide|translate|play|turn|open|buy|order|what|how|which)\s`
)

// filler is the conversational wrapping of a request that says nothing about the tool it needs;
// a model writing keywords leaves it out. Stop words are dropped by the index itself.
var filler = map[string]bool{
	"please": true, "can": true, "could": true, "would": true, "kindly": true, "help": true,
	"need": true, "want": true, "like": true, "wish": true, "hi": true, "hello": true, "hey": true,
	"thanks": true, "thank": true, "let": true, "know": true, "us": true, "im": true, "id": true,
	"ill": true, "also": true, "finally": true, "lastly": true, "then": true, "first": true,
	"next": true, "additionally": true, "moreover": true, "besides": true, "plus": true,
	"afterwards": true, "sure": true,
}

// capabilityQueries forms the queries a model following the search tool's description sends
// for a request: one per capability the request names, in the request's own words. It stands in
// for a model and reads the request text only, never the tools it needs:
//
//  1. the request is cut into sentences (sentenceEnd, abbreviation) and each sentence into
//     clauses where a new request starts (clauseStart);
//  2. each clause keeps its words but the conversational filler (please, can you, I need, ...)
//     and the words without a letter (numbers and other values: a model searches for what a tool
//     does, not for the arguments it will pass);
//  3. a clause without a content word (a word with a letter that is neither filler nor a stop
//     word) is dropped, and a clause of at most detailWords content words ("in French") is
//     joined to the clause before it, being a detail of that request rather than a request of
//     its own;
//  4. at most maxCapabilityQueries queries are kept, the clauses past the cap joined to the last;
//     a request that leaves no clause is sent whole.
func capabilityQueries(request string) []string {
	var clauses []string
	for _, s := range sentences(request) {
		clauses = append(clauses, splitClauses(s)...)
	}
	var out []string
	for _, c := range clauses {
		words, content := keywords(c)
		switch {
		case content == 0:
			continue
		case content <= detailWords && len(out) > 0:
			out[len(out)-1] += " " + words
			continue
		}
		out = append(out, words)
	}
	if len(out) > maxCapabilityQueries {
		out = append(out[:maxCapabilityQueries-1], strings.Join(out[maxCapabilityQueries-1:], " "))
	}
	if len(out) == 0 {
		return []string{strings.TrimSpace(request)}
	}
	return out
}

// sentences cuts text at the ends of its sentences.
func sentences(text string) []string {
	var out []string
	start := 0
	for _, m := range sentenceEnd.FindAllStringIndex(text, -1) {
		head := strings.TrimRightFunc(text[start:m[1]], unicode.IsSpace)
		if abbreviation.MatchString(head) {
			continue
		}
		out = append(out, text[start:m[0]])
		start = m[1]
	}
	return append(out, text[start:])
}

// splitClauses cuts a sentence where a new request starts, keeping the verb that starts it.
func splitClauses(sentence string) []string {
	var out []string
	start := 0
	for _, m := range clauseStart.FindAllStringSubmatchIndex(sentence, -1) {
		out = append(out, sentence[start:m[0]])
		start = max(m[3], m[5]) // after the connector, before the verb
	}
	return append(out, sentence[start:])
}

// keywords returns the clause without filler words and the number of its content words.
func keywords(clause string) (string, int) {
	var kept []string
	content := 0
	for _, w := range strings.Fields(clause) {
		bare := strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
		bare = strings.NewReplacer("'", "", "’", "").Replace(bare)
		if filler[bare] || strings.IndexFunc(bare, unicode.IsLetter) < 0 {
			continue
		}
		kept = append(kept, w)
		if strings.IndexFunc(bare, unicode.IsLetter) >= 0 && !english.IsStopWord(bare) {
			content++
		}
	}
	return strings.Join(kept, " "), content
}
