package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/internal/update"
	"github.com/castor-dev/castor/internal/version"
)

// npmPackage is the npm package Castor is published as (npm/castor).
const npmPackage = "@castor-dev/castor"

// newUpdateCommand is `castor update`: the release feed of
// general.updateFeedUrl is read, this platform's archive checked against
// the release's checksums and the running binary replaced.
func newUpdateCommand(ctx context.Context, stdio IO) *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use:   "update",
		Short: "Update Castor to the latest release (the feed of general.updateFeedUrl), checksum verified",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return runUpdate(ctx, stdio, check)
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "only say whether an update exists")
	return cmd
}

// updateSettings reads where releases are announced and whether the
// start-up notice is wanted. Settings that do not load give the defaults
// here; the session reports them.
func updateSettings() (feed string, notify bool) {
	feed, notify = update.DefaultFeedURL, true
	wd, _ := os.Getwd()
	st, err := config.Load(config.LoadOptions{Workspace: wd})
	if err != nil {
		return feed, notify
	}
	if v, ok := st.GetString("general.updateFeedUrl"); ok && v != "" {
		feed = v
	}
	if v, ok := st.GetBool("general.enableAutoUpdateNotification"); ok {
		notify = v
	}
	return feed, notify
}

func runUpdate(ctx context.Context, stdio IO, check bool) error {
	feed, _ := updateSettings()
	c := &update.Client{FeedURL: feed}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	rel, err := c.Latest(ctx)
	if err != nil {
		return err
	}
	// The answer also serves the next start-up notice.
	_ = update.Refresh(ctx, c, filepath.Join(config.ResolveHome(nil).Dir, update.StateName), time.Now())
	if !rel.Newer(version.Version) {
		fmt.Fprintf(stdio.Stdout, "Castor %s is up to date (latest release: %s).\n", version.Version, termtext.String(rel.Version()))
		return nil
	}
	if check {
		fmt.Fprintf(stdio.Stdout, "Castor %s is available (this is %s): run `castor update`.\n", termtext.String(rel.Version()), version.Version)
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("update: cannot find this program's file: %v", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	switch update.ManagedBy(exe) {
	case "npm":
		return fmt.Errorf("Castor %s is available, but %s belongs to npm: run `npm install -g %s@latest`", rel.Version(), exe, npmPackage)
	case "brew":
		return fmt.Errorf("Castor %s is available, but %s belongs to Homebrew: run `brew upgrade castor`", rel.Version(), exe)
	}
	fmt.Fprintf(stdio.Stderr, "Downloading Castor %s for %s/%s…\n", termtext.String(rel.Version()), runtime.GOOS, runtime.GOARCH)
	bin, err := c.Download(ctx, rel, runtime.GOOS, runtime.GOARCH)
	if err != nil {
		return err
	}
	if err := update.Replace(exe, bin); err != nil {
		return err
	}
	fmt.Fprintf(stdio.Stdout, "Castor updated from %s to %s (%s).\n", version.Version, termtext.String(rel.Version()), exe)
	return nil
}

// updateNotice writes the start-up notice of a release newer than this
// one, from the last check (no network), and asks the feed again in the
// background when that check is a day old, for the next start; the
// channel it returns closes when that check ends (nil when none
// started). Only release builds (version.Date stamped by
// scripts/release) do either: a binary built from source is updated from
// source, and tests and developer builds never reach the network.
func updateNotice(ctx context.Context, w io.Writer) <-chan struct{} {
	if version.Date == "" {
		return nil
	}
	feed, notify := updateSettings()
	if !notify {
		return nil
	}
	file := filepath.Join(config.ResolveHome(nil).Dir, update.StateName)
	if n := update.Notice(file, feed, version.Version); n != "" {
		fmt.Fprintln(w, termtext.String(n))
	}
	if !update.Due(file, feed, time.Now()) {
		return nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_ = update.Refresh(ctx, &update.Client{FeedURL: feed}, file, time.Now())
	}()
	return done
}
