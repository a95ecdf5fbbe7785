package cli

import (
	"context"
	"errors"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/sandbox"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/model"
)

// Exit codes, as Gemini CLI uses them.
const (
	ExitOK        = 0
	ExitError     = 1
	ExitAuth      = 41
	ExitInput     = 42
	ExitSandbox   = 44
	ExitConfig    = 52
	ExitTurnLimit = 53
	ExitFatalTool = 54
	ExitUntrusted = 55
	ExitBudget    = 56 // Castor's own: a budget reached (--max-budget-usd, model.maxBudgetUsd, model.dailyBudgetUsd)
	ExitCancelled = 130
)

// inputError is a problem with what the user asked (exit 42).
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// commandBlockedError is a custom command whose shell injection the
// policy refused in a headless run: exit 1, and in JSON output the error
// object goes to stderr, as Gemini CLI 0.61 reports the shell
// processor's plain error.
type commandBlockedError struct{ msg string }

func (e *commandBlockedError) Error() string { return e.msg }

// exitCode maps an error to Gemini CLI's exit code.
func exitCode(err error) int {
	var (
		auth   *model.AuthError
		cfg    *setup.ConfigError
		in     *inputError
		resume *setup.ResumeError
		fatal  *agent.FatalToolError
		trust  *setup.UntrustedError
		usage  *usageError
		sb     *sandbox.UnavailableError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &usage):
		return ExitError // usage.go: a command line that does not parse
	case errors.As(err, &auth):
		return ExitAuth
	case errors.As(err, &in), errors.As(err, &resume):
		return ExitInput
	case errors.As(err, &trust):
		return ExitUntrusted
	case errors.As(err, &sb):
		return ExitSandbox
	case errors.As(err, &cfg):
		return ExitConfig
	case errors.Is(err, agent.ErrMaxSessionTurns):
		return ExitTurnLimit
	case errors.As(err, new(*model.BudgetError)):
		return ExitBudget
	case errors.As(err, &fatal):
		return ExitFatalTool
	case errors.Is(err, context.Canceled):
		return ExitCancelled
	}
	return ExitError
}

// errorType names the error as Gemini CLI's JSON output does (its class).
func errorType(err error) string {
	switch exitCode(err) {
	case ExitAuth:
		return "FatalAuthenticationError"
	case ExitInput:
		return "FatalInputError"
	case ExitConfig:
		return "FatalConfigError"
	case ExitTurnLimit:
		return "FatalTurnLimitedError"
	case ExitFatalTool:
		return "FatalToolExecutionError"
	case ExitCancelled:
		return "FatalCancellationError"
	case ExitUntrusted:
		return "FatalUntrustedWorkspaceError"
	case ExitSandbox:
		return "FatalSandboxError"
	case ExitBudget:
		return "FatalBudgetExceededError"
	}
	var ae *model.APIError
	if errors.As(err, &ae) {
		return "ApiError"
	}
	return "Error"
}

// cancelledMessage is what Gemini CLI says of a run ended by SIGINT or
// SIGTERM, rather than Go's "context canceled" or a transport error
// ending in it.
const cancelledMessage = "Operation cancelled."

// errorMessage is the message shown for err on stderr and in the JSON
// outputs.
func errorMessage(err error) string {
	if exitCode(err) == ExitCancelled {
		return cancelledMessage
	}
	return err.Error()
}
