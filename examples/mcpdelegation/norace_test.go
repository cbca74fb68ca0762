//go:build !race

package main

// raceEnabled reports that the tests run with the race detector.
const raceEnabled = false
