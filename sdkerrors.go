package castor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/setup"
)

// ResumeError is a session WithResume names that cannot be resumed: no
// recorded session matches it, more than one does, or its file cannot be
// read. (The castor command exits 42 for the same problems, in its own
// words.)
type ResumeError struct {
	// Session is the reference given to WithResume.
	Session string
	// Err is the cause.
	Err error
}

// Error says which WithResume reference failed, and why.
func (e *ResumeError) Error() string {
	return fmt.Sprintf("castor: WithResume(%q): %v", e.Session, e.Err)
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *ResumeError) Unwrap() error { return e.Err }

// sdkError words the assembly's errors for a Go program: the assembly
// says what the castor command's user must do (flags such as --resume and
// --list-sessions), which means nothing to a program calling New.
func sdkError(err error, o *setup.Options) error {
	var (
		re *setup.ResumeError
		ce *setup.ConfigError
		ue *setup.UntrustedError
	)
	switch {
	case errors.As(err, &re):
		return &ResumeError{Session: o.Resume, Err: resumeCause(re.Err, o)}
	case errors.As(err, &ce):
		return &ConfigError{Err: ce.Err}
	case errors.As(err, &ue):
		return &UntrustedError{Err: ue.Err}
	}
	return sandboxError(err) // sandbox.go
}

// resumeCause rewords the causes of a failed resume that the chats store
// words for the command line; the original stays in the chain.
func resumeCause(err error, o *setup.Options) error {
	var invalid *chats.InvalidSessionError
	switch {
	case o.DisableRecording:
		return errors.New("WithoutRecording turns off the recordings a session is resumed from")
	case errors.As(err, &invalid) && len(invalid.Matches) > 1:
		return &rewordedError{
			msg: fmt.Sprintf("%d recorded sessions of this workspace have ids starting with %q (%s): give more of the id",
				len(invalid.Matches), invalid.Identifier, strings.Join(invalid.Matches, ", ")),
			err: err,
		}
	case errors.As(err, &invalid):
		where := ""
		if invalid.ChatsDir != "" {
			where = " (recordings are in " + invalid.ChatsDir + ")"
		}
		return &rewordedError{
			msg: fmt.Sprintf("no recorded session of this workspace matches %q%s; give an id Agent.SessionID returned, or \"latest\"", invalid.Identifier, where),
			err: err,
		}
	case errors.Is(err, chats.ErrNoSessions):
		return &rewordedError{msg: "this workspace has no recorded session", err: err}
	}
	return err
}

// rewordedError says err in other words and keeps it for errors.Is and
// errors.As.
type rewordedError struct {
	msg string
	err error
}

func (e *rewordedError) Error() string { return e.msg }
func (e *rewordedError) Unwrap() error { return e.err }

// sdkPromptError words a prompt's expansion errors for a Go program: a
// custom command's refused !{…} names WithAllowedTools, not the castor
// command's flag. The rest of the message (which command) is kept.
func sdkPromptError(err error) error {
	var refused *setup.ShellRefusedError
	if !errors.As(err, &refused) {
		return err
	}
	sdk := refused.Advice(fmt.Sprintf("castor.WithAllowedTools(%q)", "run_shell_command("+refused.Command+")"))
	return &rewordedError{msg: strings.Replace(err.Error(), refused.Error(), sdk, 1), err: err}
}
