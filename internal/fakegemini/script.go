package fakegemini

import (
	"io"

	"github.com/castor-dev/castor/model/fake"
)

// LoadScript reads a Gemini CLI --fake-responses JSONL file (see package
// model/fake) into replies, so one golden file drives both Gemini CLI and a
// Castor binary pointed at this server. Each reply is restricted to the
// RPC its line was recorded for; in the default lenient mode a stream
// request still falls back to a unary line and the reverse.
func LoadScript(path string) ([]Reply, error) {
	entries, err := fake.Load(path)
	if err != nil {
		return nil, err
	}
	return repliesOf(entries), nil
}

// ParseScript is LoadScript reading from r; name labels errors.
func ParseScript(r io.Reader, name string) ([]Reply, error) {
	entries, err := fake.Parse(r, name)
	if err != nil {
		return nil, err
	}
	return repliesOf(entries), nil
}

func repliesOf(entries []fake.Entry) []Reply {
	out := make([]Reply, 0, len(entries))
	for _, e := range entries {
		switch e.Method {
		case fake.MethodGenerateContent:
			out = append(out, Chunks(e.Response).For(RPCGenerateContent))
		case fake.MethodGenerateContentStream:
			out = append(out, Chunks(e.Stream...).For(RPCStreamGenerateContent))
		case fake.MethodCountTokens:
			out = append(out, Tokens(e.TotalTokens))
		}
	}
	return out
}
