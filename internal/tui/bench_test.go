package tui

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/model/fake"
)

// BenchmarkKeystroke is keystroke-to-screen inside the program: one key
// through Update and the View that follows.
func BenchmarkKeystroke(b *testing.B) {
	m, _ := newTestModel(b)
	m.printLog = nil
	key := tea.KeyPressMsg{Code: 'a', Text: "a"}
	for b.Loop() {
		m.Update(key)
		_ = m.View()
		if m.input.Length() > 200 {
			m.input.Reset()
		}
	}
}

// benchChunk measures one streamed chunk (Update and View) after lines
// lines of the same answer were streamed: the cost must not grow with
// the answer.
func benchChunk(b *testing.B, lines int) {
	m, _ := newTestModel(b)
	m.printLog = nil
	m.theme = newTheme(true, false)
	m.applyTheme()
	m.running = true
	for i := 0; i < lines; i++ {
		m.Update(content(fmt.Sprintf("Line %d of the answer, with **bold** and `code`.\n\n", i)))
		m.out, m.printing = m.out[:0], false
	}
	chunk := content("more words ")
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		m.Update(chunk)
		_ = m.View()
		if i%20 == 19 {
			m.Update(content("\n\n"))
		}
		m.out, m.printing = m.out[:0], false
	}
}

func BenchmarkChunkAtStart(b *testing.B)        { benchChunk(b, 0) }
func BenchmarkChunkAfter2000Lines(b *testing.B) { benchChunk(b, 2000) }

// BenchmarkThousandTurns runs 1,000 scripted turns through the terminal's
// model (prompt, streamed answer, a tool call, end) and reports the heap
// in use afterwards: what the face keeps must not grow with the session
// (the engine's history is the conversation itself and is not counted).
func BenchmarkThousandTurns(b *testing.B) {
	for b.Loop() {
		m, _ := newTestModel(b)
		m.printLog = nil
		for t := 0; t < 1000; t++ {
			m.running = true
			m.Update(content("An answer with a paragraph.\n\nAnd " + strings.Repeat("words ", 50) + "\n"))
			call := &agent.ToolCall{ID: fmt.Sprint(t), Name: "read_file", Description: "a.txt", Status: agent.StatusSuccess}
			m.Update(eventMsg{ev: &agent.Event{Type: agent.EventToolCall, Call: call}})
			m.Update(turnDoneMsg{})
			_ = m.View()
			m.out, m.printing = m.out[:0], false
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
	}
}

// BenchmarkSessionThousandTurns drives 1,000 turns through the terminal's
// model and the real engine and assembly (a scripted model, a markdown
// answer each turn) and reports the process's resident memory at the end.
func BenchmarkSessionThousandTurns(b *testing.B) {
	for _, turns := range []int{100, 1000} {
		b.Run(fmt.Sprint(turns), func(b *testing.B) { benchSession(b, turns) })
	}
}

func benchSession(b *testing.B, turns int) {
	for b.Loop() {
		entries := make([]fake.Entry, turns)
		for i := range entries {
			entries[i] = fake.Text("Answer **"+fmt.Sprint(i)+"**.\n\n", "- one\n- two\n\n", "```go\nx := 1\n```\n")
		}
		home := b.TempDir()
		ws := b.TempDir()
		ctx := context.Background()
		m, _ := newTestModel(b)
		m.printLog = nil
		msgs := make(chan tea.Msg, 64)
		m.send = func(msg tea.Msg) { msgs <- msg }
		a, err := setup.New(ctx, setup.Options{WorkDir: ws, HomeDir: home, Client: fake.Script(entries...), IgnoreSettings: true, DisableRecording: true, Confirm: m.confirm})
		if err != nil {
			b.Fatal(err)
		}
		m.Update(readyMsg{agent: a})
		for t := 0; t < turns; t++ {
			m.Update(tea.KeyPressMsg{Code: 'h', Text: "h"})
			m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
			for m.running {
				m.Update(<-msgs)
				_ = m.View()
				m.out, m.printing = m.out[:0], false
			}
		}
		a.Close()
		runtime.GC()
		b.ReportMetric(rssMB(), "rss-MB")
	}
}

// rssMB reads the resident set size from /proc (0 elsewhere).
func rssMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			var kb float64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkFirstFrame is the in-process part of start-up: the model
// built, initialised and its first view drawn (no session yet; it is
// assembled in the background).
func BenchmarkFirstFrame(b *testing.B) {
	for b.Loop() {
		m := newModel(context.Background(), Config{Environ: []string{"HOME=/home/u"}})
		m.Init()
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		_ = m.View()
	}
}
