package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/tailscale/hujson"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/internal/version"
	"github.com/castor-dev/castor/mcp"
)

// newMCPCommand is `castor mcp add|remove|list|enable|disable`, which edit and show the
// mcpServers settings as `gemini mcp` does, with the same flags, messages
// and settings files.
func newMCPCommand(ctx context.Context, stdio IO) *cobra.Command {
	cmd := commandGroup("mcp", "Manage MCP servers")
	add := &cobra.Command{
		Use:   "add [options] <name> <commandOrUrl> [args...]",
		Short: "Add a server",
		// Options the command does not know are the server's own (npx -y),
		// so parsing is done by hand, as yargs' unknown-options-as-args does.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return mcpAdd(cmd, args, stdio)
		},
	}
	af := add.Flags()
	af.StringP("scope", "s", "project", "Configuration scope (user or project)")
	af.StringP("transport", "t", "stdio", "Transport type (stdio, sse, http); also --type")
	af.StringArrayP("env", "e", nil, "Set environment variables (e.g. -e KEY=value)")
	af.StringArrayP("header", "H", nil, `Set HTTP headers for SSE and HTTP transports (e.g. -H "X-Api-Key: abc123" -H "Authorization: Bearer abc123")`)
	af.String("timeout", "", "Set connection timeout in milliseconds")
	af.Bool("trust", false, "Trust the server (bypass all tool call confirmation prompts)")
	af.String("description", "", "Set the description for the server")
	af.StringSlice("include-tools", nil, "A comma-separated list of tools to include")
	af.StringSlice("exclude-tools", nil, "A comma-separated list of tools to exclude")

	var removeScope string
	remove := &cobra.Command{
		Use:   "remove [options] <name>",
		Short: "Remove a server",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return mcpRemove(args[0], removeScope, stdio)
		},
	}
	remove.Flags().StringVarP(&removeScope, "scope", "s", "project", "Configuration scope (user or project)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List all configured MCP servers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return mcpList(ctx, stdio)
		},
	}
	cmd.AddCommand(add, remove, list, enableCommand(true, stdio), enableCommand(false, stdio), newMCPServeCommand(ctx, stdio))
	return cmd
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < n {
			return fmt.Errorf("Not enough non-option arguments: got %d, need at least %d", len(args), n)
		}
		if len(args) > n {
			return fmt.Errorf("Unknown arguments: %s", strings.Join(args[n:], ", "))
		}
		return nil
	}
}

// addOptions are the parsed options of `mcp add`.
type addOptions struct {
	scope, transport string
	env, headers     []string
	timeout          *json.Number
	trust            *bool
	description      *string
	include, exclude []string
	help             bool
}

// Usage errors are plain errors (exit 1), as yargs' validation failures
// exit 1 in Gemini CLI.

// parseAddArgs parses `mcp add` arguments the way Gemini CLI's yargs
// setup does: known options anywhere (--opt value or --opt=value), "--"
// ending options, and any other option-looking word taken as a positional
// argument for the server.
func parseAddArgs(args []string) (o addOptions, pos []string, err error) {
	o.scope, o.transport = "project", "stdio"
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		long := strings.HasPrefix(a, "--")
		next := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("Not enough arguments following: %s", name)
			}
			i++
			return args[i], nil
		}
		key := name
		if !long {
			switch name {
			case "s":
				key = "scope"
			case "t":
				key = "transport"
			case "e":
				key = "env"
			case "H":
				key = "header"
			case "h":
				key = "help"
			default:
				key = "-" + name // unknown short option: the server's
			}
		}
		var v string
		switch key {
		case "scope", "transport", "type", "env", "header", "timeout", "description", "include-tools", "exclude-tools":
			if v, err = next(); err != nil {
				return o, nil, err
			}
		}
		switch key {
		case "scope":
			o.scope = v
		case "transport", "type":
			o.transport = v
		case "env":
			o.env = append(o.env, v)
		case "header":
			o.headers = append(o.headers, v)
		case "timeout":
			n := json.Number(strings.TrimSpace(v))
			if _, err := n.Float64(); err != nil {
				return o, nil, fmt.Errorf("Invalid value for --timeout: %q is not a number", v)
			}
			o.timeout = &n
		case "description":
			o.description = &v
		case "include-tools":
			o.include = append(o.include, splitList(v)...)
		case "exclude-tools":
			o.exclude = append(o.exclude, splitList(v)...)
		case "trust", "no-trust":
			b := key == "trust"
			if hasVal {
				b = val != "false"
			} else if i+1 < len(args) && (args[i+1] == "true" || args[i+1] == "false") {
				i++
				b = args[i] == "true"
			}
			if key == "no-trust" {
				b = !b
			}
			o.trust = &b
		case "help":
			o.help = true
		default:
			pos = append(pos, a)
		}
	}
	if o.scope != "user" && o.scope != "project" {
		return o, nil, fmt.Errorf("Invalid values:\n  Argument: scope, Given: %q, Choices: \"user\", \"project\"", o.scope)
	}
	switch o.transport {
	case "stdio", "sse", "http":
	default:
		return o, nil, fmt.Errorf("Invalid values:\n  Argument: transport, Given: %q, Choices: \"stdio\", \"sse\", \"http\"", o.transport)
	}
	return o, pos, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ordered is a JSON object that keeps its keys in insertion order, so that
