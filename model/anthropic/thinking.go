package anthropic

import (
	"bytes"
	"encoding/json"

	"github.com/castor-dev/castor/model"
)

// The Messages API wants the thinking blocks of an assistant turn that
// called tools sent back with that turn, unchanged: text and signature,
// or a redacted block's data. The engine keeps no thought parts in its
// history, only thought signatures on the parts that carry one (as Gemini
// puts them), and the session file keeps those too. So the blocks that
// came before a text or tool_use block travel, packed, as the signature
// of the part made of that block, and are unpacked before it when the
// history is sent again.

// thinkingMark begins a packed signature, telling it from a Gemini one.
var thinkingMark = []byte(model.PackedSignaturePrefix + "anthropic.thinking:")

// packThinking is blocks as a thought signature; nil for none.
func packThinking(blocks []Block) []byte {
	if len(blocks) == 0 {
		return nil
	}
	raw, _ := json.Marshal(blocks)
	return append(append([]byte(nil), thinkingMark...), raw...)
}

// unpackThinking is the blocks a signature packs; none for a signature
// that is not ours (a Gemini model's, after a switch of model).
func unpackThinking(sig []byte) []Block {
	raw, ok := bytes.CutPrefix(sig, thinkingMark)
	if !ok {
		return nil
	}
	var blocks []Block
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	out := blocks[:0]
	for _, b := range blocks {
		switch {
		case b.Type == "thinking" && b.Thinking != nil && b.Signature != "":
			out = append(out, Block{Type: b.Type, Thinking: b.Thinking, Signature: b.Signature})
		case b.Type == "redacted_thinking" && b.Data != "":
			out = append(out, Block{Type: b.Type, Data: b.Data})
		}
	}
	return out
}
