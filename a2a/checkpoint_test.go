package a2a_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/npmtest"
)

// TestCheckpointReported: with general.checkpointing on, an edit's tool
// call carries the checkpoint the engine took before the write in
// request.checkpoint, as Gemini CLI's server reports it, naming a file
// /restore can use; without checkpointing it carries none.
func TestCheckpointReported(t *testing.T) {
	npmtest.LookPath(t, "git") // checkpoints are commits in a shadow repository
	for _, tt := range []struct {
		name string
		on   bool
	}{{"on", true}, {"off", false}} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withYOLO())
			if tt.on {
				if err := os.MkdirAll(filepath.Join(h.home, ".gemini"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(h.home, ".gemini", "settings.json"), []byte(`{"general":{"checkpointing":{"enabled":true}}}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			target := filepath.Join(h.ws, "hello.txt")
			h.fake.Enqueue(writeCall(target, "hi\n"), fakegemini.Text("done"))
			evs := h.stream(userMessage("write", geminiSettings(h.ws), ""))
			var checkpoint string
			for _, ev := range evs {
				for _, p := range asSlice(dig(ev, "status", "message", "parts")) {
					if dig(p, "data", "status") != "success" {
						continue
					}
					checkpoint, _ = dig(p, "data", "request", "checkpoint").(string)
				}
			}
			if !tt.on {
				if checkpoint != "" {
					t.Errorf("checkpointing off, yet request.checkpoint = %q", checkpoint)
				}
				return
			}
			if checkpoint == "" {
				t.Fatalf("no request.checkpoint on the call's success:\n%s", summary(evs))
			}
			found, _ := filepath.Glob(filepath.Join(h.home, ".gemini", "tmp", "*", "checkpoints", checkpoint+".json"))
			if len(found) != 1 {
				t.Errorf("request.checkpoint %q names no checkpoint file", checkpoint)
			}
		})
	}
}
