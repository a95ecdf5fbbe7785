package update

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/castor-dev/castor/internal/fsutil"
)

// CheckInterval is how long a check of the feed is trusted: the start-up
// notice reads the last answer and asks the feed again only after this.
const CheckInterval = 24 * time.Hour

// StateName is the file under ~/.gemini where the last check is kept.
const StateName = "castor-update.json"

// state is the last check of the feed.
type state struct {
	Checked time.Time `json:"checked"`
	Feed    string    `json:"feed"`
	Latest  string    `json:"latest"`
}

func readState(file string) (state, bool) {
	var s state
	b, err := os.ReadFile(file)
	if err != nil || json.Unmarshal(b, &s) != nil {
		return state{}, false
	}
	return s, true
}

// Notice is the line to show at start-up when the last check of feed
// found a release newer than current, else "". It reads only the state
// file: no network.
func Notice(file, feed, current string) string {
	s, ok := readState(file)
	if !ok || s.Feed != feed || s.Latest == "" {
		return ""
	}
	r := Release{Tag: s.Latest}
	if !r.Newer(current) {
		return ""
	}
	return fmt.Sprintf("Castor %s is available (this is %s): run `castor update`, or set general.enableAutoUpdateNotification to false to stop this notice.", r.Version(), current)
}

// Due reports whether the feed should be asked again: never asked, asked
// about another feed, or asked longer than CheckInterval before now.
func Due(file, feed string, now time.Time) bool {
	s, ok := readState(file)
	return !ok || s.Feed != feed || now.Sub(s.Checked) >= CheckInterval || now.Before(s.Checked)
}

// Refresh asks the feed for its latest release and records the answer in
// file for the next Notice. A failed check is recorded too (with no
// release), so an unreachable feed is not asked at every start.
func Refresh(ctx context.Context, c *Client, file string, now time.Time) error {
	s := state{Checked: now.UTC(), Feed: c.feedURL()}
	r, err := c.Latest(ctx)
	if err == nil {
		s.Latest = r.Tag
	}
	b, merr := json.Marshal(s)
	if merr != nil {
		return merr
	}
	if werr := fsutil.WriteFileAtomic(file, b, 0o600); werr != nil {
		return werr
	}
	return err
}
