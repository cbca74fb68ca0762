//go:build race

package mcp_test

// raceEnabled reports that the tests run with the race detector.
const raceEnabled = true
