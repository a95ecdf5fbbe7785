package acp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

func TestSplitPrompt(t *testing.T) {
	dir := t.TempDir()
	linked := filepath.Join(dir, "src", "a.go")
	if err := os.MkdirAll(filepath.Dir(linked), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(linked, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	png := base64.StdEncoding.EncodeToString([]byte{0x89, 'P', 'N', 'G'})
	mt := "text/plain"
	cases := []struct {
		name     string
		blocks   []sdk.ContentBlock
		text     string
		context  []string // text of context parts, or the MIME type of inline data
		errMatch string
	}{
		{name: "text", blocks: []sdk.ContentBlock{sdk.TextBlock("fix "), sdk.TextBlock("it")}, text: "fix it"},
		{name: "image", blocks: []sdk.ContentBlock{sdk.TextBlock("look"), sdk.ImageBlock(png, "image/png")}, text: "look", context: []string{"image/png"}},
		{name: "audio", blocks: []sdk.ContentBlock{sdk.AudioBlock(png, "audio/wav")}, context: []string{"audio/wav"}},
		{name: "bad base64", blocks: []sdk.ContentBlock{sdk.ImageBlock("%%%", "image/png")}, errMatch: "prompt[0] (image)"},
		{name: "unknown type", blocks: []sdk.ContentBlock{sdk.TextBlock("x"), {}}, errMatch: "prompt[1]: unsupported content block type"},
		{name: "unknown type decoded as text", blocks: []sdk.ContentBlock{{Text: &sdk.ContentBlockText{Type: "video"}}}, errMatch: `prompt[0]: unsupported content block type "video"`},
		{name: "embedded text", blocks: []sdk.ContentBlock{sdk.TextBlock("explain"), sdk.ResourceBlock(sdk.EmbeddedResourceResource{
			TextResourceContents: &sdk.TextResourceContents{Uri: "file://" + linked, Text: "unsaved buffer", MimeType: &mt}})},
			text: "explain", context: []string{"\n--- Content from referenced files ---\nContent from @src/a.go:\nunsaved buffer\n--- End of content ---"}},
		{name: "embedded blob", blocks: []sdk.ContentBlock{sdk.ResourceBlock(sdk.EmbeddedResourceResource{
			BlobResourceContents: &sdk.BlobResourceContents{Uri: "file:///x.png", Blob: png}})}, context: []string{"application/octet-stream"}},
		{name: "file link", blocks: []sdk.ContentBlock{sdk.TextBlock("see "), sdk.ResourceLinkBlock("a.go", "file://"+linked)},
			text: "see ", context: []string{"\n--- Content from referenced files ---\nContent from @src/a.go:\npackage a\n\n--- End of content ---"}},
		{name: "directory link", blocks: []sdk.ContentBlock{sdk.TextBlock("see "), sdk.ResourceLinkBlock("src", "file://"+filepath.Dir(linked))}, text: "see @src"},
		{name: "web link", blocks: []sdk.ContentBlock{sdk.ResourceLinkBlock("docs", "https://example.com/d")}, text: "[docs](https://example.com/d)"},
		{name: "missing file", blocks: []sdk.ContentBlock{sdk.ResourceLinkBlock("x", "file://"+dir+"/missing")}, errMatch: "prompt[0] (resource_link"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := splitPrompt(c.blocks, dir)
			if c.errMatch != "" {
				if err == nil || !strings.Contains(err.Error(), c.errMatch) {
					t.Fatalf("error %v, want one naming %q", err, c.errMatch)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if in.text != c.text {
				t.Errorf("text %q, want %q", in.text, c.text)
			}
			var got []string
			for _, p := range in.context {
				if p.InlineData != nil {
					got = append(got, p.InlineData.MIMEType)
				} else {
					got = append(got, p.Text)
				}
			}
			if strings.Join(got, "|") != strings.Join(c.context, "|") {
				t.Errorf("context %q, want %q", got, c.context)
			}
		})
	}
}

// FuzzSplitPrompt feeds arbitrary prompt JSON through the SDK's decoding
// and splitPrompt: errors are fine, panics are not.
func FuzzSplitPrompt(f *testing.F) {
	f.Add(`[{"type":"text","text":"hi"}]`)
	f.Add(`[{"type":"image","data":"iVBO","mimeType":"image/png"}]`)
	f.Add(`[{"type":"resource","resource":{"uri":"file:///a","text":"x"}}]`)
	f.Add(`[{"type":"resource_link","name":"a","uri":"file:///nonexistent"}]`)
	f.Add(`[{"type":"resource","resource":{"uri":"x","blob":"!!"}}]`)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, s string) {
		var blocks []sdk.ContentBlock
		if json.Unmarshal([]byte(s), &blocks) != nil {
			return
		}
		_, _ = splitPrompt(blocks, dir)
	})
}

// FuzzFilterLines checks that every input line either reaches the
// connection as one JSON object line or is answered with one error line.
func FuzzFilterLines(f *testing.F) {
	f.Add("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n")
	f.Add("not json\n{}\n[1]\n\n")
	f.Add("{\"a\":\n")
	f.Fuzz(func(t *testing.T, s string) {
		var errs bytes.Buffer
		r := filterLines(strings.NewReader(s), &errs, &bytes.Buffer{}, nil, nil)
		var passed bytes.Buffer
		if _, err := passed.ReadFrom(r); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(passed.String(), "\n"), "\n") {
			if l == "" {
				continue
			}
			var m map[string]json.RawMessage
			if json.Unmarshal([]byte(l), &m) != nil {
				t.Errorf("passed a line that is not an object: %q", l)
			}
		}
		for _, l := range strings.Split(strings.TrimSuffix(errs.String(), "\n"), "\n") {
			if l != "" && !json.Valid([]byte(l)) {
				t.Errorf("error line is not JSON: %q", l)
			}
		}
	})
}

