package a2a

import (
	"cmp"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/castor-dev/castor/tool"

	"github.com/castor-dev/castor/a2a/internal/semver"
)

// ExtensionURI identifies the development-tool extension; its path embeds
// the extension's version.
const ExtensionURI = extensionURIPrefix + extensionVersion + extensionURISuffix

const (
	extensionURIPrefix = "https://github.com/google-gemini/gemini-cli/blob/main/docs/a2a/developer-profile/"
	extensionURISuffix = "/spec.md"
	// extensionVersion is the version of the extension this server
	// implements.
	extensionVersion = "v0"
	// extensionHeader is how A2A 0.3 clients activate extensions.
	extensionHeader = "X-A2A-Extensions"
)

// extensionFor reports whether uri names the development-tool extension
// and, if so, whether this server's version is compatible with it.
func extensionFor(uri string) (ours, compatible bool) {
	uri = strings.TrimSpace(uri)
	if !strings.HasPrefix(uri, extensionURIPrefix) || !strings.HasSuffix(uri, extensionURISuffix) {
		return false, false
	}
	ver := strings.TrimSuffix(strings.TrimPrefix(uri, extensionURIPrefix), extensionURISuffix)
	want, ok := semver.Parse(ver)
	return true, ok && semver.Satisfies(extensionVersion, want)
}

// activated reports whether a request activates the extension: by the
// X-A2A-Extensions (0.3) or A2A-Extensions (1.0) header, or by metadata
// keyed by a compatible extension URI. A request for an incompatible
// version activates nothing: the extensions spec forbids falling back to
// another version.
func activated(h http.Header, metadata ...map[string]any) bool {
	var uris []string
	for _, v := range append(h.Values(extensionHeader), h.Values("A2A-Extensions")...) {
		uris = append(uris, strings.Split(v, ",")...)
	}
	for _, m := range metadata {
		uris = slices.AppendSeq(uris, maps.Keys(m))
	}
	return slices.ContainsFunc(uris, func(u string) bool {
		_, compatible := extensionFor(u)
		return compatible
	})
}

// extensionValue returns the object keyed by a compatible extension URI.
func extensionValue(m map[string]any) (map[string]any, bool) {
	for k, v := range m {
		if _, ok := extensionFor(k); ok {
			obj, isObj := v.(map[string]any)
			return obj, isObj
		}
	}
	return nil, false
}

// Development-tool event kinds (DevelopmentToolEvent.kind).
const (
	devToolCallUpdate = "TOOL_CALL_UPDATE"
	devTextContent    = "TEXT_CONTENT"
	devStateChange    = "STATE_CHANGE"
	devThought        = "THOUGHT"
)

// ToolCall statuses of the extension.
const (
	devPending   = "PENDING"
	devExecuting = "EXECUTING"
	devSucceeded = "SUCCEEDED"
	devFailed    = "FAILED"
	devCancelled = "CANCELLED"
)

// devToolCall is the extension's ToolCall, with proto field names. The
// extension's types are Gemini CLI's; a2a-go has none of them.
type devToolCall struct {
	ToolCallID          string                  `json:"tool_call_id"`
	Status              string                  `json:"status"`
	ToolName            string                  `json:"tool_name"`
	Description         *string                 `json:"description,omitempty"`
	InputParameters     map[string]any          `json:"input_parameters"`
	LiveContent         *string                 `json:"live_content,omitempty"`
	Output              *devToolOutput          `json:"output,omitempty"`
	Error               *devErrorDetails        `json:"error,omitempty"`
	ConfirmationRequest *devConfirmationRequest `json:"confirmation_request,omitempty"`
}

// devToolOutput is ToolOutput: exactly one of its fields is set.
type devToolOutput struct {
	Text           *string        `json:"text,omitempty"`
	Diff           *devFileDiff   `json:"diff,omitempty"`
	StructuredData map[string]any `json:"structured_data,omitempty"`
}

type devErrorDetails struct {
	Message    string `json:"message"`
	Type       string `json:"type,omitempty"`
	StatusCode *int   `json:"status_code,omitempty"`
}

type devConfirmationRequest struct {
	Options         []devConfirmationOption `json:"options"`
	ExecuteDetails  *devExecuteDetails      `json:"execute_details,omitempty"`
	FileEditDetails *devFileDiff            `json:"file_edit_details,omitempty"`
	McpDetails      *devMcpDetails          `json:"mcp_details,omitempty"`
	GenericDetails  *devGenericDetails      `json:"generic_details,omitempty"`
}

type devConfirmationOption struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type devExecuteDetails struct {
	Command          string `json:"command"`
	WorkingDirectory string `json:"working_directory,omitempty"`
}

type devFileDiff struct {
	FileName      string  `json:"file_name"`
	FilePath      string  `json:"file_path"`
	OldContent    *string `json:"old_content,omitempty"`
	NewContent    string  `json:"new_content"`
	FormattedDiff string  `json:"formatted_diff,omitempty"`
}

type devMcpDetails struct {
	ServerName string `json:"server_name"`
	ToolName   string `json:"tool_name"`
}

type devGenericDetails struct {
	Description string `json:"description"`
}

// devSlashCommand is the extension's SlashCommand.
type devSlashCommand struct {
	Name        string                    `json:"name"`
	Description string                    `json:"description"`
	Arguments   []devSlashCommandArgument `json:"arguments"`
	SubCommands []devSlashCommand         `json:"sub_commands"`
}

