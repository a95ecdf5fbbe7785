package setup

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/tool"
)

// Gemini CLI 0.61 loads a subfolder's GEMINI.md when a tool first touches
// that folder ("just in time"), instead of scanning every subfolder at
// start, and appends it to the tool's output between these lines.
const (
	jitPrefix = "\n\n--- Newly Discovered Project Context ---\n"
	jitSuffix = "\n--- End Project Context ---"
)

// jitTools are the tools whose paths bring in subfolder memory, with the
// arguments naming those paths (Gemini CLI's "high-intent" tools).
var jitTools = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		"read_file":      {"file_path", "absolute_path"},
		"list_directory": {"dir_path", "path"},
		"write_file":     {"file_path"},
		"replace":        {"file_path"},
		"smart_edit":     {"file_path"},
	}
}}

// jitEnabled reads experimental.jitContext (Gemini CLI's setting; on
// unless set to false): on, subfolder memory arrives with tool output and
// is not scanned for at start.
func jitEnabled(st *config.Settings) bool {
	on, ok := st.GetBool("experimental.jitContext")
	return !ok || on
}

// jitMemory is the session's memory as the JIT wrapper sees it; the
// memory is loaded after the tools are built, and again after
// save_memory, so it is swapped in.
type jitMemory struct {
	mem  atomic.Pointer[config.Memory]
	root string
	warn func(string)
}

func (j *jitMemory) set(m *config.Memory) {
	if j != nil && m != nil {
		j.mem.Store(m)
	}
}

// context returns the not yet loaded context files for the paths.
func (j *jitMemory) context(paths []string) string {
	m := j.mem.Load()
	if m == nil {
		return ""
	}
	var blocks []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(j.root, p)
		}
		block, warnings := m.ForPath(p)
		for _, w := range warnings {
			j.warn(w)
		}
		if block != "" {
			blocks = append(blocks, block)
		}
	}
	return strings.Join(blocks, "\n\n")
}

// withJIT wraps t so that its successful results carry newly found
// subfolder memory, when t is one of jitTools.
func withJIT(t tool.Tool, j *jitMemory) tool.Tool {
	params, ok := jitTools.Get()[t.Name()]
	if !ok || j == nil {
		return t
	}
	return &jitTool{Tool: t, params: params, j: j}
}

// jitTool is a tool whose results get subfolder memory appended. It
// forwards the optional interfaces the registry and scheduler look for
// (tool.Aliased, tool.ArgNormalizer, and tool.Modifiable on its calls); an
// optional interface added to these tools or their calls later must be
// forwarded here too.
type jitTool struct {
	tool.Tool
	params []string
	j      *jitMemory
}

// Aliases forwards tool.Aliased.
func (t *jitTool) Aliases() []string {
	if a, ok := t.Tool.(tool.Aliased); ok {
		return a.Aliases()
	}
	return nil
}

// NormalizeArgs forwards tool.ArgNormalizer.
func (t *jitTool) NormalizeArgs(args map[string]any) map[string]any {
	if n, ok := t.Tool.(tool.ArgNormalizer); ok {
		return n.NormalizeArgs(args)
	}
	return args
}

// Build builds the inner call and remembers the paths it names.
func (t *jitTool) Build(args map[string]any) (tool.Call, error) {
	c, err := t.Tool.Build(args)
	if err != nil || c == nil {
		return c, err
	}
	var paths []string
	for _, p := range t.params {
		if s, ok := args[p].(string); ok && strings.TrimSpace(s) != "" {
			paths = append(paths, s)
			break
		}
	}
	if len(paths) == 0 {
		return c, nil
	}
	return &jitCall{Call: c, paths: paths, j: t.j}, nil
}

type jitCall struct {
	tool.Call
	paths []string
	j     *jitMemory
}

// ApplyUserContent forwards tool.Modifiable (edits the user changed).
func (c *jitCall) ApplyUserContent(newContent string) {
	if m, ok := c.Call.(tool.Modifiable); ok {
		m.ApplyUserContent(newContent)
	}
}

// Execute runs the call and appends the memory its paths bring in.
func (c *jitCall) Execute(ctx context.Context, out func(string)) *tool.Result {
	res := c.Call.Execute(ctx, out)
	if res == nil || res.Error != nil {
		return res
	}
	extra := c.j.context(c.paths)
	if extra == "" {
		return res
	}
	cp := *res
	switch {
	case cp.LLMPart != nil:
		cp.LLMParts = []*genai.Part{cp.LLMPart, {Text: jitPrefix[2:] + extra + jitSuffix}}
		cp.LLMPart = nil
	case cp.LLMParts != nil:
		cp.LLMParts = append(append([]*genai.Part(nil), cp.LLMParts...), &genai.Part{Text: jitPrefix[2:] + extra + jitSuffix})
	default:
		cp.LLMText += jitPrefix + extra + jitSuffix
	}
	return &cp
}
