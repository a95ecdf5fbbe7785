package setup

import (
	"testing"

	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/model"
)

// TestSessionCost: a resumed session's prior spending is the total its
// file keeps, else (a file written before Castor kept it) its model
// messages' tokens priced.
func TestSessionCost(t *testing.T) {
	price := func(name string) model.Price {
		if name == "p" {
			return model.Price{InputPerMTok: 10, OutputPerMTok: 100}
		}
		return model.Price{}
	}
	msgs := []chats.Message{
		{Type: chats.TypeUser},
		{Type: chats.TypeGemini, Model: "p", Tokens: &chats.Tokens{Input: 1000, Output: 10}},
		{Type: chats.TypeGemini, Model: "free", Tokens: &chats.Tokens{Input: 1000, Output: 10}},
		{Type: chats.TypeGemini, Model: "p"},
	}
	for _, c := range []struct {
		conv chats.Conversation
		want float64
	}{
		{chats.Conversation{CostUSD: 0.5, Messages: msgs}, 0.5},
		{chats.Conversation{Messages: msgs}, 0.011},
		{chats.Conversation{}, 0},
	} {
		if got := sessionCost(&c.conv, price); got < c.want-1e-12 || got > c.want+1e-12 {
			t.Errorf("cost %v, want %v", got, c.want)
		}
	}
}