// a new server entry reads like the one Gemini CLI writes.
type ordered []member

type member struct {
	key string
	val any
}

func (o *ordered) set(k string, v any) { *o = append(*o, member{k, v}) }

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshalNoEscape(kv.val)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// newServerEntry builds the mcpServers entry `gemini mcp add` writes, field
// for field and in its order.
func newServerEntry(o addOptions, target string, args []string) ordered {
	var e ordered
	common := func() {
		if o.timeout != nil {
			e.set("timeout", *o.timeout)
		}
		if o.trust != nil {
			e.set("trust", *o.trust)
		}
		if o.description != nil {
			e.set("description", *o.description)
		}
		if o.include != nil {
			e.set("includeTools", o.include)
		}
		if o.exclude != nil {
			e.set("excludeTools", o.exclude)
		}
	}
	switch o.transport {
	case "sse", "http":
		e.set("url", target)
		e.set("type", o.transport)
		if o.headers != nil {
			h := ordered{}
			for _, kv := range o.headers {
				k, v, _ := strings.Cut(kv, ":")
				if k, v = strings.TrimSpace(k), strings.TrimSpace(v); k != "" && v != "" {
					h.set(k, v)
				}
			}
			e.set("headers", h)
		}
	default:
		e.set("command", target)
		if args == nil {
			args = []string{}
		}
		e.set("args", args)
		if o.env != nil {
			env := ordered{}
			for _, kv := range o.env {
				// Gemini CLI keeps only the text up to a second "="; Castor
				// keeps the whole value, which is what the user meant.
				if k, v, ok := strings.Cut(kv, "="); ok && k != "" && v != "" {
					env.set(k, v)
				}
			}
			e.set("env", env)
		}
	}
	common()
	return e
}

// settingsPath returns the settings file of a scope and whether the
// project file is the user file (the working directory is home).
func settingsPath(scope string) (path string, inHome bool, err error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false, err
	}
	user := config.ResolveHome(nil).SettingsPath()
	project := config.WorkspaceSettingsPath(wd)
	inHome = filepath.Clean(user) == filepath.Clean(project)
	if scope == "user" {
		return user, inHome, nil
	}
	return project, inHome, nil
}

// readServers returns the mcpServers object of a settings file as written
// (no $VAR expansion), with its members in file order, and the file's
// parsed tree; a missing file is an empty one.
func readServers(path string) (*hujson.Value, *hujson.Object, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if _, err := config.ParseJSONC(data); err != nil {
		return nil, nil, &config.FileError{Path: path, Err: err}
	}
	root, err := hujson.Parse(data)
	if err != nil {
		return nil, nil, err
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		return nil, nil, fmt.Errorf("Error in %s: Settings file is not a valid JSON object.", path)
	}
	var servers *hujson.Object
	for i := range obj.Members {
		if obj.Members[i].Name.Value.(hujson.Literal).String() == "mcpServers" {
			servers, _ = obj.Members[i].Value.Value.(*hujson.Object)
		}
	}
	return &root, servers, nil
}