type devSlashCommandArgument struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	IsRequired  bool   `json:"is_required"`
}

// Command execution statuses (CommandExecutionStatus).
const (
	cmdStarted       = "STARTED"
	cmdFailedToStart = "FAILED_TO_START"
)

type executeSlashCommandRequest struct {
	CommandPath []string `json:"command_path"`
	// CommandPathCamel accepts proto3 JSON's default lowerCamelCase.
	CommandPathCamel []string `json:"commandPath"`
	Args             string   `json:"args"`
	taskRef
}

// taskRef names a task in the params of commands/get and command/execute,
// under either spelling: a Castor extension that lists or runs the
// commands of that task's session (sessioncommands.go).
type taskRef struct {
	TaskID      string `json:"task_id,omitempty"`
	TaskIDCamel string `json:"taskId,omitempty"`
}

func (r taskRef) taskID() string { return cmp.Or(r.TaskID, r.TaskIDCamel) }

type executeSlashCommandResponse struct {
	ExecutionID string `json:"execution_id"`
	Status      string `json:"status"`
	Message     string `json:"message,omitempty"`
}

// field reads a field of type T under the first of its spellings (proto
// field name or lowerCamelCase) that holds one.
func field[T any](m map[string]any, keys ...string) (T, bool) {
	for _, k := range keys {
		if v, ok := m[k].(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// str reads a string field (see field).
func str(m map[string]any, keys ...string) (string, bool) { return field[string](m, keys...) }

// confirmation is a client's answer to a pending tool call, in either
// wire format.
type confirmation struct {
	CallID     string
	Outcome    string
	NewContent *string
	// Answers and Plan answer ask_user and exit_plan_mode (questions.go).
	Answers map[string]string
	Plan    *tool.PlanVerdict
}

// parseConfirmation reads a data part as a confirmation: Gemini CLI's
// {callId, outcome, newContent} or the extension's ToolCallConfirmation
// {tool_call_id, selected_option_id, file_details: {new_content}}, bare
// or keyed by the extension URI.
func parseConfirmation(data any) (confirmation, bool) {
	m, ok := data.(map[string]any)
	if !ok {
		return confirmation{}, false
	}
	if inner, ok := extensionValue(m); ok {
		m = inner
	}
	// The extension's fields, unless a callId says it is Gemini CLI's.
	ids, outcomes, contents := []string{"tool_call_id", "toolCallId"}, []string{"selected_option_id", "selectedOptionId"}, []string{"new_content", "newContent"}
	fd, ok := field[map[string]any](m, "file_details", "fileDetails")
	if !ok {
		md, _ := field[map[string]any](m, "modified_details", "modifiedDetails")
		fd, _ = field[map[string]any](md, "file_details", "fileDetails")
	}
	if _, gemini := str(m, "callId"); gemini {
		ids, outcomes, contents, fd = []string{"callId"}, []string{"outcome"}, []string{"newContent"}, m
	}
	id, _ := str(m, ids...)
	outcome, _ := str(m, outcomes...)
	if id == "" || outcome == "" {
		return confirmation{}, false
	}
	c := confirmation{CallID: id, Outcome: outcome}
	if nc, ok := str(fd, contents...); ok {
		c.NewContent = &nc
	}
	c.Answers, c.Plan = questionAnswers(m)
	return c, true
}

// AgentSettings configure a task: Gemini CLI's metadata.coderAgent
// {kind:"agent-settings", workspacePath, autoExecute} or the extension's
// AgentSettings {workspace_path} keyed by the extension URI.
type AgentSettings struct {
	Kind          string `json:"kind"`
	WorkspacePath string `json:"workspacePath"`
	AutoExecute   bool   `json:"autoExecute,omitempty"`
	// IsTrusted is what the client claimed; it is recorded but never
	// believed (Gemini CLI's RCE fix forces it false too).
	IsTrusted bool `json:"isTrusted"`
}

// parseAgentSettings finds agent settings in message or request metadata.
func parseAgentSettings(metas ...map[string]any) (*AgentSettings, error) {
	for _, m := range metas {
		s := &AgentSettings{Kind: "agent-settings"}
		if ca, ok := m["coderAgent"].(map[string]any); ok && ca["kind"] == s.Kind {
			var ok bool
			if _, set := ca["workspacePath"]; set {
				if s.WorkspacePath, ok = ca["workspacePath"].(string); !ok {
					return nil, errInvalidParams("coderAgent.workspacePath must be a string")
				}
			}
			if _, set := ca["autoExecute"]; set {
				if s.AutoExecute, ok = ca["autoExecute"].(bool); !ok {
					return nil, errInvalidParams("coderAgent.autoExecute must be a boolean")
				}
			}
			return s, nil
		}
		if ext, ok := extensionValue(m); ok {
			var found bool
			s.WorkspacePath, found = str(ext, "workspace_path", "workspacePath")
			if _, set := ext["workspace_path"]; set && !found {
				return nil, errInvalidParams("AgentSettings.workspace_path must be a string")
			}
			s.AutoExecute, _ = field[bool](ext, "auto_execute", "autoExecute")
			return s, nil
		}
	}
	return nil, nil
}
