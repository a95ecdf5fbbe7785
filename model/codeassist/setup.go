package codeassist

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/model"
)

// DefaultPollInterval is how often onboarding polls its operation, as in
// Gemini CLI.
const DefaultPollInterval = 5 * time.Second

// Setup calls are retried like Gemini CLI's requestPost: three more tries
// on 429, 499 and 5xx, starting 100 ms apart.
const (
	setupRetries    = 3
	setupRetryDelay = 100 * time.Millisecond
)

// CloudShellProject is the project Gemini CLI uses in Cloud Shell unless
// the user sets their own.
const CloudShellProject = "cloudshell-gca"

// clientMetadata is what Gemini CLI says about itself; Code Assist keys
// tiers and quotas on pluginType GEMINI.
func clientMetadata(project string) *ClientMetadata {
	return &ClientMetadata{
		IDEType:     "IDE_UNSPECIFIED",
		Platform:    "PLATFORM_UNSPECIFIED",
		PluginType:  "GEMINI",
		DuetProject: project,
	}
}

// ProjectFromEnv returns the Google Cloud project the user chose:
// GOOGLE_CLOUD_PROJECT, else GOOGLE_CLOUD_PROJECT_ID. In Cloud Shell
// (CLOUD_SHELL=true) Gemini CLI ignores the shell's project, which tracks
// `gcloud config`, and uses CloudShellProject.
func ProjectFromEnv(getenv func(string) string) string {
	if getenv("CLOUD_SHELL") == "true" {
		return CloudShellProject
	}
	if p := strings.TrimSpace(getenv("GOOGLE_CLOUD_PROJECT")); p != "" {
		return p
	}
	return strings.TrimSpace(getenv("GOOGLE_CLOUD_PROJECT_ID"))
}

// SetupOptions configures Setup.
type SetupOptions struct {
	// ProjectID is the user's Google Cloud project, "" for none (see
	// ProjectFromEnv).
	ProjectID string
	// PollInterval is the wait between polls of a running onboarding
	// (default DefaultPollInterval).
	PollInterval time.Duration
}

// UserData is the outcome of Setup.
type UserData struct {
	// ProjectID is the project to send with generate calls.
	ProjectID string
	// UserTier is the tier id (TierFree, TierStandard, ...), UserTierName
	// its display name.
	UserTier     string
	UserTierName string
	// PaidTier is set for paid subscriptions.
	PaidTier               *UserTier
	HasOnboardedPreviously bool
}

// ProjectIDRequiredError reports an account (typically Workspace) that
// needs its own Google Cloud project.
type ProjectIDRequiredError struct{}

// Error implements error.
func (*ProjectIDRequiredError) Error() string {
	return "This account requires setting the GOOGLE_CLOUD_PROJECT or GOOGLE_CLOUD_PROJECT_ID env var. See https://goo.gle/gemini-cli-auth-docs#workspace-gca"
}

// InvalidNumericProjectIDError reports a project number given where the
// project id belongs.
type InvalidNumericProjectIDError struct{ ProjectID string }

// Error implements error.
func (e *InvalidNumericProjectIDError) Error() string {
	return fmt.Sprintf(`Invalid Google Cloud Project ID: "%s". The GOOGLE_CLOUD_PROJECT (or GOOGLE_CLOUD_PROJECT_ID) environment variable must be set to your string-based Project ID (e.g., "my-project-123"), not your numeric Project Number. Please update your environment variables.`, e.ProjectID)
}

// IneligibleTierError reports why the account may not use Code Assist.
type IneligibleTierError struct{ Tiers []IneligibleTier }

// Error implements error.
func (e *IneligibleTierError) Error() string {
	reasons := make([]string, len(e.Tiers))
	for i, t := range e.Tiers {
		reasons[i] = t.ReasonMessage
	}
	return strings.Join(reasons, ", ")
}

// ValidationRequiredError reports an account Google wants verified in a
// browser first. Gemini CLI opens a dialog; headless Castor prints the
// link.
type ValidationRequiredError struct {
	Reason string
	URL    string
}

// Error implements error.
func (e *ValidationRequiredError) Error() string {
	return "Account validation required: " + e.Reason + ". Verify your account at " + e.URL + " and try again."
}

// CloudShellAccessError reports that the shared Cloud Shell project was
// refused.
type CloudShellAccessError struct{ Err error }

