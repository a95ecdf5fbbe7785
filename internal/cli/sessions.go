package cli

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/chats"
)

func openStore(wd string) (*chats.Store, error) {
	home := config.ResolveHome(nil)
	return chats.OpenStore(home.Dir, wd)
}

// listSessions prints the project's sessions as Gemini CLI's
// --list-sessions does.
func listSessions(wd string, stdio IO) int {
	store, err := openStore(wd)
	if err != nil {
		fmt.Fprintf(stdio.Stderr, "Error: %s\n", oneLine(err.Error()))
		return ExitError
	}
	infos, err := store.List()
	if err != nil && !errors.Is(err, chats.ErrNoSessions) {
		fmt.Fprintf(stdio.Stderr, "Error: %s\n", oneLine(err.Error()))
		return ExitError
	}
	io.WriteString(stdio.Stdout, chats.FormatList(infos, "", time.Now()))
	if len(infos) == 0 {
		io.WriteString(stdio.Stdout, "\n")
	}
	return ExitOK
}

// deleteSession deletes one recorded session.
func deleteSession(wd, ref string, stdio IO) int {
	store, err := openStore(wd)
	if err != nil {
		fmt.Fprintf(stdio.Stderr, "Error: %s\n", oneLine(err.Error()))
		return ExitError
	}
	info, err := store.Delete(ref)
	if err != nil {
		fmt.Fprintf(stdio.Stderr, "Error: %s\n", oneLine(err.Error()))
		return ExitInput
	}
	fmt.Fprintln(stdio.Stdout, chats.DeletedDescription(info, time.Now()))
	return ExitOK
}
