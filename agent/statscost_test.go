package agent_test

import (
	"math"
	"testing"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model"
)

// TestStatsCost: cached input is priced as cached, thoughts as output,
// a model without a price costs nothing, and priced says whether any
// model had one.
func TestStatsCost(t *testing.T) {
	price := func(name string) model.Price {
		if name == "p" {
			return model.Price{InputPerMTok: 2, CachedPerMTok: 0.5, OutputPerMTok: 8}
		}
		return model.Price{}
	}
	s := agent.Stats{Models: map[string]*agent.ModelStats{
		"p":    {Tokens: agent.TokenStats{Prompt: 1_000_000, Cached: 400_000, Candidates: 100_000, Thoughts: 50_000}},
		"free": {Tokens: agent.TokenStats{Prompt: 5_000_000}},
	}}
	total, byModel, priced := s.Cost(price)
	// 600k × $2 + 400k × $0.5 + 150k × $8 = 1.2 + 0.2 + 1.2.
	if want := 2.6; math.Abs(total-want) > 1e-9 || math.Abs(byModel["p"]-want) > 1e-9 || byModel["free"] != 0 || !priced {
		t.Errorf("total %v, by model %v, priced %v; want %v", total, byModel, priced, want)
	}
	if _, _, priced := (agent.Stats{Models: map[string]*agent.ModelStats{"free": {}}}).Cost(price); priced {
		t.Error("a session without prices is priced")
	}
}
