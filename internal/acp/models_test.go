package acp

import (
	"encoding/json"
	"testing"
)

func TestInbound(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":3,"method":"session/set_model","params":{"sessionId":"s","modelId":"m"}}`,
			`{"id":3,"jsonrpc":"2.0","method":"_castor/session/set_model","params":{"sessionId":"s","modelId":"m"}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{}}`, `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{}}`},
		{`{"jsonrpc":"2.0","id":5,"result":{}}`, `{"jsonrpc":"2.0","id":5,"result":{}}`},
	} {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tt.in), &obj); err != nil {
			t.Fatal(err)
		}
		if got := string(inbound(obj, []byte(tt.in))); got != tt.want {
			t.Errorf("inbound(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestWithModels(t *testing.T) {
	opts := `"configOptions":[{"type":"select","id":"mode","name":"Mode","currentValue":"default","options":[{"value":"default","name":"Default"}]},` +
		`{"type":"select","id":"model","name":"Model","currentValue":"auto","options":[{"value":"auto","name":"auto"},{"value":"m2","name":"M2","description":"second"}]}]`
	models := `"models":{"availableModels":[{"modelId":"auto","name":"auto"},{"modelId":"m2","name":"M2","description":"second"}],"currentModelId":"auto"}`
	for _, tt := range []struct{ name, in, want string }{
		{"session/new answer",
			`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s",` + opts + `,"modes":{"currentModeId":"default","availableModes":[]}}}` + "\n",
			`{"id":1,"jsonrpc":"2.0","result":{` + opts + `,` + models + `,"modes":{"currentModeId":"default","availableModes":[]},"sessionId":"s"}}` + "\n"},
		{"set_config_option answer (no modes)",
			`{"jsonrpc":"2.0","id":2,"result":{` + opts + `}}` + "\n", ""},
		{"a notification",
			`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\"modes\" \"configOptions\""}}}}` + "\n", ""},
		{"no model option",
			`{"jsonrpc":"2.0","id":3,"result":{"configOptions":[],"modes":{}}}` + "\n", ""},
		{"not JSON", `{"modes" "configOptions"` + "\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == "" {
				want = tt.in
			}
			if got := string(withModels([]byte(tt.in))); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}
