package tui

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/agent"
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
