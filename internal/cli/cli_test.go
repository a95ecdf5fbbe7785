package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"
)

func TestJoinOptionalValues(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"--resume", "3", "-p", "x"}, []string{"--resume=3", "-p", "x"}},
		{[]string{"-r", "latest"}, []string{"-r=latest"}},
		{[]string{"--resume", "-p", "x"}, []string{"--resume", "-p", "x"}},
		{[]string{"--resume"}, []string{"--resume"}},
		{[]string{"--", "--resume", "3"}, []string{"--", "--resume", "3"}},
	}
	for _, tt := range tests {
		if got := joinOptionalValues(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("joinOptionalValues(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// hangLimit bounds a call that must not hang; it is no speed assertion.
const hangLimit = 20 * time.Second

// readPipedWithin runs readPiped and fails the test if it hangs.
func readPipedWithin(t *testing.T, r io.Reader, wait time.Duration) (string, error) {
	t.Helper()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := readPiped(r, wait)
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		return string(res.data), res.err
	case <-time.After(hangLimit):
		t.Fatalf("readPiped still reading after %v", hangLimit)
		return "", nil
	}
}

func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// An editor's pipe that is never written nor closed gives up, with nothing.
func TestReadPipedOpenSilentPipe(t *testing.T) {
	r, _ := pipe(t)
	got, err := readPipedWithin(t, r, 50*time.Millisecond)
	if got != "" || err != nil {
		t.Errorf("got %q, %v; want nothing", got, err)
	}
}

// Once the first bytes have come, the rest is read to the end even when it
// pauses for longer than the wait.
func TestReadPipedReadsToEndAfterFirstBytes(t *testing.T) {
	r, w := pipe(t)
	wait := pipedInputWait
	if _, err := w.WriteString("first "); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(3 * wait)
		w.WriteString("second")
		w.Close()
	}()
	got, err := readPipedWithin(t, r, wait)
	if got != "first second" || err != nil {
		t.Errorf("got %q, %v", got, err)
	}
}

// A producer that starts within the wait, such as `(sleep 0.1; echo hi)`,
// is read.
func TestReadPipedSlowStart(t *testing.T) {
	r, w := io.Pipe()
	go func() {
		time.Sleep(100 * time.Millisecond)
		io.WriteString(w, "hi\n")
		w.Close()
	}()
	got, err := readPipedWithin(t, r, hangLimit/2)
	if got != "hi\n" || err != nil {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestReadPiped(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		in      io.Reader
		want    string
		wantErr error
	}{
		{"empty", strings.NewReader(""), "", nil},
		{"text", strings.NewReader("diff --git a b\n"), "diff --git a b\n", nil},
		{"data then error", io.MultiReader(strings.NewReader("x"), iotest.ErrReader(boom)), "x", boom},
		{"error first", iotest.ErrReader(boom), "", boom},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader("slow")), "slow", nil},
		{"data with EOF", iotest.DataErrReader(strings.NewReader("abc")), "abc", nil},
		{"capped one past the limit", strings.NewReader(strings.Repeat("a", maxPipedInput+10)), strings.Repeat("a", maxPipedInput+1), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readPipedWithin(t, tt.in, hangLimit/2)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil && got != tt.want {
				t.Errorf("got %d bytes %.20q, want %d bytes %.20q", len(got), got, len(tt.want), tt.want)
			}
		})
	}
}

func TestCapPiped(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     int // length kept
		warnings int
	}{
		{"short", "hello", 5, 0},
		{"at the limit", strings.Repeat("a", maxPipedInput), maxPipedInput, 0},
		{"over", strings.Repeat("a", maxPipedInput+1), maxPipedInput, 1},
		{"cut inside a character", strings.Repeat("a", maxPipedInput-1) + "é" + "z", maxPipedInput - 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			got := capPiped([]byte(tt.in), &stderr)
			if len(got) != tt.want || !utf8.Valid(got) {
				t.Errorf("kept %d bytes (valid UTF-8 %v), want %d", len(got), utf8.Valid(got), tt.want)
			}
			if n := strings.Count(stderr.String(), "Warning: stdin input truncated to 8388608 bytes."); n != tt.warnings {
				t.Errorf("stderr %q", stderr.String())
			}
		})
	}
}

// TestSubcommandWords keeps subcommandWords the names and aliases of
// subcommands: a missing one would run its command line as a prompt.
func TestSubcommandWords(t *testing.T) {
	var got []string
	for _, c := range subcommands(t.Context(), IO{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}) {
		got = append(got, c.Name())
		got = append(got, c.Aliases...)
	}
	got = append(got, "help", "completion")
	slices.Sort(got)
	want := slices.Sorted(slices.Values(subcommandWords))
	if !slices.Equal(got, want) {
		t.Errorf("subcommands and their aliases %q, subcommandWords %q", got, want)
	}
}

func TestMayNameSubcommand(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--version"}, false},
		{[]string{"-y", "-o", "json", "-p", "What does this project do?"}, false},
		{[]string{"fix", "the", "tests"}, false},
		{[]string{"mcp", "list"}, true},
		{[]string{"--debug", "extension", "list"}, true},
		{[]string{"-p", "x", "skills"}, true}, // a prompt word: built, harmlessly
		{[]string{"help"}, true},
		{[]string{"completion", "bash"}, true},
		{[]string{"__complete", ""}, true},
		{[]string{"--help"}, true},
		{[]string{"--help=true"}, true},
		{[]string{"-h"}, true},
		{[]string{"-yh"}, true},
	} {
		if got := mayNameSubcommand(tt.args); got != tt.want {
			t.Errorf("mayNameSubcommand(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
