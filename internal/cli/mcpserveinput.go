package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// parseGuard passes `castor mcp serve`'s stdin to the MCP SDK line by
// line, answering a line that is not a JSON object with JSON-RPC's parse
// error (-32700) and dropping it: the SDK would otherwise end the whole
// session on it, and the client would lose every call still running.
type parseGuard struct {
	in   *bufio.Reader
	out  io.Writer
	warn func(string)
	buf  []byte // the rest of the last line passed on
}

func newParseGuard(in io.Reader, out io.Writer, warn func(string)) *parseGuard {
	return &parseGuard{in: bufio.NewReader(in), out: out, warn: warn}
}

func (g *parseGuard) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		line, err := g.in.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var probe any
			if jerr := json.Unmarshal(t, &probe); jerr != nil || !isObjectOrBatch(probe) {
				msg := "not a JSON-RPC message"
				if jerr != nil {
					msg = jerr.Error()
				}
				g.warn(fmt.Sprintf("mcp serve: stdin: dropped a line that is not JSON-RPC (%s)", msg))
				resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "Parse error: " + msg}})
				if _, werr := g.out.Write(append(resp, '\n')); werr != nil {
					return 0, werr
				}
			} else {
				g.buf = line
			}
		}
		if err != nil {
			if len(g.buf) > 0 {
				break
			}
			return 0, err
		}
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

func (*parseGuard) Close() error { return nil }

func isObjectOrBatch(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}