func memberIndex(obj *hujson.Object, name string) int {
	idx := -1
	if obj == nil {
		return idx
	}
	for i := range obj.Members {
		if obj.Members[i].Name.Value.(hujson.Literal).String() == name {
			idx = i
		}
	}
	return idx
}

func mcpAdd(cmd *cobra.Command, args []string, stdio IO) error {
	o, pos, err := parseAddArgs(args)
	if err != nil {
		return err
	}
	if o.help {
		return cmd.Help()
	}
	if len(pos) < 2 {
		return fmt.Errorf("Not enough non-option arguments: got %d, need at least 2", len(pos))
	}
	name, target, serverArgs := pos[0], pos[1], pos[2:]
	for _, w := range addWarnings(o) {
		fmt.Fprintf(stdio.Stderr, "Warning: %s\n", w)
	}
	path, inHome, err := settingsPath(o.scope)
	if err != nil {
		return err
	}
	if o.scope == "project" && inHome {
		return errors.New("Please use --scope user to edit settings in the home directory.")
	}
	_, servers, err := readServers(path)
	if err != nil {
		return err
	}
	existing := memberIndex(servers, name) >= 0
	if existing {
		fmt.Fprintf(stdio.Stdout, "MCP server %q is already configured within %s settings.\n", name, o.scope)
	}
	if err := config.UpdateFilePath(path, []string{"mcpServers", name}, newServerEntry(o, target, serverArgs)); err != nil {
		return err
	}
	if existing {
		fmt.Fprintf(stdio.Stdout, "MCP server %q updated in %s settings.\n", name, o.scope)
	} else {
		fmt.Fprintf(stdio.Stdout, "MCP server %q added to %s settings. (%s)\n", name, o.scope, o.transport)
	}
	return nil
}

func mcpRemove(name, scope string, stdio IO) error {
	if scope != "user" && scope != "project" {
		return fmt.Errorf("Invalid values:\n  Argument: scope, Given: %q, Choices: \"user\", \"project\"", scope)
	}
	path, _, err := settingsPath(scope)
	if err != nil {
		return err
	}
	_, servers, err := readServers(path)
	if err != nil {
		return err
	}
	i := memberIndex(servers, name)
	if i < 0 {
		fmt.Fprintf(stdio.Stdout, "Server %q not found in %s settings.\n", name, scope)
		return nil
	}
	// Drop every member of that name (JSON keeps the last duplicate).
	kept := servers.Members[:0]
	for _, m := range servers.Members {
		if m.Name.Value.(hujson.Literal).String() != name {
			kept = append(kept, m)
		}
	}
	servers.Members = kept
	// Rewrite mcpServers as plain JSON in its original order, as Gemini CLI
	// rewrites the whole object (comments inside it do not survive).
	v := hujson.Value{Value: servers}
	v.Standardize()
	if err := config.UpdateFilePath(path, []string{"mcpServers"}, json.RawMessage(v.Pack())); err != nil {
		return err
	}
	fmt.Fprintf(stdio.Stdout, "Server %q removed from %s settings.\n", name, scope)
	return nil
}

