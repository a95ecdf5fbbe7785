package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/castor-dev/castor/command"
)

func TestPromptsAsCommands(t *testing.T) {
	f := startHTTP(t)
	m, _ := startManager(t, Options{Servers: []*ServerConfig{{Name: "p", URL: f.streamURL, Type: "http"}}})
	reg := command.DefaultRegistry()
	for _, c := range m.Commands() {
		reg.Register(c)
	}
	c, _, _ := reg.Lookup("greet")
	if c == nil || c.Description != "Greets someone." || len(c.Arguments) != 1 || !c.Arguments[0].Required {
		t.Fatalf("greet command = %+v", c)
	}
	ctx := context.Background()
	res, err := reg.RunLine(ctx, `/greet --name="Ada Lovelace"`, command.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != command.ResultSubmitPrompt || res.Content != `"Say hello to Ada Lovelace."` {
		t.Errorf("result = %+v", res)
	}
	res, err = reg.RunLine(ctx, "greet Grace Hopper", command.Env{})
	if err != nil || res.Content != `"Say hello to Grace Hopper."` {
		t.Errorf("positional: %+v, %v", res, err)
	}
	res, err = reg.RunLine(ctx, "greet help", command.Env{})
	if err != nil || res.Kind != command.ResultMessage || !strings.Contains(res.Content, `Arguments for "greet"`) {
		t.Errorf("help: %+v, %v", res, err)
	}
}
