package telemetry

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/castor-dev/castor/internal/fsutil"
)

// InstallationFile is the file under the Gemini home (~/.gemini) that
// holds the installation's id, Gemini CLI 0.61's name for it: Castor and
// Gemini CLI on one machine report the same installation.id.
const InstallationFile = "installation_id"

// InstallationID returns the id in dir's installation_id file, creating
// the file with a new UUID when it is missing or empty. Two processes
// starting at once agree on one id: the new file is linked into place,
// which fails when another got there first, whose id is then read. When
// the file can be neither read nor made, the id is a new UUID for this
// process only, and the error says why.
func InstallationID(dir string) (string, error) {
	path := filepath.Join(dir, InstallationFile)
	for range 3 {
		id, err := readID(path)
		if err == nil && id != "" {
			return id, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return uuid.NewString(), err
		}
		id = uuid.NewString()
		if err == nil {
			// An empty file, as Gemini CLI treats it: replaced.
			return id, fsutil.ReplaceFile(path, []byte(id), 0o644)
		}
		if err := createOnce(path, id); err == nil {
			return id, nil
		} else if !errors.Is(err, fs.ErrExist) {
			return id, err
		}
		// Another process made it meanwhile: read its id.
	}
	return uuid.NewString(), errors.New(path + ": keeps changing")
}

func readID(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}

// createOnce makes path hold data, whole, unless path exists: data is
// written to a temporary file that is then hard-linked to path.
func createOnce(path, data string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+InstallationFile+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o644); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		f.Close()
		return err
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Link(f.Name(), path)
}
