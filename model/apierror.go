package model

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/castor-dev/castor/internal/lazy"
)

// Google RPC detail type URLs that change how an error is retried.
const (
	typeRetryInfo    = "type.googleapis.com/google.rpc.RetryInfo"
	typeQuotaFailure = "type.googleapis.com/google.rpc.QuotaFailure"
	typeErrorInfo    = "type.googleapis.com/google.rpc.ErrorInfo"
)

// MaxRetryAfter is the longest server-requested delay worth waiting for.
// Gemini CLI treats a quota that resets later than this as exhausted: the
// user is effectively locked out, so falling back beats waiting silently.
const MaxRetryAfter = 5 * time.Minute

// maxDelaySeconds bounds parsed delays (a year) so absurd values cannot
// overflow time.Duration.
const maxDelaySeconds = 365 * 24 * 3600

// NewAPIError builds an APIError from a non-2xx HTTP answer whose body is
// (usually) a Google error envelope {"error":{"code","message","status",
// "details"}}. Some Google front ends wrap the envelope in a one-element
// array; that form is accepted too. A body that is not an envelope becomes
// the message as is. RetryAfter is the larger of the Retry-After header and
// the RetryInfo detail, so the caller never retries sooner than asked.
func NewAPIError(statusCode int, header http.Header, body []byte) *APIError {
	e := &APIError{StatusCode: statusCode}
	var env struct {
		Error *struct {
			Code    int              `json:"code"`
			Message string           `json:"message"`
			Status  string           `json:"status"`
			Details []map[string]any `json:"details"`
		} `json:"error"`
	}
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "[") {
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) == nil && len(arr) > 0 {
			body = arr[0]
		}
	}
	if json.Unmarshal(body, &env) == nil && env.Error != nil {
		if env.Error.Code != 0 && statusCode == 0 {
			e.StatusCode = env.Error.Code
		}
		e.Status = env.Error.Status
		e.Message = env.Error.Message
		e.Details = env.Error.Details
	} else {
		e.Message = trimmed
		if e.Message == "" {
			e.Message = http.StatusText(statusCode)
		}
	}
	if header != nil {
		e.RetryAfter = ParseRetryAfter(header.Get("Retry-After"), time.Now())
	}
	e.RetryAfter = max(e.RetryAfter, RetryDelay(e.Details, e.Message))
	return e
}

// ParseRetryAfter parses an HTTP Retry-After value, either delay-seconds or
// an HTTP date relative to now. It returns zero for an empty, malformed or
// past value.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		// Written so NaN fails too.
		if !(secs > 0 && secs <= maxDelaySeconds) {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// retryInMessage matches the hint some quota errors carry only in their
// message text, e.g. "Please retry in 34.07s."
var retryInMessage = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`Please retry in ([0-9.]+(?:ms|s))`) }}

// RetryDelay returns the delay a Google error asks for: the retryDelay of a
// google.rpc.RetryInfo detail, else a "Please retry in Xs" hint in message.
// It returns zero when neither is present.
func RetryDelay(details []map[string]any, message string) time.Duration {
	for _, d := range details {
		if d["@type"] != typeRetryInfo {
			continue
		}
		if s, ok := d["retryDelay"].(string); ok {
			if dur := parseProtoDuration(s); dur > 0 {
				return dur
			}
		}
	}
	if m := retryInMessage.Get().FindStringSubmatch(message); m != nil {
		return parseProtoDuration(m[1])
	}
	return 0
}

// parseProtoDuration parses the JSON form of google.protobuf.Duration
// ("34.074824224s"), and also "900ms" as seen in error messages.
func parseProtoDuration(s string) time.Duration {
	s = strings.TrimSpace(s)
	var unit time.Duration
	switch {
	case strings.HasSuffix(s, "ms"):
		s, unit = strings.TrimSuffix(s, "ms"), time.Millisecond
	case strings.HasSuffix(s, "s"):
		s, unit = strings.TrimSuffix(s, "s"), time.Second
	default:
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0 && f*unit.Seconds() <= maxDelaySeconds) {
		return 0
	}
	return time.Duration(f * float64(unit))
}

// QuotaExhausted reports whether e is a 429 that waiting a little will not
// fix: a daily quota (QuotaFailure quotaId containing "PerDay" or "Daily"),
// an ErrorInfo reason QUOTA_EXHAUSTED or INSUFFICIENT_G1_CREDITS_BALANCE,
// or a requested delay longer than MaxRetryAfter. Such errors go straight
// to model fallback instead of being retried.
func (e *APIError) QuotaExhausted() bool {
	if e == nil || e.StatusCode != http.StatusTooManyRequests {
		return false
	}
	if e.RetryAfter > MaxRetryAfter {
		return true
	}
	for _, d := range e.Details {
		switch d["@type"] {
		case typeQuotaFailure:
			vs, _ := d["violations"].([]any)
			for _, v := range vs {
				vm, _ := v.(map[string]any)
				id, _ := vm["quotaId"].(string)
				if strings.Contains(id, "PerDay") || strings.Contains(id, "Daily") {
					return true
				}
			}
		case typeErrorInfo:
			switch d["reason"] {
			case "QUOTA_EXHAUSTED", "INSUFFICIENT_G1_CREDITS_BALANCE":
				return true
			}
		}
	}
	return false
}

// IsQuotaExhausted reports whether err is an APIError for which
// QuotaExhausted is true.
func IsQuotaExhausted(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.QuotaExhausted()
}
