//go:build !race

package gemini

// raceDetector is true when the tests run with -race.
const raceDetector = false
