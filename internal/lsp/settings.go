package lsp

import (
	"errors"
	"fmt"
	"time"

	"github.com/castor-dev/castor/config"
)

// Settings are the lsp.* settings as a session uses them.
type Settings struct {
	// Off is lsp.enabled false: no server runs.
	Off     bool
	Servers []ServerConfig
	// Wait is lsp.diagnosticsTimeout (DefaultWait when unset).
	Wait time.Duration
}

// FromSettings reads lsp.enabled, lsp.servers over the defaults and
// lsp.diagnosticsTimeout; errors name the file and the key.
func FromSettings(st *config.Settings) (Settings, error) {
	out, err := fromSettings(st)
	if err != nil {
		if f := st.FileOf("lsp", "servers"); f != "" {
			err = fmt.Errorf("%s: %w", f, err)
		}
	}
	return out, err
}

func fromSettings(st *config.Settings) (Settings, error) {
	out := Settings{Wait: DefaultWait}
	if on, ok := st.GetBool("lsp.enabled"); ok && !on {
		out.Off = true
		return out, nil
	}
	var raw map[string]any
	if v, ok := st.Get("lsp.servers"); ok && v != nil {
		m, isObj := v.(map[string]any)
		if !isObj {
			return out, errors.New(`key "lsp.servers" must be an object`)
		}
		raw = m
	}
	servers, err := ParseServers(raw)
	if err != nil {
		return out, err
	}
	out.Servers = servers
	if ms, ok := st.GetNumber("lsp.diagnosticsTimeout"); ok && ms > 0 {
		out.Wait = time.Duration(ms * float64(time.Millisecond))
	}
	return out, nil
}
