package tui

import (
	"bytes"
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// probe is a program that looks for its renderer's ticker on its first
// message and quits.
type probe struct {
	p     **tea.Program
	found *bool
}

func (pr probe) Init() tea.Cmd { return func() tea.Msg { return "look" } }

func (pr probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if msg == "look" {
		*pr.found = programTicker(*pr.p) != nil
		return pr, tea.Quit
	}
	return pr, nil
}

func (pr probe) View() tea.View { return tea.NewView("probe") }

// TestPacerFindsTicker fails when a new Bubble Tea no longer keeps its
// frame ticker where the pacer looks: idle sessions would then redraw 60
// times a second again.
func TestPacerFindsTicker(t *testing.T) {
	var p *tea.Program
	found := false
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p = tea.NewProgram(probe{p: &p, found: &found}, tea.WithContext(ctx), tea.WithInput(&bytes.Buffer{}), tea.WithOutput(&bytes.Buffer{}))
	if _, err := p.Run(); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatal("the renderer's ticker was not found on *tea.Program: the pacer cannot stop idle redraws")
	}
}

// TestPacerStopsAndWakes: the ticker stops once the program has been
// quiet, and runs again on the next message.
func TestPacerStopsAndWakes(t *testing.T) {
	tk := time.NewTicker(frameEvery)
	defer tk.Stop()
	pc := &pacer{find: func() *time.Ticker { return tk }, fast: true}
	pc.wake()
	pc.quiet.Stop()
	pc.rest() // too soon: the ticker keeps running
	pc.quiet.Stop()
	if !pc.running() {
		t.Fatal("the ticker stopped right after a message")
	}
	pc.mu.Lock()
	pc.last = time.Now().Add(-quietAfter)
	pc.mu.Unlock()
	pc.rest()
	if pc.running() {
		t.Fatal("the ticker still runs after a quiet spell")
	}
	pc.wake()
	if !pc.running() {
		t.Fatal("a message did not start the ticker again")
	}
	<-tk.C
}

func (pc *pacer) running() bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.fast
}
