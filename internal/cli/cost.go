package cli

import (
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model"
)

// costedStats are Gemini CLI's stats with Castor's cost beside them, so
// the keys Gemini CLI writes stay where they are.
type costedStats struct {
	agent.Stats
	Cost *costStats `json:"cost,omitempty"`
}

// costStats is what the session's tokens cost, in US dollars, in total
// and per model.
type costStats struct {
	TotalUSD float64            `json:"totalUsd"`
	Models   map[string]float64 `json:"models"`
}

// withCost prices s's tokens; no cost is written without prices, or when
// no model has one.
func withCost(s agent.Stats, price func(string) model.Price) costedStats {
	out := costedStats{Stats: s}
	if total, byModel, priced := s.Cost(price); priced {
		out.Cost = &costStats{TotalUSD: total, Models: byModel}
	}
	return out
}

// setPrice gives the renderers that write a cost (-o json, stream-json's
// result) the session's prices.
func setPrice(r renderer, price func(string) model.Price) {
	switch r := r.(type) {
	case *jsonRenderer:
		r.price = price
	case *streamRenderer:
		r.price = price
	}
}
