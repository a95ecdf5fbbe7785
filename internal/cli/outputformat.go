package cli

import "github.com/castor-dev/castor/config"

// outputFormatDefault is -o/--output-format when the flag is not given:
// output.format of the settings opts loads (text or json), as in Gemini
// CLI, else text. Settings that do not load give text here; the assembly
// reports them.
func outputFormatDefault(opts config.LoadOptions) string {
	st, err := config.Load(opts)
	if err != nil {
		return FormatText
	}
	if v, ok := st.GetString("output.format"); ok && v != "" {
		return v
	}
	return FormatText
}

// settingsOutputFormat is outputFormatDefault for the current directory.
func settingsOutputFormat() string {
	return outputFormatDefault(config.LoadOptions{})
}
