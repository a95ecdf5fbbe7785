package tool

// ConfirmationType says which kind of approval a call needs.
type ConfirmationType string

// Confirmation types, as Gemini CLI names them.
const (
	ConfirmEdit ConfirmationType = "edit"
	ConfirmExec ConfirmationType = "exec"
	ConfirmMCP  ConfirmationType = "mcp"
	ConfirmInfo ConfirmationType = "info"
)

// ConfirmationDetails is what a user sees before approving a call.
type ConfirmationDetails struct {
	Type  ConfirmationType `json:"type"`
	Title string           `json:"title"`

	// Edit: the file and the proposed change.
	FileName        string  `json:"fileName,omitempty"`
	FilePath        string  `json:"filePath,omitempty"`
	FileDiff        string  `json:"fileDiff,omitempty"`
	OriginalContent *string `json:"originalContent,omitempty"`
	NewContent      string  `json:"newContent,omitempty"`

	// Exec: the command line and its root command(s) ("always allow"
	// remembers the root commands).
	Command      string   `json:"command,omitempty"`
	RootCommand  string   `json:"rootCommand,omitempty"`
	RootCommands []string `json:"rootCommands,omitempty"`

	// MCP: which server and tool.
	ServerName      string         `json:"serverName,omitempty"`
	ToolName        string         `json:"toolName,omitempty"`
	ToolDisplayName string         `json:"toolDisplayName,omitempty"`
	ToolArgs        map[string]any `json:"toolArgs,omitempty"`

	// Info: a prompt and the URLs it touches (web_fetch).
	Prompt string   `json:"prompt,omitempty"`
	URLs   []string `json:"urls,omitempty"`
}

// Outcome is a user's answer to a confirmation.
type Outcome string

// Outcomes, as Gemini CLI names them.
const (
	ProceedOnce         Outcome = "proceed_once"
	ProceedAlways       Outcome = "proceed_always"
	ProceedAlwaysSave   Outcome = "proceed_always_and_save"
	ProceedAlwaysServer Outcome = "proceed_always_server"
	ProceedAlwaysTool   Outcome = "proceed_always_tool"
	ModifyWithEditor    Outcome = "modify_with_editor"
	Cancel              Outcome = "cancel"
)

// Valid reports whether o is one of the known outcomes.
func (o Outcome) Valid() bool {
	switch o {
	case ProceedOnce, ProceedAlways, ProceedAlwaysSave, ProceedAlwaysServer, ProceedAlwaysTool, ModifyWithEditor, Cancel:
		return true
	}
	return false
}

// Decision is an answer to a confirmation. NewContent, when set on an edit,
// replaces the proposed file content with what the user accepted.
// Reason, on a Cancel that is not the user's refusal (the IDE showing the
// diff closed before anyone answered), is what the model is told instead
// of "User denied execution.": a sentence, ending with a full stop.
type Decision struct {
	Outcome    Outcome
	NewContent *string
	Reason     string
}

// Modifiable is implemented by calls whose proposal a user may change
// before accepting (edits): the call then writes newContent instead.
type Modifiable interface {
	ApplyUserContent(newContent string)
}
