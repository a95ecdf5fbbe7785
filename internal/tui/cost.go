package tui

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// cost is what the session's model calls cost, for /stats and the
// footer, taken at each turn's end: a footer drawn at every frame does
// not price the stats each time.
type cost struct {
	session, lastTurn float64
	// priced: a model used has a price; without one nothing is shown,
	// since $0 would read as free.
	priced bool
}

// turnEnded takes the session's cost now; lastTurn is what it grew by
// since the previous turn's end.
func (m *model) turnEnded() {
	if m.agent == nil || m.agent.Session == nil {
		return
	}
	total, _, priced := m.agent.Session.Stats().Cost(m.agent.Price)
	m.cost = cost{session: total, lastTurn: total - m.cost.session, priced: priced}
}

// usd writes dollars with four decimals under a dollar (model calls are
// cents), two above.
func usd(v float64) string {
	if v < 1 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// costLines are /stats' lines about cost: per model, the session and
// the last turn.
func (m *model) costLines(b *strings.Builder) {
	total, byModel, priced := m.agent.Session.Stats().Cost(m.agent.Price)
	if !priced {
		b.WriteString("\n  Cost: unknown (no price for the models used; see providers.<name>.models in settings)")
		return
	}
	fmt.Fprintf(b, "\n  Cost: %s this session, %s the last turn", usd(total), usd(m.cost.lastTurn))
	for _, n := range slices.Sorted(maps.Keys(byModel)) {
		fmt.Fprintf(b, "\n    %s: %s", n, usd(byModel[n]))
	}
}

// providerChoices adds the providers' models from settings to the
// /model picker's items, with their price; sel follows the model in
// use.
func (m *model) providerChoices(items []pickItem, sel *int) []pickItem {
	if m.agent == nil || m.agent.Settings == nil {
		return items
	}
	for _, pm := range m.agent.ProviderModels() {
		desc, _, _ := strings.Cut(pm.Name, "/")
		desc = "provider " + desc
		if p := pm.Price; p != nil {
			desc += fmt.Sprintf(", $%g in / $%g out per million tokens", p.Input, p.Output)
		}
		if pm.Name == m.modelID {
			*sel = len(items)
		}
		items = append(items, pickItem{label: pm.Name, desc: desc})
	}
	return items
}
