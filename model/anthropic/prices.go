package anthropic

import (
	"strings"

	"github.com/castor-dev/castor/model"
)

// prices are Anthropic's public prices per million tokens (input, cache
// read, output, 5-minute cache write at 1.25× input) of the models whose
// prices are known to this table, by name prefix, longest first.
var prices = []struct {
	prefix string
	price  model.Price
}{
	{"claude-opus-4-5", model.Price{InputPerMTok: 5, CachedPerMTok: 0.50, OutputPerMTok: 25, CacheWritePerMTok: 6.25}},
	{"claude-opus-4-1", model.Price{InputPerMTok: 15, CachedPerMTok: 1.50, OutputPerMTok: 75, CacheWritePerMTok: 18.75}},
	{"claude-opus-4-0", model.Price{InputPerMTok: 15, CachedPerMTok: 1.50, OutputPerMTok: 75, CacheWritePerMTok: 18.75}},
	{"claude-opus-4-2", model.Price{InputPerMTok: 15, CachedPerMTok: 1.50, OutputPerMTok: 75, CacheWritePerMTok: 18.75}}, // claude-opus-4-20250514
	{"claude-sonnet-4", model.Price{InputPerMTok: 3, CachedPerMTok: 0.30, OutputPerMTok: 15, CacheWritePerMTok: 3.75}},
	{"claude-3-7-sonnet", model.Price{InputPerMTok: 3, CachedPerMTok: 0.30, OutputPerMTok: 15, CacheWritePerMTok: 3.75}},
	{"claude-haiku-4-5", model.Price{InputPerMTok: 1, CachedPerMTok: 0.10, OutputPerMTok: 5, CacheWritePerMTok: 1.25}},
	{"claude-3-5-haiku", model.Price{InputPerMTok: 0.80, CachedPerMTok: 0.08, OutputPerMTok: 4, CacheWritePerMTok: 1}},
}

// DefaultPrice is the shipped price of a Claude model, ok false for a
// model this table does not know (set its price in the provider's
// models then).
func DefaultPrice(name string) (model.Price, bool) {
	for _, p := range prices {
		if strings.HasPrefix(name, p.prefix) {
			return p.price, true
		}
	}
	return model.Price{}, false
}
