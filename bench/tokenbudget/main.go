// Command tokenbudget measures what Castor sends the model: the bytes of
// each model call split into tool declarations, system instruction and
// history (contents), and the total of a multi-tool run. It builds the
// castor command, serves a scripted model with the fake Gemini server on
// 127.0.0.1 and runs a headless prompt that lists a folder, reads a file,
// searches Go's source tree and globs it, the run the token-budget numbers
// of the README come from.
//
// Usage: go run ./bench/tokenbudget [-workspace DIR] [-castor BIN]
//
// The workspace defaults to $(go env GOROOT)/src; nothing in it is
// written.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/castor-dev/castor/internal/fakegemini"
)

func main() {
	ws := flag.String("workspace", "", "workspace to run in (default: GOROOT/src)")
	bin := flag.String("castor", "", "castor binary (default: built into a temp dir)")
	flag.Parse()
	if err := run(*ws, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "tokenbudget:", err)
		os.Exit(1)
	}
}

func run(ws, bin string) error {
	tmp, err := os.MkdirTemp("", "tokenbudget")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if ws == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %v", err)
		}
		ws = filepath.Join(strings.TrimSpace(string(out)), "src")
	}
	if bin == "" {
		bin = filepath.Join(tmp, "castor")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/castor-dev/castor/cmd/castor").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	srv := fakegemini.New()
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		return err
	}
	defer srv.Close()
	srv.Enqueue(
		fakegemini.Call("list_directory", map[string]any{"dir_path": ws, "path": ws}),
		fakegemini.Call("read_file", map[string]any{"file_path": filepath.Join(ws, "errors", "errors.go"), "absolute_path": filepath.Join(ws, "errors", "errors.go")}),
		fakegemini.Call("grep_search", map[string]any{"pattern": "NewReader", "dir_path": ws, "path": ws}),
		fakegemini.Call("glob", map[string]any{"pattern": "errors/*.go", "dir_path": ws, "path": ws}),
		fakegemini.Text("Done."),
	)
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	cmd := exec.Command(bin, "-y", "-o", "json", "-p", "Look around the Go source tree")
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=bench", "GOOGLE_GEMINI_BASE_URL=" + srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true"}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("castor: %v\n%s", err, out)
	}
	fmt.Printf("%-6s %-14s %12s %12s %12s %12s\n", "call", "kind", "declarations", "system", "history", "body")
	var total int
	for i, r := range srv.RouteRequests() {
		total += len(r.Body)
		d, s, h := sizes(r.Body)
		fmt.Printf("%-6d %-14s %12d %12d %12d %12d\n", i+1, "router", d, s, h, len(r.Body))
	}
	for i, r := range srv.Requests() {
		total += len(r.Body)
		d, s, h := sizes(r.Body)
		fmt.Printf("%-6d %-14s %12d %12d %12d %12d\n", i+1, "main", d, s, h, len(r.Body))
	}
	fmt.Printf("total bytes sent in the run: %d\n", total)
	if reqs := srv.Requests(); len(reqs) > 0 {
		fmt.Printf("\n%-28s %6s %6s\n", "declaration", "bytes", "desc")
		for _, d := range declarations(reqs[0].Body) {
			var x struct{ Name, Description string }
			json.Unmarshal(d, &x)
			fmt.Printf("%-28s %6d %6d\n", x.Name, len(d), len(x.Description))
		}
	}
	return nil
}

// declarations are the function declarations of a request body, as sent.
func declarations(body []byte) []json.RawMessage {
	var m struct {
		Tools []struct {
			FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if json.Unmarshal(body, &m) != nil || len(m.Tools) == 0 {
		return nil
	}
	return m.Tools[0].FunctionDeclarations
}

// sizes are the JSON bytes of a request body's tools, systemInstruction
// and contents.
func sizes(body []byte) (decls, system, history int) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return 0, 0, 0
	}
	return len(m["tools"]), len(m["systemInstruction"]), len(m["contents"])
}
