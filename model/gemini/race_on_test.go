//go:build race

package gemini

// raceDetector is true when the tests run with -race, under which
// sync.Pool drops a share of what is put back, so encoding/json's
// buffers are allocated again more often.
const raceDetector = true
