package codeassist_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/codeassist"
)

func loadReply(v string) fakegemini.Reply {
	return fakegemini.JSON(v).For(fakegemini.RPCLoadCodeAssist)
}

func onboardReply(v string) fakegemini.Reply {
	return fakegemini.JSON(v).For(fakegemini.RPCOnboardUser)
}

func operationReply(v string) fakegemini.Reply {
	return fakegemini.JSON(v).For(fakegemini.RPCGetOperation)
}

// bodyOf returns the JSON body of the i-th request for rpc.
func bodyOf(t *testing.T, srv *fakegemini.Server, rpc string, i int) map[string]any {
	t.Helper()
	n := 0
	for _, r := range srv.Requests() {
		if r.RPC != rpc {
			continue
		}
		if n == i {
			var m map[string]any
			if err := json.Unmarshal(r.Body, &m); err != nil {
				t.Fatalf("%s body %s: %v", rpc, r.Body, err)
			}
			return m
		}
		n++
	}
	t.Fatalf("no request %d for %s", i, rpc)
	return nil
}

func countRPC(srv *fakegemini.Server, rpc string) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.RPC == rpc {
			n++
		}
	}
	return n
}

func TestSetup(t *testing.T) {
	tests := []struct {
		name     string
		project  string
		replies  []fakegemini.Reply
		want     codeassist.UserData
		wantErr  string
		wantAuth bool
		check    func(t *testing.T, srv *fakegemini.Server)
	}{
		{
			name: "free tier already onboarded",
			want: codeassist.UserData{ProjectID: "fake-project", UserTier: codeassist.TierFree, UserTierName: "Gemini Code Assist for individuals", HasOnboardedPreviously: true},
			check: func(t *testing.T, srv *fakegemini.Server) {
				body := bodyOf(t, srv, fakegemini.RPCLoadCodeAssist, 0)
				want := `{"metadata":{"ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"}}`
				if b, _ := json.Marshal(body); string(b) != want {
					t.Errorf("loadCodeAssist body %s, want %s", b, want)
				}
				if countRPC(srv, fakegemini.RPCOnboardUser) != 0 {
					t.Error("onboarded an onboarded user")
				}
				if ua := srv.Requests()[0].Header.Get("User-Agent"); !strings.HasPrefix(ua, "Castor/1.2.3 (") {
					t.Errorf("User-Agent %q", ua)
				}
			},
		},
		{
			name:    "standard tier with the user's project",
			project: "my-proj",
			replies: []fakegemini.Reply{loadReply(`{"currentTier":{"id":"standard-tier","name":"Gemini Code Assist Standard"}}`)},
			want:    codeassist.UserData{ProjectID: "my-proj", UserTier: codeassist.TierStandard, UserTierName: "Gemini Code Assist Standard", HasOnboardedPreviously: true},
			check: func(t *testing.T, srv *fakegemini.Server) {
				body := bodyOf(t, srv, fakegemini.RPCLoadCodeAssist, 0)
				md, _ := body["metadata"].(map[string]any)
				if body["cloudaicompanionProject"] != "my-proj" || md["duetProject"] != "my-proj" {
					t.Errorf("loadCodeAssist body %v", body)
				}
			},
		},
		{
			name:    "paid tier wins",
			replies: []fakegemini.Reply{loadReply(`{"currentTier":{"id":"standard-tier","hasOnboardedPreviously":false},"paidTier":{"id":"g1-pro-tier","name":"Google AI Pro"},"cloudaicompanionProject":"p1"}`)},
			want:    codeassist.UserData{ProjectID: "p1", UserTier: "g1-pro-tier", UserTierName: "Google AI Pro", PaidTier: &codeassist.UserTier{ID: "g1-pro-tier", Name: "Google AI Pro"}},
		},
		{
			name:    "free tier onboarding polls the operation",
			project: "my-proj",
			replies: []fakegemini.Reply{
				loadReply(`{"allowedTiers":[{"id":"free-tier","name":"Gemini Code Assist for individuals","isDefault":true},{"id":"standard-tier"}]}`),
				onboardReply(`{"name":"operations/op1","done":false}`),
				operationReply(`{"name":"operations/op1","done":false}`),
				operationReply(`{"name":"operations/op1","done":true,"response":{"cloudaicompanionProject":{"id":"managed-123","name":"managed"}}}`),
			},
			want: codeassist.UserData{ProjectID: "managed-123", UserTier: codeassist.TierFree, UserTierName: "Gemini Code Assist for individuals"},
			check: func(t *testing.T, srv *fakegemini.Server) {
				body := bodyOf(t, srv, fakegemini.RPCOnboardUser, 0)
				// The free tier runs in a managed project: none is sent.
				want := `{"metadata":{"ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"},"tierId":"free-tier"}`
				if b, _ := json.Marshal(body); string(b) != want {
					t.Errorf("onboardUser body %s, want %s", b, want)
				}
				var polls []string
				for _, r := range srv.Requests() {
					if r.RPC == fakegemini.RPCGetOperation {
						polls = append(polls, r.HTTPMethod+" "+r.Path)
					}
				}
				if strings.Join(polls, ",") != "GET /v1internal/operations/op1,GET /v1internal/operations/op1" {
					t.Errorf("polls %v", polls)
				}
			},
		},
		{
			name:    "standard tier onboarding",
			project: "my-proj",
			replies: []fakegemini.Reply{
				loadReply(`{"allowedTiers":[{"id":"free-tier"},{"id":"standard-tier","name":"Standard","isDefault":true,"hasOnboardedPreviously":true}]}`),
				onboardReply(`{"name":"operations/op2","done":true}`),
			},
			want: codeassist.UserData{ProjectID: "my-proj", UserTier: codeassist.TierStandard, UserTierName: "Standard", HasOnboardedPreviously: true},
			check: func(t *testing.T, srv *fakegemini.Server) {
				body := bodyOf(t, srv, fakegemini.RPCOnboardUser, 0)
				md, _ := body["metadata"].(map[string]any)
				if body["tierId"] != "standard-tier" || body["cloudaicompanionProject"] != "my-proj" || md["duetProject"] != "my-proj" {
					t.Errorf("onboardUser body %v", body)
				}
			},
		},
		{
			name:    "no default tier means legacy",
			project: "my-proj",
			replies: []fakegemini.Reply{
				loadReply(`{"allowedTiers":[{"id":"free-tier"}]}`),
				onboardReply(`{"done":true,"response":{"cloudaicompanionProject":{"id":"my-proj"}}}`),
			},
			want: codeassist.UserData{ProjectID: "my-proj", UserTier: codeassist.TierLegacy},
			check: func(t *testing.T, srv *fakegemini.Server) {
				if body := bodyOf(t, srv, fakegemini.RPCOnboardUser, 0); body["tierId"] != "legacy-tier" {
					t.Errorf("onboardUser body %v", body)
				}
			},
		},
		{
			name:     "workspace account without a project",
			replies:  []fakegemini.Reply{loadReply(`{"currentTier":{"id":"standard-tier"}}`)},
			wantErr:  "This account requires setting the GOOGLE_CLOUD_PROJECT or GOOGLE_CLOUD_PROJECT_ID env var. See https://goo.gle/gemini-cli-auth-docs#workspace-gca",
			wantAuth: true,
		},
		{
			name: "onboarding without a project",
			replies: []fakegemini.Reply{
				loadReply(`{"allowedTiers":[{"id":"standard-tier","isDefault":true}]}`),
				onboardReply(`{"done":true}`),
			},
			wantErr:  "This account requires setting the GOOGLE_CLOUD_PROJECT",
			wantAuth: true,
		},
		{
			name:     "ineligible",
			replies:  []fakegemini.Reply{loadReply(`{"currentTier":{"id":"standard-tier"},"ineligibleTiers":[{"reasonCode":"INELIGIBLE_ACCOUNT","reasonMessage":"Your account is not eligible"},{"reasonCode":"UNSUPPORTED_LOCATION","reasonMessage":"Not available in your country"}]}`)},
			wantErr:  "Your account is not eligible, Not available in your country",
			wantAuth: true,
		},
		{
			name:     "project number instead of id",
			project:  "123456789012",
			wantErr:  `Invalid Google Cloud Project ID: "123456789012". The GOOGLE_CLOUD_PROJECT (or GOOGLE_CLOUD_PROJECT_ID) environment variable must be set to your string-based Project ID (e.g., "my-project-123"), not your numeric Project Number. Please update your environment variables.`,
			wantAuth: true,
			check: func(t *testing.T, srv *fakegemini.Server) {
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("%d requests", n)
				}
			},
		},
		{
			name:     "validation required",
			replies:  []fakegemini.Reply{loadReply(`{"ineligibleTiers":[{"reasonCode":"VALIDATION_REQUIRED","reasonMessage":"Verify your account","validationUrl":"https://accounts.google.com/verify"}]}`)},
			wantErr:  "Account validation required: Verify your account. Verify your account at https://accounts.google.com/verify and try again.",
			wantAuth: true,
		},
		{
			name:    "VPC Service Controls",
			project: "my-proj",
			replies: []fakegemini.Reply{fakegemini.Error(403, "Request is prohibited by organization's policy.").WithDetails(fakegemini.ErrorInfo("SECURITY_POLICY_VIOLATED", "googleapis.com")).For(fakegemini.RPCLoadCodeAssist)},
			want:    codeassist.UserData{ProjectID: "my-proj", UserTier: codeassist.TierStandard, HasOnboardedPreviously: true},
		},
		{
			name:     "cloud shell project refused",
			project:  codeassist.CloudShellProject,
			replies:  []fakegemini.Reply{fakegemini.Error(403, "denied").For(fakegemini.RPCLoadCodeAssist)},
			wantErr:  "Access to the default Cloud Shell Gemini project was denied.\nPlease set your own Google Cloud project by running:\ngcloud config set project [PROJECT_ID]\nor setting export GOOGLE_CLOUD_PROJECT=...",
			wantAuth: true,
		},
		{
			name:     "permission denied",
			project:  "my-proj",
			replies:  []fakegemini.Reply{fakegemini.Error(403, "The caller does not have permission").For(fakegemini.RPCLoadCodeAssist)},
			wantErr:  "The caller does not have permission",
			wantAuth: true,
		},
		{
			name:    "transient failure retried",
			replies: []fakegemini.Reply{fakegemini.Error(503, "overloaded").For(fakegemini.RPCLoadCodeAssist)},
			want:    codeassist.UserData{ProjectID: "fake-project", UserTier: codeassist.TierFree, UserTierName: "Gemini Code Assist for individuals", HasOnboardedPreviously: true},
			check: func(t *testing.T, srv *fakegemini.Server) {
				if n := countRPC(srv, fakegemini.RPCLoadCodeAssist); n != 2 {
					t.Errorf("%d loadCodeAssist calls", n)
				}
			},
		},
		{
			name: "persistent failure",
			replies: []fakegemini.Reply{
				fakegemini.Error(500, "down").For(fakegemini.RPCLoadCodeAssist),
				fakegemini.Error(500, "down").For(fakegemini.RPCLoadCodeAssist),
				fakegemini.Error(500, "down").For(fakegemini.RPCLoadCodeAssist),
				fakegemini.Error(500, "down").For(fakegemini.RPCLoadCodeAssist),
			},
			wantErr: "Code Assist setup: model API error 500 INTERNAL: down",
			check: func(t *testing.T, srv *fakegemini.Server) {
				if n := countRPC(srv, fakegemini.RPCLoadCodeAssist); n != 4 {
					t.Errorf("%d loadCodeAssist calls", n)
				}
			},
		},
		{
			name: "onboarding failed",
			replies: []fakegemini.Reply{
				loadReply(`{"allowedTiers":[{"id":"free-tier","isDefault":true}]}`),
				onboardReply(`{"name":"operations/op3","done":true,"error":{"code":9,"message":"Terms of service not accepted"}}`),
			},
			wantErr: "onboarding failed: Terms of service not accepted",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, tt.replies...)
			m := newModel(t, srv, func(c *codeassist.Config) { c.Project = "" })
			ud, err := m.Setup(context.Background(), codeassist.SetupOptions{ProjectID: tt.project, PollInterval: time.Millisecond})
			if tt.check != nil {
				defer tt.check(t, srv)
			}
			if tt.wantErr != "" {
				var auth *model.AuthError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.As(err, &auth) != tt.wantAuth {
					t.Fatalf("err = %v, want %q (auth error %v)", err, tt.wantErr, tt.wantAuth)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(ud)
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) {
				t.Errorf("got %s\nwant %s", got, want)
			}
		})
	}
}

func TestProjectFromEnv(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{"GOOGLE_CLOUD_PROJECT": "a", "GOOGLE_CLOUD_PROJECT_ID": "b"}, "a"},
		{map[string]string{"GOOGLE_CLOUD_PROJECT_ID": "b"}, "b"},
		{map[string]string{"GOOGLE_CLOUD_PROJECT": "a", "CLOUD_SHELL": "true"}, codeassist.CloudShellProject},
	}
	for _, tt := range tests {
		if got := codeassist.ProjectFromEnv(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.env, got, tt.want)
		}
	}
}

// Onboarding stops when the caller gives up, however long the operation
// would take.
func TestSetupCancelledWhilePolling(t *testing.T) {
	srv := fakegemini.Start(t,
		loadReply(`{"allowedTiers":[{"id":"free-tier","isDefault":true}]}`),
		onboardReply(`{"name":"operations/slow","done":false}`),
	)
	for range 50 {
		srv.Enqueue(operationReply(`{"name":"operations/slow","done":false}`))
	}
	m := newModel(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for countRPC(srv, fakegemini.RPCGetOperation) < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := m.Setup(ctx, codeassist.SetupOptions{PollInterval: time.Millisecond})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}
