package codeassist

import "google.golang.org/genai"

// GenerateContentRequest is the body of generateContent and
// streamGenerateContent: the Gemini request wrapped with the model, the
// Code Assist project and the prompt id (Gemini CLI's CAGenerateContentRequest).
type GenerateContentRequest struct {
	Model        string `json:"model"`
	Project      string `json:"project,omitempty"`
	UserPromptID string `json:"user_prompt_id"`
	// Request is the wrapped Vertex-style request.
	Request            VertexGenerateContentRequest `json:"request"`
	EnabledCreditTypes []string                     `json:"enabled_credit_types,omitempty"`
}

// VertexGenerateContentRequest is the inner request: what the Gemini REST
// API takes, plus the session id.
type VertexGenerateContentRequest struct {
	Contents          []*genai.Content        `json:"contents"`
	SystemInstruction *genai.Content          `json:"systemInstruction,omitempty"`
	CachedContent     string                  `json:"cachedContent,omitempty"`
	Tools             []*genai.Tool           `json:"tools,omitempty"`
	ToolConfig        *genai.ToolConfig       `json:"toolConfig,omitempty"`
	Labels            map[string]string       `json:"labels,omitempty"`
	SafetySettings    []*genai.SafetySetting  `json:"safetySettings,omitempty"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
	SessionID         string                  `json:"session_id,omitempty"`
}

// GenerateContentResponse is one answer of generateContent, or one SSE
// event of streamGenerateContent.
type GenerateContentResponse struct {
	Response *genai.GenerateContentResponse `json:"response,omitempty"`
	// TraceID becomes the response id.
	TraceID          string    `json:"traceId,omitempty"`
	ConsumedCredits  []Credits `json:"consumedCredits,omitempty"`
	RemainingCredits []Credits `json:"remainingCredits,omitempty"`
}

// Credits is an amount of AI credits of one type.
type Credits struct {
	CreditType string `json:"creditType"`
	// CreditAmount is an int64 in decimal, as protobuf JSON writes one.
	CreditAmount string `json:"creditAmount"`
}

// CountTokensRequest is the body of countTokens.
type CountTokensRequest struct {
	Request VertexCountTokensRequest `json:"request"`
}

// VertexCountTokensRequest is the inner request of countTokens; Model is
// "models/<id>".
type VertexCountTokensRequest struct {
	Model    string           `json:"model"`
	Contents []*genai.Content `json:"contents"`
}

// CountTokensResponse is the answer of countTokens.
type CountTokensResponse struct {
	TotalTokens int32 `json:"totalTokens"`
}

// ClientMetadata describes the client to Code Assist.
type ClientMetadata struct {
	IDEType       string `json:"ideType,omitempty"`
	IDEVersion    string `json:"ideVersion,omitempty"`
	PluginVersion string `json:"pluginVersion,omitempty"`
	Platform      string `json:"platform,omitempty"`
	UpdateChannel string `json:"updateChannel,omitempty"`
	DuetProject   string `json:"duetProject,omitempty"`
	PluginType    string `json:"pluginType,omitempty"`
	IDEName       string `json:"ideName,omitempty"`
}

// LoadCodeAssistRequest is the body of loadCodeAssist.
type LoadCodeAssistRequest struct {
	CloudAICompanionProject string          `json:"cloudaicompanionProject,omitempty"`
	Metadata                *ClientMetadata `json:"metadata"`
	Mode                    string          `json:"mode,omitempty"`
}

// LoadCodeAssistResponse says which tier the user is on (CurrentTier) or
// may onboard to (AllowedTiers), and their project.
type LoadCodeAssistResponse struct {
	CurrentTier             *UserTier        `json:"currentTier,omitempty"`
	AllowedTiers            []*UserTier      `json:"allowedTiers,omitempty"`
	IneligibleTiers         []IneligibleTier `json:"ineligibleTiers,omitempty"`
	CloudAICompanionProject string           `json:"cloudaicompanionProject,omitempty"`
	PaidTier                *UserTier        `json:"paidTier,omitempty"`
}

// Tier ids Gemini CLI handles specially.
const (
	TierFree     = "free-tier"
	TierLegacy   = "legacy-tier"
	TierStandard = "standard-tier"
)

// UserTier is a Code Assist tier.
type UserTier struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// UserDefinedCloudAICompanionProject says the tier needs the user's
	// own Google Cloud project.
	UserDefinedCloudAICompanionProject bool           `json:"userDefinedCloudaicompanionProject,omitempty"`
	IsDefault                          bool           `json:"isDefault,omitempty"`
	PrivacyNotice                      *PrivacyNotice `json:"privacyNotice,omitempty"`
	HasAcceptedTOS                     bool           `json:"hasAcceptedTos,omitempty"`
	// HasOnboardedPreviously is a pointer because Gemini CLI's default
	// when it is absent depends on the path (true for a current tier,
	// false for a fresh onboarding).
	HasOnboardedPreviously *bool     `json:"hasOnboardedPreviously,omitempty"`
	AvailableCredits       []Credits `json:"availableCredits,omitempty"`
}

// PrivacyNotice is a tier's privacy notice.
type PrivacyNotice struct {
	ShowNotice bool   `json:"showNotice,omitempty"`
	NoticeText string `json:"noticeText,omitempty"`
}

// IneligibleTier explains why the user cannot use a tier.
type IneligibleTier struct {
	ReasonCode             string `json:"reasonCode,omitempty"`
	ReasonMessage          string `json:"reasonMessage,omitempty"`
	TierID                 string `json:"tierId,omitempty"`
	TierName               string `json:"tierName,omitempty"`
	ValidationErrorMessage string `json:"validationErrorMessage,omitempty"`
	ValidationURL          string `json:"validationUrl,omitempty"`
	ValidationURLLinkText  string `json:"validationUrlLinkText,omitempty"`
}

// OnboardUserRequest is the body of onboardUser.
type OnboardUserRequest struct {
	TierID                  string          `json:"tierId,omitempty"`
	CloudAICompanionProject string          `json:"cloudaicompanionProject,omitempty"`
	Metadata                *ClientMetadata `json:"metadata,omitempty"`
}

// Operation is a long-running operation, as onboardUser returns and
// GET /v1internal/operations/... reports.
type Operation struct {
	Name     string               `json:"name,omitempty"`
	Done     bool                 `json:"done,omitempty"`
	Response *OnboardUserResponse `json:"response,omitempty"`
	// Error is set when the operation failed.
	Error *OperationError `json:"error,omitempty"`
}

// OperationError is a failed operation's google.rpc.Status.
type OperationError struct {
	Code    int    `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// OnboardUserResponse is an onboarding's result.
type OnboardUserResponse struct {
	CloudAICompanionProject *struct {
		ID   string `json:"id,omitempty"`
		Name string `json:"name,omitempty"`
	} `json:"cloudaicompanionProject,omitempty"`
}
