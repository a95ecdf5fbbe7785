package agent

import (
	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// Cost is what the tokens of s cost with price, in US dollars: the total
// and per model name. priced is false when no model of s has a price, so
// a face can tell "free" from "unknown".
func (s Stats) Cost(price func(string) model.Price) (total float64, byModel map[string]float64, priced bool) {
	byModel = map[string]float64{}
	if price == nil {
		return 0, byModel, false
	}
	for name, m := range s.Models {
		p := price(name)
		priced = priced || p != (model.Price{})
		t := m.Tokens
		u := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: int32(t.Prompt), CachedContentTokenCount: int32(t.Cached),
			CandidatesTokenCount: int32(t.Candidates), ThoughtsTokenCount: int32(t.Thoughts)}
		model.SetCacheWriteTokens(u, int32(t.CacheWrite))
		usd := p.Cost(u)
		byModel[name] = usd
		total += usd
	}
	return total, byModel, priced
}
