#!/usr/bin/env bash
# CPU the interactive terminal uses while it sits idle at its prompt, in a
# real terminal (tmux): the built castor is started, left alone for a few
# seconds to settle, then its user+system CPU time is read from
# /proc/<pid>/stat before and after a window (60 s by default). Linux only.
# With GEMINI set (bench/tui_common.sh), Gemini CLI 0.61 is measured the
# same way after castor.
#
#   bench/tui_idle.sh [seconds]
set -euo pipefail
secs=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/tui_common.sh"
work=$(mktemp -d)
sock="$work/tmux"
trap 'end_pane "$sock"; rm -rf "$work"' EXIT
go build -o "$work/castor" "$root/cmd/castor"
mkdir -p "$work/home" "$work/ws"
gemini_home "$work/home"
tick=$(getconf CLK_TCK)
wakeups() { awk '/^voluntary_ctxt_switches|^nonvoluntary_ctxt_switches/ {n += $2} END {print n}' /proc/"$1"/task/*/status; }
measure() { # name ready-marker command...
	local name=$1 ready=$2
	shift 2
	tmux -S "$sock" -f /dev/null new-session -d -s idle -x 100 -y 30 \
		"cd $work/ws && exec env -i HOME=$work/home PATH=$PATH TERM=xterm-256color GEMINI_API_KEY=x GEMINI_CLI_TRUST_WORKSPACE=true GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9 $*"
	local pid
	pid=$(tmux -S "$sock" list-panes -t idle -F '#{pane_pid}')
	until tmux -S "$sock" capture-pane -p -t idle | grep -q "$ready"; do sleep 0.2; done
	sleep 3
	local c0 c1 w0 w1
	c0=$(tree_ticks "$pid")
	w0=$(wakeups "$pid")
	sleep "$secs"
	c1=$(tree_ticks "$pid")
	w1=$(wakeups "$pid")
	awk -v n="$name" -v c=$((c1 - c0)) -v t="$tick" -v s="$secs" -v w=$((w1 - w0)) 'BEGIN {
	  printf "%s idle over %d s: %.2f s of CPU (%.3f %% of a core), %.1f context switches a second\n", n, s, c / t, 100 * c / t / s, w / s }'
	end_pane "$sock"
}
measure castor "$castor_ready" "$work/castor"
if [ -n "${GEMINI:-}" ]; then
	measure "Gemini CLI 0.61" "$gemini_ready" "$GEMINI"
fi
