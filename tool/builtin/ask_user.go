package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/castor-dev/castor/tool"
)

// askUserTool is ask_user (Gemini CLI's ask-user.ts): questions the
// model puts to the user, answered through the confirmation of the call
// (tool.ConfirmAskUser) by whichever face can ask.
type askUserTool struct{}

// NewAskUser returns ask_user.
func NewAskUser(*Env) tool.Tool { return askUserTool{} }

func (askUserTool) Name() string        { return "ask_user" }
func (askUserTool) DisplayName() string { return "Ask User" }
func (askUserTool) Kind() tool.Kind     { return tool.KindCommunicate }
func (askUserTool) Description() string {
	return "Ask the user one or more questions to gather preferences, clarify requirements, or make decisions."
}

func (askUserTool) Schema() map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	return map[string]any{
		"type":     "object",
		"required": []any{"questions"},
		"properties": map[string]any{
			"questions": map[string]any{
				"type":     "array",
				"minItems": 1,
				"maxItems": 4,
				"items": map[string]any{
					"type":     "object",
					"required": []any{"question", "header", "type"},
					"properties": map[string]any{
						"question": str("The complete question to ask the user. Should be clear, specific, and end with a question mark."),
						"header":   str(`Very short label displayed as a chip/tag. Use abbreviations: "Auth" not "Authentication", "Config" not "Configuration". Examples: "Auth method", "Library", "Approach", "Database".`),
						"type": map[string]any{
							"type":        "string",
							"enum":        []any{"choice", "text", "yesno"},
							"default":     "choice",
							"description": "Question type: 'choice' (default) for multiple-choice with options, 'text' for free-form input, 'yesno' for Yes/No confirmation with optional 'Other' feedback.",
						},
						"options": map[string]any{
							"type":        "array",
							"description": "The selectable choices for 'choice' type questions. Provide 2-4 options. An 'Other' option is automatically added for 'choice' and 'yesno' types. Not needed for 'text' or 'yesno'.",
							"items": map[string]any{
								"type":     "object",
								"required": []any{"label", "description"},
								"properties": map[string]any{
									"label":       str(`The display text for this option (1-5 words). Example: "OAuth 2.0"`),
									"description": str(`Brief explanation of this option. Example: "Industry standard, supports SSO"`),
								},
							},
						},
						"multiSelect": map[string]any{
							"type":        "boolean",
							"description": "Only applies when type='choice'. Set to true to allow selecting multiple options.",
						},
						"placeholder": str("Hint text shown in the input field. For type='text', shown in the main input. For type='choice' and 'yesno', shown in the 'Other' custom input."),
					},
				},
			},
		},
	}
}

// Build checks the questions as Gemini CLI's validateToolParamValues does
// and unescapes the \n the model sometimes sends literally.
func (askUserTool) Build(args map[string]any) (tool.Call, error) {
	var p struct {
		Questions []tool.Question `json:"questions"`
	}
	if err := argsDecode(args, &p); err != nil {
		return nil, tool.Errorf(tool.ErrInvalidParams, "%s", err.Error())
	}
	if len(p.Questions) == 0 {
		return nil, tool.Errorf(tool.ErrInvalidParams, "At least one question is required.")
	}
	unescape := strings.NewReplacer(`\r\n`, "\n", `\n`, "\n").Replace
	for i := range p.Questions {
		q := &p.Questions[i]
		if q.Type == tool.QuestionChoice {
			if len(q.Options) < 2 {
				return nil, tool.Errorf(tool.ErrInvalidParams, "Question %d: type='choice' requires 'options' array with 2-4 items.", i+1)
			}
			if len(q.Options) > 4 {
				return nil, tool.Errorf(tool.ErrInvalidParams, "Question %d: 'options' array must have at most 4 items.", i+1)
			}
		}
		for j, o := range q.Options {
			if strings.TrimSpace(o.Label) == "" {
				return nil, tool.Errorf(tool.ErrInvalidParams, "Question %d, option %d: 'label' is required and must be a non-empty string.", i+1, j+1)
			}
			q.Options[j].Label = unescape(o.Label)
			q.Options[j].Description = unescape(strings.TrimSpace(o.Description))
		}
		q.Question, q.Header, q.Placeholder = unescape(q.Question), unescape(q.Header), unescape(q.Placeholder)
	}
	return &askUserCall{questions: p.Questions}, nil
}

type askUserCall struct {
	questions []tool.Question
	answers   map[string]string
}

func (c *askUserCall) Describe() string {
	qs := make([]string, len(c.questions))
	for i, q := range c.questions {
		qs[i] = q.Question
	}
	return "Asking user: " + strings.Join(qs, ", ")
}

func (c *askUserCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return &tool.ConfirmationDetails{Type: tool.ConfirmAskUser, Title: "Ask User", Questions: c.questions}, nil
}

// ApplyDecision implements tool.Answerable.
func (c *askUserCall) ApplyDecision(d tool.Decision) { c.answers = d.Answers }

// Execute gives the model the answers as Gemini CLI does: a JSON object
// {"answers": {"0": …}}.
func (c *askUserCall) Execute(context.Context, func(string)) *tool.Result {
	answers := c.answers
	if answers == nil {
		answers = map[string]string{}
	}
	b, _ := json.Marshal(map[string]any{"answers": answers})
	if len(answers) == 0 {
		return &tool.Result{LLMText: string(b), Display: "User submitted without answering questions."}
	}
	keys := make([]string, 0, len(answers))
	for k := range answers {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, _ := strconv.Atoi(keys[i])
		b, _ := strconv.Atoi(keys[j])
		return a < b
	})
	var sb strings.Builder
	sb.WriteString("**User answered:**")
	for _, k := range keys {
		category := "Q" + k
		if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < len(c.questions) && c.questions[i].Header != "" {
			category = c.questions[i].Header
		}
		prefix := fmt.Sprintf("  %s → ", category)
		indent := strings.Repeat(" ", len([]rune(prefix)))
		sb.WriteString("\n" + prefix + strings.ReplaceAll(answers[k], "\n", "\n"+indent))
	}
	return &tool.Result{LLMText: string(b), Display: sb.String()}
}
