package acp

// ACP's unstable model API, which Gemini CLI 0.61 speaks and editors built
// against its list use: a `models` state in the answers to session/new,
// session/load and session/resume, and the session/set_model request.
// acp-go-sdk v0.13.5, the newest version the module proxy serves, has
// neither (the model is a session config option there), so the wire is
// adapted around it: session/set_model is renamed on its way in to an
// extension method, which the SDK hands to HandleExtensionMethod, and the
// `models` state is added on the way out from the answer's own model
// config option, so the two never disagree.

import (
	"bytes"
	"context"
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"
)

const (
	// methodSetModel is the unstable request; extSetModel the extension
	// method it reaches the SDK as.
	methodSetModel = "session/set_model"
	extSetModel    = "_castor/session/set_model"
)

// inbound renames session/set_model to its extension method; other
// requests pass unchanged. obj is the request line t parsed.
func inbound(obj map[string]json.RawMessage, t []byte) []byte {
	var method string
	if json.Unmarshal(obj["method"], &method) != nil || method != methodSetModel {
		return t
	}
	obj["method"], _ = json.Marshal(extSetModel)
	b, err := json.Marshal(obj)
	if err != nil {
		return t
	}
	return b
}

// modelInfo and modelState are the unstable API's model list.
type modelInfo struct {
	ModelID     string `json:"modelId"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type modelState struct {
	AvailableModels []modelInfo `json:"availableModels"`
	CurrentModelID  string      `json:"currentModelId"`
}

// withModels adds the `models` state to an answer to session/new,
// session/load or session/resume (a result holding modes and config
// options), built from its model config option. Any other line, or one
// it cannot read, is returned as it is.
func withModels(p []byte) []byte {
	if !bytes.Contains(p, []byte(`"configOptions"`)) || !bytes.Contains(p, []byte(`"modes"`)) {
		return p // streamed updates: not parsed again
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(p, &msg) != nil || msg["result"] == nil {
		return p
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(msg["result"], &res) != nil || res["modes"] == nil || res["configOptions"] == nil || res["models"] != nil {
		return p
	}
	var opts []sdk.SessionConfigOption
	if json.Unmarshal(res["configOptions"], &opts) != nil {
		return p
	}
	for _, o := range opts {
		sel := o.Select
		if sel == nil || sel.Id != configModel || sel.Options.Ungrouped == nil {
			continue
		}
		st := modelState{CurrentModelID: string(sel.CurrentValue), AvailableModels: []modelInfo{}}
		for _, v := range *sel.Options.Ungrouped {
			mi := modelInfo{ModelID: string(v.Value), Name: v.Name}
			if v.Description != nil {
				mi.Description = *v.Description
			}
			st.AvailableModels = append(st.AvailableModels, mi)
		}
		res["models"], _ = json.Marshal(st)
		var err error
		if msg["result"], err = json.Marshal(res); err != nil {
			return p
		}
		b, err := json.Marshal(msg)
		if err != nil {
			return p
		}
		return append(b, '\n')
	}
	return p
}

// setModelRequest is session/set_model's params.
type setModelRequest struct {
	SessionID sdk.SessionId `json:"sessionId"`
	ModelID   string        `json:"modelId"`
}

// HandleExtensionMethod implements sdk.ExtensionMethodHandler: it answers
// session/set_model (renamed by inbound) as Gemini CLI does, with an empty
// result, the model in use from the next call on (the model config option
// reads it too). Other extension methods are unknown.
func (s *Server) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	if method != extSetModel {
		return nil, sdk.NewMethodNotFound(method)
	}
	var p setModelRequest
	if err := json.Unmarshal(params, &p); err != nil || p.ModelID == "" {
		msg := "modelId is required"
		if err != nil {
			msg = err.Error()
		}
		return nil, sdk.NewInvalidParams(map[string]any{"error": msg})
	}
	ss, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	ss.a.Session.SetModel(p.ModelID)
	return map[string]any{}, nil
}
