package setup

import (
	"context"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/policy"
)

// TaskSpec is what a face that keeps its own record of conversations (an
// A2A task store) asks for one of them.
type TaskSpec struct {
	// WorkDir is the task's workspace.
	WorkDir string
	// SessionID is the task's id.
	SessionID string
	// History is the stored conversation the session continues.
	History []*genai.Content
	// ApprovalMode is the task's approval mode; "" means the settings'.
	ApprovalMode policy.Mode
	// MaxApprovalMode bounds the session's mode, the settings' included
	// ("" is default): a workspace cannot raise it past the server's.
	MaxApprovalMode policy.Mode
	// CannotConfirm is set when nobody can answer a confirmation: a call
	// that needs one is refused by the policy at once, as in a headless
	// run, instead of pausing the turn.
	CannotConfirm bool
}

// NewTask assembles a task's session from base: in the task's workspace,
// continuing its conversation, pausing turns for confirmations (the
// client answers them later) and not recorded (the face's store is the
// record).
func NewTask(ctx context.Context, base Options, spec TaskSpec) (*Agent, error) {
	o := base
	o.WorkDir = spec.WorkDir
	o.SessionID = spec.SessionID
	o.History = spec.History
	o.Interactive = !spec.CannotConfirm
	o.Confirm = nil
	o.Resume = ""
	o.DisableRecording = true
	if spec.ApprovalMode != "" {
		o.ApprovalMode = spec.ApprovalMode
	}
	o.MaxApprovalMode = &spec.MaxApprovalMode
	return New(ctx, o)
}