func mcpList(ctx context.Context, stdio IO) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	st, err := config.Load(config.LoadOptions{Workspace: wd})
	if err != nil {
		return err
	}
	trusted := st.Trust.IsTrusted() || !st.Trust.FolderTrustEnabled
	if !trusted {
		// Show the project's servers too, as disabled: load as if trusted.
		st, err = config.Load(config.LoadOptions{Workspace: wd, Env: func(k string) (string, bool) {
			if k == config.EnvTrustWorkspace {
				return "true", true
			}
			return os.LookupEnv(k)
		}})
		if err != nil {
			return err
		}
	}
	servers, errs := mcp.ParseServers(st.MCPServers)
	// Names, commands and URLs come from settings, which a cloned
	// project can supply: they are cleaned of terminal control sequences.
	for _, e := range errs {
		fmt.Fprintf(stdio.Stderr, "Warning: %s\n", termtext.String(e.Error()))
	}
	extServers, warnings := extensionServers(st, wd, trusted, servers) // mcpextlist.go
	servers = append(servers, extServers...)
	for _, w := range warnings {
		fmt.Fprintf(stdio.Stderr, "Warning: %s\n", termtext.String(w))
	}
	if len(servers) == 0 {
		if len(errs) == 0 {
			fmt.Fprintln(stdio.Stdout, "No MCP servers configured.")
		}
		return nil
	}
	if !trusted {
		fmt.Fprint(stdio.Stdout, "Warning: MCP servers are configured but disabled because this folder is untrusted.\n"+
			"User-level servers are also suppressed in untrusted folders to prevent accidental side-effects.\n\n")
	}
	filter := mcp.Filter{Allowed: st.MCP.Allowed, Excluded: st.MCP.Excluded}
	filter.Disabled, err = mcp.LoadDisabled(enablementPath())
	if err != nil {
		fmt.Fprintf(stdio.Stderr, "Warning: %s\n", err)
	}
	fmt.Fprint(stdio.Stdout, "Configured MCP servers:\n\n")

	// Probe concurrently, print in order.
	lines := make([]string, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := serverState(ctx, s, filter, trusted)
			lines[i] = listLine(s, st) + failureLines(err)
		}()
	}
	wg.Wait()
	for _, l := range lines {
		fmt.Fprintln(stdio.Stdout, termtext.String(l))
	}
	return nil
}

// serverState is the status `mcp list` shows for one server, and why a
// server that should connect did not.
func serverState(ctx context.Context, s *mcp.ServerConfig, filter mcp.Filter, trusted bool) (mcp.Status, error) {
	if filter.IsDisabled(s.Name) {
		// Switched off by `mcp disable`, not by settings.
		return mcp.StatusDisabled, nil
	}
	if blocked, _ := filter.Blocked(s.Name); blocked {
		return mcp.StatusBlocked, nil
	}
	if !trusted {
		return mcp.StatusDisabled, nil
	}
	err := mcp.Probe(ctx, s, mcp.Options{
		ClientName:    "castor",
		ClientVersion: version.Version,
		Debug:         func(string) {},
		// A server signed in to (by Castor or Gemini CLI) connects with
		// its stored token, as the session does: without it, `mcp list`
		// called it disconnected.
		OAuth: &mcp.OAuthOptions{TokenFile: filepath.Join(config.ResolveHome(nil).Dir, mcp.TokenFileName)},
	})
	if err != nil {
		return mcp.StatusDisconnected, err
	}
	return mcp.StatusConnected, nil
}

// failureLines says, below a server's line of `mcp list`, why it did not
// connect: Gemini CLI says only "Disconnected", which leaves the user to
// guess between a typo, a crash and a server that logs to stdout.
func failureLines(err error) string {
	if err == nil {
		return ""
	}
	text := err.Error()
	if f, ok := errors.AsType[*mcp.Failure](err); ok {
		// The line above names the server and its command or URL.
		text = f.Details()
	}
	return "\n    " + strings.ReplaceAll(text, "\n", "\n    ")
}

// listLine is one line of `mcp list`, as Gemini CLI prints it.
func listLine(s *mcp.ServerConfig, st mcp.Status) string {
	indicator, text := "✗", "Disconnected"
	switch st {
	case mcp.StatusConnected:
		indicator, text = "✓", "Connected"
	case mcp.StatusConnecting:
		indicator, text = "…", "Connecting"
	case mcp.StatusBlocked:
		indicator, text = "⛔", "Blocked"
	case mcp.StatusDisabled:
		indicator, text = "○", "Disabled"
	}
	info := s.Name
	if s.Extension != "" {
		info += " (from " + s.Extension + ")"
	}
	info += ": "
	switch {
	case s.HTTPURL != "":
		info += s.HTTPURL + " (http)"
	case s.URL != "":
		t := s.Type
		if t == "" {
			t = "http"
		}
		info += s.URL + " (" + t + ")"
	case s.Command != "":
		info += s.Command + " " + strings.Join(s.Args, " ") + " (stdio)"
	}
	return indicator + " " + info + " - " + text
}
