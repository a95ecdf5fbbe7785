# Sourced by the bench/tui_*.sh scripts: what they share to measure
# castor's terminal beside Gemini CLI 0.61's on the same machine.
#
# GEMINI=/path/to/node_modules/.bin/gemini (Gemini CLI 0.61, from
# `npm install --prefix DIR @google/gemini-cli@0.61.0`) makes the scripts
# run it too, from a home whose settings ask nothing at start.

# tree_ticks PID: user+system CPU ticks of PID and its descendants
# (Gemini CLI runs in a child node process it starts with a larger heap).
tree_ticks() {
	local all=$1 p kids total=0
	local queue=("$1")
	while [ ${#queue[@]} -gt 0 ]; do
		p=${queue[0]}
		queue=("${queue[@]:1}")
		total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
		kids=$(cat /proc/"$p"/task/*/children 2>/dev/null || true)
		for k in $kids; do queue+=("$k"); done
	done
	echo "$total"
}

# gemini_home DIR: a home for Gemini CLI with an API key chosen, no folder
# trust question, no update check, no tips.
gemini_home() {
	mkdir -p "$1/.gemini"
	cat >"$1/.gemini/settings.json" <<'JSON'
{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}}, "general": {"disableAutoUpdate": true, "disableUpdateNag": true}, "privacy": {"usageStatisticsEnabled": false}, "ui": {"hideTips": true}}
JSON
}

# Markers of a ready, idle screen: castor's footer, Gemini CLI's prompt.
castor_ready="context left"
gemini_ready="Type your message"