// Error implements error.
func (e *CloudShellAccessError) Error() string {
	return "Access to the default Cloud Shell Gemini project was denied.\n" +
		"Please set your own Google Cloud project by running:\n" +
		"gcloud config set project [PROJECT_ID]\n" +
		"or setting export GOOGLE_CLOUD_PROJECT=..."
}

// Unwrap returns the refused loadCodeAssist call's error.
func (e *CloudShellAccessError) Unwrap() error { return e.Err }

var numericProject = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^\d+$`) }}

// LoadCodeAssist asks for the user's tiers and project. An answer blocked
// by VPC Service Controls means a standard-tier user, as in Gemini CLI.
func (m *Model) LoadCodeAssist(ctx context.Context, req *LoadCodeAssistRequest) (*LoadCodeAssistResponse, error) {
	var res LoadCodeAssistResponse
	err := m.setupCall(ctx, "loadCodeAssist", req, &res)
	var ae *model.APIError
	switch {
	case err == nil:
		return &res, nil
	case errors.As(err, &ae) && vpcSCBlocked(ae):
		return &LoadCodeAssistResponse{CurrentTier: &UserTier{ID: TierStandard}}, nil
	case errors.As(err, &ae) && ae.StatusCode == http.StatusForbidden && req.CloudAICompanionProject == CloudShellProject:
		return nil, &CloudShellAccessError{Err: err}
	}
	return nil, err
}

func vpcSCBlocked(ae *model.APIError) bool {
	for _, d := range ae.Details {
		if d["reason"] == "SECURITY_POLICY_VIOLATED" {
			return true
		}
	}
	return false
}

// OnboardUser starts onboarding to a tier.
func (m *Model) OnboardUser(ctx context.Context, req *OnboardUserRequest) (*Operation, error) {
	var op Operation
	if err := m.setupCall(ctx, "onboardUser", req, &op); err != nil {
		return nil, err
	}
	return &op, nil
}

// GetOperation polls a long-running operation by name
// ("operations/...").
func (m *Model) GetOperation(ctx context.Context, name string) (*Operation, error) {
	var op Operation
	err := m.retrySetup(ctx, func() error {
		resp, err := m.send(ctx, http.MethodGet, m.base+"/"+strings.TrimPrefix(name, "/"), nil, "")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		return decodeBody(resp.Body, &op, "getOperation")
	})
	if err != nil {
		return nil, err
	}
	return &op, nil
}

func (m *Model) setupCall(ctx context.Context, method string, in, out any) error {
	return m.retrySetup(ctx, func() error { return m.call(ctx, method, in, out, "") })
}

func (m *Model) retrySetup(ctx context.Context, call func() error) error {
	delay := setupRetryDelay
	for attempt := 0; ; attempt++ {
		err := call()
		var ae *model.APIError
		if err == nil || attempt >= setupRetries || !errors.As(err, &ae) || !ae.Retryable() {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay *= 2
	}
}

// Setup finds the user's Code Assist tier and project, onboarding them
// first if needed, as Gemini CLI's setupUser does:
//
//   - loadCodeAssist; a current tier means the user is set up, with the
//     project Code Assist names or else the user's own;
//   - otherwise onboardUser to the default allowed tier (legacy-tier when
//     none is marked default), without a project for the free tier, which
//     uses a managed one; the operation is polled until done;
//   - with no project from either side, the account's ineligibility
//     reasons, or ProjectIDRequiredError.
//
// Failures that a user must fix (project, eligibility, validation, a 401
// or 403) are *model.AuthError, so the CLI exits 41 with Gemini CLI's
// message.
func (m *Model) Setup(ctx context.Context, opts SetupOptions) (*UserData, error) {
	ud, err := m.setup(ctx, opts)
	if err == nil {
		return ud, nil
	}
	var (
		ae      *model.APIError
		authErr *model.AuthError
	)
	switch {
	case errors.As(err, &authErr):
		return nil, err
	case errors.As(err, &ae) && ae.StatusCode != http.StatusForbidden:
		return nil, fmt.Errorf("Code Assist setup: %w", err)
	case errors.As(err, &ae), isUserFixable(err):
		return nil, &model.AuthError{Err: err}
	}
	return nil, fmt.Errorf("Code Assist setup: %w", err)
}

func isUserFixable(err error) bool {
	var (
		p  *ProjectIDRequiredError
		n  *InvalidNumericProjectIDError
		it *IneligibleTierError
		v  *ValidationRequiredError
		cs *CloudShellAccessError
	)
	return errors.As(err, &p) || errors.As(err, &n) || errors.As(err, &it) || errors.As(err, &v) || errors.As(err, &cs)
}

func (m *Model) setup(ctx context.Context, opts SetupOptions) (*UserData, error) {
	project := opts.ProjectID
	if numericProject.Get().MatchString(project) {
		return nil, &InvalidNumericProjectIDError{ProjectID: project}
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	load, err := m.LoadCodeAssist(ctx, &LoadCodeAssistRequest{
		CloudAICompanionProject: project,
		Metadata:                clientMetadata(project),
	})
	if err != nil {
		return nil, err
	}
	if err := checkValidation(load); err != nil {
		return nil, err
	}

	if cur := load.CurrentTier; cur != nil {
		ud := &UserData{
			ProjectID:              load.CloudAICompanionProject,
			UserTier:               cur.ID,
			UserTierName:           cur.Name,
			PaidTier:               load.PaidTier,
			HasOnboardedPreviously: cur.HasOnboardedPreviously == nil || *cur.HasOnboardedPreviously,
		}
		if p := load.PaidTier; p != nil {
			if p.ID != "" {
				ud.UserTier = p.ID
			}
			if p.Name != "" {
				ud.UserTierName = p.Name
			}
		}
		if ud.UserTier == "" {
			ud.UserTier = TierStandard
		}
		if ud.ProjectID == "" {
			if project == "" {
				return nil, ineligibleOrProjectRequired(load)
			}
			ud.ProjectID = project
		}
		return ud, nil
	}

	tier := onboardTier(load)
	req := &OnboardUserRequest{TierID: tier.ID, Metadata: clientMetadata("")}
	if tier.ID != TierFree {
		// The free tier runs in a managed project; naming one makes
		// onboardUser fail with a failed precondition.
		req.CloudAICompanionProject = project
		req.Metadata = clientMetadata(project)
	}
	op, err := m.OnboardUser(ctx, req)
	if err != nil {
		return nil, err
	}
	for !op.Done && op.Name != "" {
		t := time.NewTimer(opts.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		if op, err = m.GetOperation(ctx, op.Name); err != nil {
			return nil, err
		}
	}
	if op.Error != nil && op.Error.Message != "" {
		return nil, fmt.Errorf("onboarding failed: %s", op.Error.Message)
	}
	ud := &UserData{
		UserTier:               tier.ID,
		UserTierName:           tier.Name,
		HasOnboardedPreviously: tier.HasOnboardedPreviously != nil && *tier.HasOnboardedPreviously,
	}
	if ud.UserTier == "" {
		ud.UserTier = TierStandard
	}
	if r := op.Response; r != nil && r.CloudAICompanionProject != nil && r.CloudAICompanionProject.ID != "" {
		ud.ProjectID = r.CloudAICompanionProject.ID
		return ud, nil
	}
	if project == "" {
		return nil, ineligibleOrProjectRequired(load)
	}
	ud.ProjectID = project
	return ud, nil
}

// onboardTier is the allowed tier marked default, else legacy-tier, which
// needs the user's own project.
func onboardTier(load *LoadCodeAssistResponse) *UserTier {
	for _, t := range load.AllowedTiers {
		if t != nil && t.IsDefault {
			return t
		}
	}
	return &UserTier{ID: TierLegacy, UserDefinedCloudAICompanionProject: true}
}

func ineligibleOrProjectRequired(load *LoadCodeAssistResponse) error {
	if len(load.IneligibleTiers) > 0 {
		return &IneligibleTierError{Tiers: load.IneligibleTiers}
	}
	return &ProjectIDRequiredError{}
}

// checkValidation fails when the user has no tier because Google wants
// the account verified first.
func checkValidation(load *LoadCodeAssistResponse) error {
	if load.CurrentTier != nil {
		return nil
	}
	for _, t := range load.IneligibleTiers {
		if t.ReasonCode == "VALIDATION_REQUIRED" && t.ValidationURL != "" {
			return &ValidationRequiredError{Reason: t.ReasonMessage, URL: t.ValidationURL}
		}
	}
	return nil
}
