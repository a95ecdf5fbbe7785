package tool

import (
	"fmt"
	"strings"

	"google.golang.org/genai"
)

// ErrorType is the typed kind of a tool failure, as Gemini CLI names it.
type ErrorType string

// Error types (Gemini CLI's ToolErrorType values).
const (
	ErrPolicyViolation                ErrorType = "policy_violation"
	ErrInvalidParams                  ErrorType = "invalid_tool_params"
	ErrUnknown                        ErrorType = "unknown"
	ErrUnhandledException             ErrorType = "unhandled_exception"
	ErrToolNotRegistered              ErrorType = "tool_not_registered"
	ErrExecutionFailed                ErrorType = "execution_failed"
	ErrFileNotFound                   ErrorType = "file_not_found"
	ErrFileWriteFailure               ErrorType = "file_write_failure"
	ErrReadContentFailure             ErrorType = "read_content_failure"
	ErrAttemptToCreateExistingFile    ErrorType = "attempt_to_create_existing_file"
	ErrFileTooLarge                   ErrorType = "file_too_large"
	ErrPermissionDenied               ErrorType = "permission_denied"
	ErrNoSpaceLeft                    ErrorType = "no_space_left"
	ErrTargetIsDirectory              ErrorType = "target_is_directory"
	ErrPathNotInWorkspace             ErrorType = "path_not_in_workspace"
	ErrSearchPathNotFound             ErrorType = "search_path_not_found"
	ErrSearchPathNotADirectory        ErrorType = "search_path_not_a_directory"
	ErrEditPreparationFailure         ErrorType = "edit_preparation_failure"
	ErrEditNoOccurrenceFound          ErrorType = "edit_no_occurrence_found"
	ErrEditExpectedOccurrenceMismatch ErrorType = "edit_expected_occurrence_mismatch"
	ErrEditNoChange                   ErrorType = "edit_no_change"
	ErrEditNoChangeLLMJudgement       ErrorType = "edit_no_change_llm_judgement"
	ErrGlobExecutionError             ErrorType = "glob_execution_error"
	ErrGrepExecutionError             ErrorType = "grep_execution_error"
	ErrLsExecutionError               ErrorType = "ls_execution_error"
	ErrPathIsNotADirectory            ErrorType = "path_is_not_a_directory"
	ErrMCPToolError                   ErrorType = "mcp_tool_error"
	ErrMCPResourceNotFound            ErrorType = "mcp_resource_not_found"
	ErrMemoryToolExecutionError       ErrorType = "memory_tool_execution_error"
	ErrReadManyFilesSearchError       ErrorType = "read_many_files_search_error"
	ErrShellExecuteError              ErrorType = "shell_execute_error"
	ErrDiscoveredToolExecutionError   ErrorType = "discovered_tool_execution_error"
	ErrWebFetchNoURLInPrompt          ErrorType = "web_fetch_no_url_in_prompt"
	ErrWebFetchFallbackFailed         ErrorType = "web_fetch_fallback_failed"
	ErrWebFetchProcessingError        ErrorType = "web_fetch_processing_error"
	ErrWebSearchFailed                ErrorType = "web_search_failed"
	ErrStopExecution                  ErrorType = "stop_execution"
	ErrCancelled                      ErrorType = "cancelled"
)

// Fatal reports whether an error of this type must stop a headless run
// (Gemini CLI exits 54 on these).
func (t ErrorType) Fatal() bool { return t == ErrNoSpaceLeft }

// Error is a typed tool failure. Message is what the model sees.
type Error struct {
	Type    ErrorType
	Message string
}

func (e *Error) Error() string { return e.Message }

// Errorf builds an *Error.
func Errorf(t ErrorType, format string, args ...any) *Error {
	return &Error{Type: t, Message: fmt.Sprintf(format, args...)}
}

// Result is what a call returns.
//
// Exactly one of LLMText, LLMParts and LLMPart carries the content for the
// model (Gemini CLI's PartListUnion: a string, a Part list, or one Part).
type Result struct {
	LLMText  string
	LLMParts []*genai.Part
	LLMPart  *genai.Part
	// Display is the short text for UIs; Diff replaces it for edits.
	Display string
	Diff    *FileDiff
	// Notes is what a face shows under the display or diff besides it:
	// the language servers' new problems after an edit. The model gets
	// them in its content already.
	Notes string
	// Error, when set, makes the call fail; its message reaches the model
	// as {"error": message}.
	Error *Error
}

// Text returns a successful result whose content and display are s.
func Text(s string) *Result { return &Result{LLMText: s, Display: s} }

// Fail returns a failed result.
func Fail(t ErrorType, msg string) *Result {
	return &Result{LLMText: msg, Display: msg, Error: &Error{Type: t, Message: msg}}
}

// FunctionResponseParts converts a result into the parts of the user content
// answering call id/name, following the tool-calling wire spec:
//
//   - an error gives {"error": message};
//   - a string gives {"output": string};
//   - a Part list gives {"output": "Tool execution succeeded."} followed by
//     the parts as siblings;
//   - a single functionResponse part is passed through, re-keyed with id
//     and name;
//   - a single inlineData/fileData part gives {"output": "Binary content of
//     type <mime> was processed."} followed by the part;
//   - any other single part is treated as a one-element list.
func FunctionResponseParts(id, name string, r *Result) []*genai.Part {
	resp := func(key, val string) *genai.Part {
		return &genai.Part{FunctionResponse: &genai.FunctionResponse{
			ID: id, Name: name, Response: map[string]any{key: val},
		}}
	}
	switch {
	case r == nil:
		return []*genai.Part{resp("output", "")}
	case r.Error != nil:
		return []*genai.Part{resp("error", r.Error.Message)}
	case r.LLMPart != nil:
		p := r.LLMPart
		switch {
		case p.FunctionResponse != nil:
			fr := *p.FunctionResponse
			fr.ID, fr.Name = id, name
			return []*genai.Part{{FunctionResponse: &fr}}
		case p.InlineData != nil:
			return []*genai.Part{resp("output", fmt.Sprintf("Binary content of type %s was processed.", p.InlineData.MIMEType)), p}
		case p.FileData != nil:
			return []*genai.Part{resp("output", fmt.Sprintf("Binary content of type %s was processed.", p.FileData.MIMEType)), p}
		case p.Text != "" && r.LLMParts == nil:
			return []*genai.Part{resp("output", p.Text)}
		}
		return append([]*genai.Part{resp("output", "Tool execution succeeded.")}, p)
	case r.LLMParts != nil:
		return append([]*genai.Part{resp("output", "Tool execution succeeded.")}, r.LLMParts...)
	default:
		return []*genai.Part{resp("output", r.LLMText)}
	}
}

// ResponseText flattens a result's content to text, for displays and
// session records.
func (r *Result) ResponseText() string {
	if r.Error != nil {
		return r.Error.Message
	}
	if r.LLMPart != nil {
		return partText(r.LLMPart)
	}
	if r.LLMParts != nil {
		var b strings.Builder
		for i, p := range r.LLMParts {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(partText(p))
		}
		return b.String()
	}
	return r.LLMText
}

func partText(p *genai.Part) string {
	switch {
	case p.Text != "":
		return p.Text
	case p.InlineData != nil:
		return fmt.Sprintf("[%s data]", p.InlineData.MIMEType)
	case p.FileData != nil:
		return fmt.Sprintf("[%s file %s]", p.FileData.MIMEType, p.FileData.FileURI)
	}
	return ""
}
