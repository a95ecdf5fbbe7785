//go:build race

package mcp

// raceDetector is true when the tests run with -race, which makes memory
// and time per byte several times larger.
const raceDetector = true
