package model_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/castor-dev/castor/model"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"-3", 0},
		{"12", 12 * time.Second},
		{"1.5", 1500 * time.Millisecond},
		{" 3 ", 3 * time.Second},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"soon", 0},
	}
	for _, tt := range tests {
		if got := model.ParseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	info := func(d string) map[string]any {
		return map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": d}
	}
	tests := []struct {
		name    string
		details []map[string]any
		msg     string
		want    time.Duration
	}{
		{"none", nil, "", 0},
		{"seconds", []map[string]any{info("34s")}, "", 34 * time.Second},
		{"fractional", []map[string]any{info("0.25s")}, "", 250 * time.Millisecond},
		{"millis", []map[string]any{info("900ms")}, "", 900 * time.Millisecond},
		{"garbage", []map[string]any{info("soon")}, "", 0},
		{"message", nil, "Quota exceeded. Please retry in 7.5s.", 7500 * time.Millisecond},
		{"other detail", []map[string]any{{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "retryDelay": "3s"}}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := model.RetryDelay(tt.details, tt.msg); got != tt.want {
				t.Errorf("RetryDelay = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewAPIError(t *testing.T) {
	tests := []struct {
		name       string
		code       int
		header     http.Header
		body       string
		wantCode   int
		wantStatus string
		wantMsg    string
		wantRetry  time.Duration
		exhausted  bool
	}{
		{
			name:       "envelope",
			code:       429,
			header:     http.Header{"Retry-After": {"4"}},
			body:       `{"error":{"code":429,"message":"slow","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}`,
			wantCode:   429,
			wantStatus: "RESOURCE_EXHAUSTED",
			wantMsg:    "slow",
			wantRetry:  4 * time.Second,
		},
		{
			name:       "array envelope, detail wins",
			code:       429,
			body:       `[{"error":{"code":429,"message":"q","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"9s"}]}}]`,
			wantCode:   429,
			wantStatus: "RESOURCE_EXHAUSTED",
			wantMsg:    "q",
			wantRetry:  9 * time.Second,
		},
		{
			name:     "plain text",
			code:     502,
			body:     "Bad Gateway\n",
			wantCode: 502,
			wantMsg:  "Bad Gateway",
		},
		{
			name:     "empty",
			code:     503,
			wantCode: 503,
			wantMsg:  "Service Unavailable",
		},
		{
			name:       "code assist quota exhausted",
			code:       429,
			body:       `{"error":{"code":429,"message":"out","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"QUOTA_EXHAUSTED","domain":"cloudcode-pa.googleapis.com"}]}}`,
			wantCode:   429,
			wantStatus: "RESOURCE_EXHAUSTED",
			wantMsg:    "out",
			exhausted:  true,
		},
		{
			name:       "per-minute quota is not exhausted",
			code:       429,
			body:       `{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel"}]}]}}`,
			wantCode:   429,
			wantStatus: "RESOURCE_EXHAUSTED",
			wantMsg:    "m",
		},
		{
			name:       "daily quota",
			code:       429,
			body:       `{"error":{"code":429,"message":"d","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel"}]}]}}`,
			wantCode:   429,
			wantStatus: "RESOURCE_EXHAUSTED",
			wantMsg:    "d",
			exhausted:  true,
		},
		{
			name:       "very long retry",
			code:       429,
			header:     http.Header{"Retry-After": {"3600"}},
			body:       `{"error":{"code":429,"message":"later","status":"RESOURCE_EXHAUSTED"}}`,
			wantCode:   429,
			wantStatus: "RESOURCE_EXHAUSTED",
			wantMsg:    "later",
			wantRetry:  time.Hour,
			exhausted:  true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := model.NewAPIError(tt.code, tt.header, []byte(tt.body))
			if e.StatusCode != tt.wantCode || e.Status != tt.wantStatus || e.Message != tt.wantMsg || e.RetryAfter != tt.wantRetry {
				t.Errorf("got %d %q %q %v", e.StatusCode, e.Status, e.Message, e.RetryAfter)
			}
			if e.QuotaExhausted() != tt.exhausted {
				t.Errorf("QuotaExhausted = %v, want %v", e.QuotaExhausted(), tt.exhausted)
			}
		})
	}
}

func FuzzNewAPIError(f *testing.F) {
	f.Add(429, "7", `{"error":{"code":429,"message":"x","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1s"}]}}`)
	f.Add(500, "", `[{"error":{}}]`)
	f.Add(503, "Wed, 21 Oct 2015 07:28:00 GMT", "oops")
	f.Fuzz(func(t *testing.T, code int, retryAfter, body string) {
		e := model.NewAPIError(code, http.Header{"Retry-After": {retryAfter}}, []byte(body))
		if e == nil || e.RetryAfter < 0 {
			t.Fatalf("bad error %+v", e)
		}
		_ = e.Error()
		_ = e.QuotaExhausted()
	})
}
