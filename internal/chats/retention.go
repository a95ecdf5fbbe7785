package chats

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/castor-dev/castor/internal/lazy"
)

// Retention is Gemini CLI's general.sessionRetention: which recorded
// sessions start-up deletes. Gemini CLI 0.61 has it on by default with
// maxAge "30d" and minRetention "1d" (its settings schema's defaults).
type Retention struct {
	// Enabled turns the clean-up on.
	Enabled bool
	// MaxAge ("30d", "24h", "2w", "1m" = 30 days) deletes sessions not
	// updated for longer; "" sets no age limit.
	MaxAge string
	// MaxCount keeps only the most recently updated sessions; 0 sets no
	// count limit (Gemini CLI's undefined).
	MaxCount float64
	// HasMaxCount says MaxCount was set, so that 0 is reported as too
	// small rather than taken as no limit.
	HasMaxCount bool
	// MinRetention ("1d" when empty or malformed, as in Gemini CLI) is the
	// smallest MaxAge accepted; Castor also never deletes a session
	// updated more recently than this, whatever MaxCount says.
	MinRetention string
	// Explicit says the user's settings name sessionRetention at all; when
	// false the policy is Gemini CLI's default, which start-up says when
	// it deletes anything.
	Explicit bool
}

// Keys of the retention settings, read by RetentionFromSettings.
const (
	retentionEnabledKey      = "general.sessionRetention.enabled"
	retentionMaxAgeKey       = "general.sessionRetention.maxAge"
	retentionMaxCountKey     = "general.sessionRetention.maxCount"
	retentionMinRetentionKey = "general.sessionRetention.minRetention"
)

// Gemini CLI's defaults.
const (
	defaultMaxAge       = "30d"
	defaultMinRetention = "1d"
)

// RetentionFromSettings reads general.sessionRetention through get (a
// dotted-key lookup such as config.Settings.Get), filling in Gemini CLI's
// defaults. A value of the wrong JSON type is an error naming the key;
// the clean-up is then off.
func RetentionFromSettings(get func(key string) (any, bool)) (Retention, error) {
	r := Retention{Enabled: true, MaxAge: defaultMaxAge, MinRetention: defaultMinRetention}
	if v, ok := get("general.sessionRetention"); ok && v != nil {
		r.Explicit = true
	}
	wrong := func(key, want string, v any) error {
		return fmt.Errorf("%s should be %s, got %v", key, want, v)
	}
	if v, ok := get(retentionEnabledKey); ok && v != nil {
		b, isBool := v.(bool)
		if !isBool {
			return Retention{}, wrong(retentionEnabledKey, "a boolean", v)
		}
		r.Enabled = b
	}
	if !r.Enabled {
		return r, nil // Gemini CLI looks no further
	}
	if v, ok := get(retentionMaxAgeKey); ok && v != nil {
		s, isString := v.(string)
		if !isString {
			return Retention{}, wrong(retentionMaxAgeKey, "a string", v)
		}
		r.MaxAge = s
	}
	if v, ok := get(retentionMaxCountKey); ok && v != nil {
		n, isNumber := v.(float64)
		if !isNumber {
			return Retention{}, wrong(retentionMaxCountKey, "a number", v)
		}
		r.MaxCount, r.HasMaxCount = n, true
	}
	if v, ok := get(retentionMinRetentionKey); ok && v != nil {
		s, isString := v.(string)
		if !isString {
			return Retention{}, wrong(retentionMinRetentionKey, "a string", v)
		}
		r.MinRetention = s
	}
	return r, nil
}

