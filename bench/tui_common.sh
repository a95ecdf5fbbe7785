# Sourced by the bench/tui_*.sh scripts: what they share to measure
# castor's terminal beside Gemini CLI 0.61's on the same machine.
#
# GEMINI=/path/to/node_modules/.bin/gemini (Gemini CLI 0.61, from
# `npm install --prefix DIR @google/gemini-cli@0.61.0`) makes the scripts
# run it too, from a home whose settings ask nothing at start.

# tree_ticks PID: user+system CPU ticks of PID and its descendants
# (Gemini CLI runs in a child node process it starts with a larger heap).
tree_ticks() {
	local total=0 p
	for p in $(tree_pids "$1"); do
		total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
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

# tree_pids PID: PID and its descendants.
tree_pids() {
	local queue=("$1") p
	while [ ${#queue[@]} -gt 0 ]; do
		p=${queue[0]}
		queue=("${queue[@]:1}")
		echo "$p"
		for k in $(cat /proc/"$p"/task/*/children 2>/dev/null || true); do queue+=("$k"); done
	done
}

# end_pane SOCKET: ends a tmux server and everything its pane started
# (Gemini CLI's child node process outlives the pane's hangup).
end_pane() {
	local pids p
	pids=$(for p in $(tmux -S "$1" list-panes -a -F '#{pane_pid}' 2>/dev/null); do tree_pids "$p"; done)
	tmux -S "$1" kill-server 2>/dev/null || true
	for p in $pids; do kill -9 "$p" 2>/dev/null || true; done
}