func TestEnvDelta(t *testing.T) {
	got := envDelta([]string{"PATH=/bin", "HOME=/h", "FROM_DOTENV=1", "GEMINI_CLI=1", "broken"}, []string{"PATH=/bin", "HOME=/other"})
	want := []sdk.EnvVariable{{Name: "HOME", Value: "/h"}, {Name: "FROM_DOTENV", Value: "1"}, {Name: "GEMINI_CLI", Value: "1"}}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("envDelta = %s, want %s", g, w)
	}
}

// TestFilterLinesTooLarge: a message longer than the SDK reads is answered
// here, and the lines after it still reach the connection: a request gets
// an error response, a response to castor's own request becomes an error
// for the SDK, a notification is dropped.
func TestFilterLinesTooLarge(t *testing.T) {
	big := strings.Repeat("x", maxMessage)
	in := `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"text":"` + big + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"r1","result":{"content":"` + big + `"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"pad":"` + big + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{}}` + "\n"
	var out, log bytes.Buffer
	r := filterLines(strings.NewReader(in), &out, &log, nil, nil)
	var passed bytes.Buffer
	if _, err := passed.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	wantPassed := `{"error":{"code":-32603,"message":"message too large: ` + strconv.Itoa(maxMessage+len(`{"jsonrpc":"2.0","id":"r1","result":{"content":""}}`)) + ` bytes, the limit is ` + strconv.Itoa(maxMessage) + `"},"id":"r1","jsonrpc":"2.0"}` + "\n" +
		`{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{}}` + "\n"
	if passed.String() != wantPassed {
		t.Errorf("passed on:\n%s\nwant:\n%s", passed.String(), wantPassed)
	}
	var answer struct {
		ID    int `json:"id"`
		Error struct {
			Code int `json:"code"`
			Data struct {
				Error string `json:"error"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out.Bytes(), &answer); err != nil || answer.ID != 7 || answer.Error.Code != -32600 || !strings.Contains(answer.Error.Data.Error, "too large") {
		t.Errorf("answer %s (%v)", out.String(), err)
	}
	if n := strings.Count(log.String(), "refused"); n != 3 {
		t.Errorf("log:\n%s", log.String())
	}
}
