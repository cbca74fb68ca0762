package main

import (
	"regexp"
	"strings"
)

// reAnalyzer tokenizes like the usual Python baselines: lower-case, then every match of a
// regular expression is a term. It stands for "plain" tokenization in the ablation.
type reAnalyzer struct {
	re   *regexp.Regexp
	stop func(string) bool
	stem func(string) string
}

func (a reAnalyzer) Terms(dst []string, text string) []string {
	for _, w := range a.re.FindAllString(strings.ToLower(text), -1) {
		if a.stop != nil && a.stop(w) {
			continue
		}
		if a.stem != nil {
			w = a.stem(w)
		}
		dst = append(dst, w)
	}
	return dst
}
