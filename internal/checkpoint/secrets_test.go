package checkpoint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSnapshotsNeverHoldSecrets: the shadow repository outlives the
// project's files, so a key or .env in it is a copy the user never made;
// they stay out whatever the project's .gitignore says, and a repository
// that already holds one (an older Castor) lets it go.
func TestSnapshotsNeverHoldSecrets(t *testing.T) {
	needGit(t)
	s, project := newService(t)
	secrets := []string{
		".env", ".env.local", "sub/.env.production", "certs/server.pem", "tls.key",
		"id_rsa", "keys/id_ed25519.pub", ".netrc", "gcp-credentials.json",
		"deploy/service-account-prod.json",
	}
	kept := []string{"main.go", "README.md", "env.go", "credentials.txt", "keys/notes.txt", "ignored-by-project.log"}
	write(t, project, ".gitignore", "*.log\n")
	kept[len(kept)-1] = ".gitignore"
	for _, f := range append(slices.Clone(secrets), kept...) {
		if f != ".gitignore" {
			write(t, project, f, "x")
		}
	}
	write(t, project, "debug.log", "x")

	// An older shadow repository committed .env before the exclude existed.
	if err := s.init(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.HistoryDir, ".git", "info", "exclude"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.git(t.Context(), true, "add", "--force", ".env"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.git(t.Context(), true, "commit", "--quiet", "-m", "old"); err != nil {
		t.Fatal(err)
	}
	s.ready = false

	if _, err := s.Save(t.Context(), ToolCall{Name: "write_file", Args: map[string]any{"file_path": "main.go"}}, nil, ""); err != nil {
		t.Fatal(err)
	}
	out, err := s.git(t.Context(), true, "ls-tree", "-r", "--name-only", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	files := strings.Split(strings.TrimSpace(out), "\n")
	for _, f := range secrets {
		if slices.Contains(files, f) {
			t.Errorf("snapshot holds %s", f)
		}
	}
	if slices.Contains(files, "debug.log") {
		t.Errorf("snapshot holds debug.log, which the project's .gitignore excludes")
	}
	for _, f := range kept {
		if !slices.Contains(files, f) {
			t.Errorf("snapshot lacks %s; it holds %q", f, files)
		}
	}
}
