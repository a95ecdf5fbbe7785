package tool

// ConfirmationType says which kind of approval a call needs.
type ConfirmationType string

// Confirmation types, as Gemini CLI names them.
const (
	ConfirmEdit ConfirmationType = "edit"
	ConfirmExec ConfirmationType = "exec"
	ConfirmMCP  ConfirmationType = "mcp"
	ConfirmInfo ConfirmationType = "info"
	// ConfirmAskUser is ask_user's questions: the answer is the user's
	// replies (Decision.Answers), not a permission.
	ConfirmAskUser ConfirmationType = "ask_user"
	// ConfirmExitPlanMode is exit_plan_mode's plan approval: the plan is
	// shown (PlanPath, Plan) and the answer may carry the mode to
	// implement it in or the user's feedback (Decision.Plan).
	ConfirmExitPlanMode ConfirmationType = "exit_plan_mode"
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

	// AskUser: the model's questions.
	Questions []Question `json:"questions,omitempty"`

	// ExitPlanMode: the plan file and its text, so that a face shows
	// the plan it asks about without reading the disk itself.
	PlanPath string `json:"planPath,omitempty"`
	Plan     string `json:"plan,omitempty"`
}

// Question is one question of ask_user, with Gemini CLI's field names.
type Question struct {
	Question string `json:"question"`
	Header   string `json:"header"`
	// Type is choice (the default), text or yesno.
	Type        string           `json:"type,omitempty"`
	Options     []QuestionOption `json:"options,omitempty"`
	MultiSelect bool             `json:"multiSelect,omitempty"`
	Placeholder string           `json:"placeholder,omitempty"`
}

// Question types.
const (
	QuestionChoice = "choice"
	QuestionText   = "text"
	QuestionYesNo  = "yesno"
)

// QuestionOption is one choice of a choice question.
type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// PlanVerdict is the answer to a plan approval beyond "proceed": a
// rejection with feedback, or the approval mode to implement the plan in.
type PlanVerdict struct {
	// Approved is false for a rejection; the model is then told Feedback
	// and stays in plan mode.
	Approved bool `json:"approved"`
	// Mode is the approval mode after an approval: default or auto_edit
	// ("" is default).
	Mode string `json:"approvalMode,omitempty"`
	// Feedback is what the user wants changed.
	Feedback string `json:"feedback,omitempty"`
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
//
// Answers (ask_user: question index, "0", "1"…, to the answer) and Plan
// (exit_plan_mode) carry what a question-like confirmation was answered
// with; a call that reads them implements Answerable.
//
// GoOn, on a Cancel, tells the model the call was refused (Reason, or
// `Tool "name" was canceled by the user.`) and lets the turn go on, as
// Gemini CLI's ACP agent does, where its terminal ends the turn; the
// batch's other calls keep their own answers.
type Decision struct {
	Outcome    Outcome
	NewContent *string
	Reason     string
	Answers    map[string]string
	Plan       *PlanVerdict
	GoOn       bool
}

// Answerable is implemented by calls whose confirmation is a question
// (ask_user, exit_plan_mode): the engine gives them the accepted
// decision before they execute.
type Answerable interface {
	ApplyDecision(d Decision)
}

// Modifiable is implemented by calls whose proposal a user may change
// before accepting (edits): the call then writes newContent instead.
type Modifiable interface {
	ApplyUserContent(newContent string)
}
