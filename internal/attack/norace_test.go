//go:build !race

package attack

// raceEnabled reports that the tests run with the race detector.
const raceEnabled = false
