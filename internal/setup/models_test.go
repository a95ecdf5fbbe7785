package setup

import (
	"testing"

	"github.com/castor-dev/castor/internal/routing"
	"github.com/castor-dev/castor/model"
)

func TestSessionModel(t *testing.T) {
	network := Options{}
	replay := Options{FakeResponses: "x.jsonl"}
	tests := []struct {
		name         string
		o            Options
		engine, chat string
		wrapped      bool
	}{
		{"auto", network, "auto", "gemini-3.1-pro-preview", false},
		{"pro", network, "pro", "gemini-3.1-pro-preview", false},
		{"auto", replay, "auto", "gemini-3.1-pro-preview", true},
		{"flash", replay, "flash", "gemini-3.8-flash", true},
		{"gemini-2.5-pro", replay, "gemini-2.5-pro", "gemini-2.5-pro", false},
	}
	for _, tt := range tests {
		var base model.Model
		c, e, ch := sessionModel(base, tt.name, tt.o)
		_, isRouter := c.(*routing.Router)
		if e != tt.engine || ch != tt.chat || isRouter != tt.wrapped {
			t.Errorf("sessionModel(%q, %+v) = %T, %q, %q", tt.name, tt.o, c, e, ch)
		}
	}
}
