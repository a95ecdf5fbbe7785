package castor_test

import (
	"context"
	"testing"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/policy"
)

// TestSDKDenyRuleSeesWhatRuns: an SDK agent in yolo mode whose user has
// a policy file denying rm (and, apart, tools.exclude
// run_shell_command(rm)) refuses every way of writing rm of issue #25's
// table, telling the model why, and still runs git status: the table
// e2e/tools runs through castor -p.
func TestSDKDenyRuleSeesWhatRuns(t *testing.T) {
	for _, tt := range e2etest.RmCases(t) {
		t.Run(tt.Name, func(t *testing.T) {
			srv := fakegemini.Start(t, e2etest.RmConversation(tt.Forms)...)
			home, ws := t.TempDir(), t.TempDir()
			e2etest.WriteFiles(t, home, tt.HomeFiles)
			e2etest.RmWorkspace(t, ws)
			env := map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": srv.URL, "PATH": "/usr/local/bin:/usr/bin:/bin"}
			a, err := castor.New(context.Background(),
				castor.WithWorkDir(ws), castor.WithHomeDir(home), castor.WithoutRecording(),
				castor.WithEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }),
				castor.WithApprovalMode(policy.ModeYolo))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			res, err := a.Send(context.Background(), "clean up")
			if err != nil || res.Text != "done" {
				t.Fatalf("Send: %+v, %v", res, err)
			}
			e2etest.CheckRmConversation(t, ws, tt.Forms, srv.Requests(), tt.Refusal)
		})
	}
}
