package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// TestAnswerAll: several answers in one message, for a session paused on
// the edits e1 and e2.
func TestAnswerAll(t *testing.T) {
	content := "edited"
	tests := []struct {
		name    string
		answers []Answer
		// taken lists the calls sent back, as id:outcome.
		taken   string
		err     string
		decided bool
		// e1 is e1's recorded decision, "" for none.
		e1 tool.Outcome
	}{
		{"all decided", []Answer{{"e1", tool.Decision{Outcome: tool.ProceedOnce}}, {"e2", tool.Decision{Outcome: tool.Cancel}}},
			"e1:proceed_once e2:cancel", "", true, tool.ProceedOnce},
		{"one of two", []Answer{{"e1", tool.Decision{Outcome: tool.ProceedOnce}}},
			"e1:proceed_once", "", false, tool.ProceedOnce},
		{"no answers", nil, "", "", false, ""},
		{"unknown call ignored", []Answer{{"zz", tool.Decision{Outcome: tool.ProceedOnce}}, {"e1", tool.Decision{Outcome: tool.ProceedOnce}}, {"e2", tool.Decision{Outcome: tool.ProceedOnce}}},
			"e1:proceed_once e2:proceed_once", `no tool call "zz"`, true, tool.ProceedOnce},
		{"unknown outcome ignored", []Answer{{"e1", tool.Decision{Outcome: "maybe"}}, {"e2", tool.Decision{Outcome: tool.ProceedOnce}}},
			"e2:proceed_once", `unknown confirmation outcome "maybe"`, false, ""},
		{"modify_with_editor without content keeps the call waiting", []Answer{{"e1", tool.Decision{Outcome: tool.ModifyWithEditor}}, {"e2", tool.Decision{Outcome: tool.ProceedOnce}}},
			"e1:modify_with_editor e2:proceed_once", "", false, ""},
		{"modify_with_editor with content decides", []Answer{{"e1", tool.Decision{Outcome: tool.ModifyWithEditor, NewContent: &content}}, {"e2", tool.Decision{Outcome: tool.ProceedOnce}}},
			"e1:modify_with_editor e2:proceed_once", "", true, tool.ModifyWithEditor},
		{"first decision counts", []Answer{{"e1", tool.Decision{Outcome: tool.Cancel}}, {"e1", tool.Decision{Outcome: tool.ProceedOnce}}, {"e2", tool.Decision{Outcome: tool.ProceedOnce}}},
			"e1:cancel e1:proceed_once e2:proceed_once", "", true, tool.Cancel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := pausedSession(t, callID("e1", "edit", "a"), callID("e2", "edit", "b"))
			taken, err := s.AnswerAll(tt.answers)
			var got []string
			for _, c := range taken {
				got = append(got, c.ID+":"+string(c.Outcome))
			}
			if g := strings.Join(got, " "); g != tt.taken {
				t.Errorf("taken = %q, want %q", g, tt.taken)
			}
			if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("error = %v, want one saying %q", err, tt.err)
			}
			if got := s.Decided(); got != tt.decided {
				t.Errorf("Decided() = %v, want %v", got, tt.decided)
			}
			if got := pendingIDs(s); got != "e1,e2" {
				t.Errorf("pending = %q: answers must leave the calls waiting until Resume", got)
			}
			d, ok := s.Pending()[0].Confirmation.Decision()
			if ok != (tt.e1 != "") || d.Outcome != tt.e1 {
				t.Errorf("e1's decision = %v (%v), want %q", d.Outcome, ok, tt.e1)
			}
			_, err = collect(t, s.Resume(context.Background()))
			if tt.decided && err != nil {
				t.Errorf("Resume after every call was decided: %v", err)
			} else if !tt.decided && err != ErrUnanswered {
				t.Errorf("Resume before every call was decided = %v, want ErrUnanswered", err)
			}
		})
	}
}

func TestAnswerAllNotPaused(t *testing.T) {
	s := editSession(&scripted{}, nil)
	taken, err := s.AnswerAll([]Answer{{"e1", tool.Decision{Outcome: tool.ProceedOnce}}})
	if len(taken) != 0 || err == nil {
		t.Errorf("AnswerAll with nothing paused = %s, %v", mustJSON(taken), err)
	}
	if s.Decided() {
		t.Error("Decided() with nothing paused")
	}
}
