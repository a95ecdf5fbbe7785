package setup

import "github.com/castor-dev/castor/agent"

// telemetryObserver asks Options.Telemetry for the session's Observer
// with the merged settings; a mistake in the telemetry settings ends the
// assembly, as Gemini CLI 0.61 refuses to start with one.
func telemetryObserver(o Options, a *Agent) (agent.Observer, error) {
	if o.Telemetry == nil {
		return nil, nil
	}
	obs, err := o.Telemetry(a.Settings, a.Env.Lookup)
	if err != nil {
		return nil, configErrorf("%v", err)
	}
	return obs, nil
}
