package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServesScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.responses")
	line := `{"method":"generateContent","response":{"candidates":[{"content":{"role":"model","parts":[{"text":"scripted"}]},"finishReason":"STOP"}]}}` + "\n"
	if err := os.WriteFile(script, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"-strict", script}, outW, &stderr)
		outW.Close()
	}()
	url, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("url = %q", url)
	}
	resp, err := http.Post(url+"/v1beta/models/gemini-2.5-pro:generateContent", "application/json", strings.NewReader(`{"contents":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "scripted") || !strings.Contains(string(body), `"modelVersion":"gemini-fake"`) {
		t.Errorf("body = %s", body)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Errorf("exit code %d, stderr %s", c, stderr.String())
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"no script", nil, 2},
		{"bad flag", []string{"-nope", "x"}, 2},
		{"missing file", []string{filepath.Join(t.TempDir(), "absent")}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if got := run(context.Background(), tt.args, &out, &errb); got != tt.want {
				t.Errorf("exit %d, want %d (%s)", got, tt.want, errb.String())
			}
		})
	}
}