// retentionPeriod is Gemini CLI's period syntax: digits then one unit.
var retentionPeriod = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)([dhwm])$`) }}

var periodUnits = lazy.Value[map[string]time.Duration]{New: func() map[string]time.Duration {
	return map[string]time.Duration{
		"h": time.Hour,
		"d": 24 * time.Hour,
		"w": 7 * 24 * time.Hour,
		"m": 30 * 24 * time.Hour,
	}
}}

// forever stands for a period too long for a time.Duration: nothing is
// ever that old.
const forever = time.Duration(math.MaxInt64)

// ParseRetentionPeriod parses "30d", "24h", "2w" or "1m" (30 days), with
// Gemini CLI's error messages for anything else and for zero.
func ParseRetentionPeriod(period string) (time.Duration, error) {
	m := retentionPeriod.Get().FindStringSubmatch(period)
	if m == nil {
		return 0, fmt.Errorf("Invalid retention period format: %s. Expected format: <number><unit> where unit is h, d, w, or m", period)
	}
	unit := periodUnits.Get()[m[2]]
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > int64(forever/unit) {
		return forever, nil // digits only, so only too large
	}
	if n == 0 {
		return 0, fmt.Errorf("Invalid retention period: %s. Value must be greater than 0", period)
	}
	return time.Duration(n) * unit, nil
}

// minRetention is MinRetention parsed, falling back to one day when it is
// empty or malformed, as Gemini CLI does.
func (r Retention) minRetention() (time.Duration, string) {
	if r.MinRetention != "" {
		if d, err := ParseRetentionPeriod(r.MinRetention); err == nil {
			return d, r.MinRetention
		}
	}
	d, _ := ParseRetentionPeriod(defaultMinRetention)
	return d, defaultMinRetention
}

// Validate checks an enabled policy with Gemini CLI's rules and words:
// the error is what Gemini CLI prints after "Session cleanup disabled: ".
func (r Retention) Validate() error {
	if r.MaxAge != "" {
		maxAge, err := ParseRetentionPeriod(r.MaxAge)
		if err != nil {
			return fmt.Errorf("Error: %w", err)
		}
		label := r.MinRetention
		if label == "" {
			label = defaultMinRetention
		}
		if minimum, _ := r.minRetention(); maxAge < minimum {
			return fmt.Errorf("maxAge cannot be less than minRetention (%s)", label)
		}
	}
	if r.HasMaxCount && r.MaxCount < 1 {
		return errors.New("maxCount must be at least 1")
	}
	if r.MaxAge == "" && !r.HasMaxCount {
		return errors.New("Either maxAge or maxCount must be specified")
	}
	return nil
}

// CleanupResult is what a clean-up did.
type CleanupResult struct {
	// Deleted are the sessions removed, oldest update first.
	Deleted []Info
	// Kept counts the listed sessions left in place.
	Kept int
	// Unprompted are the removed files of sessions that never got a
	// message: a header alone, which Gemini CLI (and Castor before it
	// created files on the first record) writes for a session closed
	// before any prompt. Listings hide them, so only maxAge expires them.
	Unprompted []string
}

// Cleanup deletes the sessions r expires, as Gemini CLI's start-up does,
// but more cautiously:
//
//   - only sessions Store.List lists (they parse and hold a real
//     exchange) are candidates, and header-only files of sessions that
//     never got a message once maxAge expires them (Unprompted; never by
//     maxCount, never within minRetention or since the file's last
//     write, so a running Gemini CLI session's fresh file stays); Gemini
//     CLI also deletes files it cannot read and every session without
//     an exchange, which may hold messages or be a format newer than
//     Castor's;
//   - the session currentID (the one being started or resumed) is never
//     deleted, matched by full id or, as Gemini CLI does, by its first 8
//     characters in the file name;
//   - nothing updated within minRetention is deleted, even beyond
//     maxCount;
//   - only the session's files in the chats directory go: its
//     session-*.json[l] files (full id checked) and its subagent folder
//     chats/<id>/, never logs or tool outputs elsewhere.
//
// A disabled policy does nothing; an invalid one returns Validate's
// error and deletes nothing. Errors deleting one session are joined and
// the others are still deleted.
func (s *Store) Cleanup(r Retention, currentID string) (CleanupResult, error) {
	var res CleanupResult
	if !r.Enabled {
		return res, nil
	}
	if err := r.Validate(); err != nil {
		return res, err
	}
	infos, err := s.List()
	if err != nil {
		return res, err
	}
	now := s.now()
	isCurrent := func(in Info) bool {
		if currentID == "" {
			return false
		}
		return in.ID == currentID || strings.Contains(in.FileName, currentID[:min(8, len(currentID))])
	}
	// Newest update first: the first maxCount are kept.
	slices.SortStableFunc(infos, func(a, b Info) int { return b.LastUpdated.Compare(a.LastUpdated) })
	var deletable []Info
	hasCurrent := false
	for _, in := range infos {
		if isCurrent(in) {
			hasCurrent = true
			continue
		}
		deletable = append(deletable, in)
	}
	keep := math.Inf(1)
	if r.HasMaxCount {
		keep = r.MaxCount
		if hasCurrent {
			keep = max(0, keep-1)
		}
	}
	var cutoff time.Time
	if r.MaxAge != "" {
		if maxAge, _ := ParseRetentionPeriod(r.MaxAge); maxAge != forever {
			cutoff = now.Add(-maxAge)
		}
	}
	minimum, _ := r.minRetention()
	floor := now.Add(-minimum)
	var errs []error
	for i, in := range deletable {
		expired := !cutoff.IsZero() && in.LastUpdated.Before(cutoff)
		surplus := float64(i) >= keep
		if !(expired || surplus) || !in.LastUpdated.Before(floor) {
			res.Kept++
			continue
		}
		if err := s.removeSession(in.ID); err != nil {
			errs = append(errs, fmt.Errorf("deleting session %s: %w", in.ID, err))
			continue
		}
		res.Deleted = append(res.Deleted, in)
	}
	if hasCurrent {
		res.Kept++
	}
	slices.Reverse(res.Deleted)
	if !cutoff.IsZero() {
		res.Unprompted, errs = s.removeUnprompted(cutoff, floor, currentID, errs)
	}
	return res, errors.Join(errs...)
}

// unpromptedMaxSize bounds the files removeUnprompted reads: a header
// and a few metadata patches are far smaller, and the sessions worth
// keeping are not read twice at start-up.
const unpromptedMaxSize = 4 << 10

// removeUnprompted deletes the session files of the chats directory that
// hold a main session's header and no message at all (not even a line
// that failed to parse), last updated before both cutoff and floor, and
// not of the session currentID; it returns their paths.
func (s *Store) removeUnprompted(cutoff, floor time.Time, currentID string, errs []error) ([]string, []error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, append(errs, err)
	}
	var removed []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasPrefix(n, sessionFilePrefix) || !strings.HasSuffix(n, ".jsonl") {
			continue
		}
		if currentID != "" && strings.Contains(n, currentID[:min(8, len(currentID))]) {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > unpromptedMaxSize {
			continue
		}
		p := filepath.Join(s.dir, n)
		c, err := LoadFile(p)
		if err != nil || c.SessionID == "" || c.SessionID == currentID || c.Kind == "subagent" ||
			len(c.Messages) > 0 || len(c.Skipped) > 0 {
			continue
		}
		last := c.LastUpdated
		if last.IsZero() || fi.ModTime().After(last) {
			last = fi.ModTime() // never older than the file's last write
		}
		if !last.Before(cutoff) || !last.Before(floor) {
			continue
		}
		if err := os.Remove(p); err != nil {
			errs = append(errs, fmt.Errorf("deleting unprompted session file %s: %w", p, err))
			continue
		}
		removed = append(removed, p)
	}
	return removed, errs
}

// removeSession deletes a session's files inside the chats directory
// only: every session-*-<id prefix>.json[l] file whose full id matches,
// and its subagent folder.
func (s *Store) removeSession(id string) error {
	safe, errs := s.removeSessionFiles(id)
	if safe == "" {
		return errors.Join(errs...)
	}
	if err := os.RemoveAll(filepath.Join(s.dir, safe)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// CleanupNotice is the one stderr line after a clean-up that deleted
// something; "" when nothing was deleted.
func CleanupNotice(r Retention, res CleanupResult) string {
	n, u := len(res.Deleted), len(res.Unprompted)
	if n == 0 && u == 0 {
		return ""
	}
	plural := func(k int, one, many string) string {
		if k == 1 {
			return fmt.Sprintf("%d %s", k, one)
		}
		return fmt.Sprintf("%d %s", k, many)
	}
	var what []string
	if n > 0 {
		what = append(what, plural(n, "recorded session", "recorded sessions"))
	}
	if u > 0 {
		what = append(what, plural(u, "session that never got a prompt", "sessions that never got a prompt"))
	}
	msg := fmt.Sprintf("Removed %s of this project (general.sessionRetention", strings.Join(what, " and "))
	var limits []string
	if r.MaxAge != "" {
		limits = append(limits, "maxAge "+r.MaxAge)
	}
	if r.HasMaxCount {
		limits = append(limits, "maxCount "+strconv.FormatFloat(r.MaxCount, 'f', -1, 64))
	}
	msg += ": " + strings.Join(limits, ", ") + ")."
	return msg
}
