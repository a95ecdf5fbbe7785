#!/usr/bin/env bash
# Time from exec to the interactive terminal's first frame, in a real
# terminal (tmux). castor exits right after its first frame when
# CASTOR_TUI_EXIT_AFTER_FIRST_FRAME is set (only this script sets it), so
# the wall time of each run is exec → first frame drawn → exit.
#
# With GEMINI set (bench/tui_common.sh), both castor and Gemini CLI 0.61
# are also timed from exec to their ready prompt on screen, polled every
# 20 ms in the pane (Gemini CLI cannot be told to exit after a frame).
#
#   bench/tui_first_frame.sh [runs]
set -euo pipefail
runs=${1:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/tui_common.sh"
work=$(mktemp -d)
trap 'tmux -L castor-bench kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/castor" "$root/cmd/castor"
mkdir -p "$work/home" "$work/ws"
cat > "$work/run.sh" <<SCRIPT
cd "$work/ws"
for i in \$(seq $runs); do
  s=\$(date +%s%N)
  env -i HOME="$work/home" PATH="$PATH" TERM=xterm-256color GEMINI_API_KEY=x \
    GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9 CASTOR_TUI_EXIT_AFTER_FIRST_FRAME=1 "$work/castor" >/dev/tty
  e=\$(date +%s%N)
  echo \$(( (e - s) / 1000 )) >> "$work/times"
done
touch "$work/done"
SCRIPT
tmux -L castor-bench -f /dev/null new-session -d -x 100 -y 30 "bash $work/run.sh"
while [ ! -e "$work/done" ]; do sleep 0.2; done
sort -n "$work/times" | awk '{a[NR]=$1} END {printf "exec → first frame over %d runs: min %.1f ms, median %.1f ms, max %.1f ms\n", NR, a[1]/1000, a[int((NR+1)/2)]/1000, a[NR]/1000}'

[ -n "${GEMINI:-}" ] || exit 0
gemini_home "$work/home"
ready_time() { # name marker command: exec → marker on screen, in ms
	local name=$1 marker=$2 s e i
	shift 2
	: >"$work/ready"
	for i in $(seq "$runs"); do
		# A socket per run: a server still going away refuses the next.
		sock="$work/tmux.$name.$i"
		sock=${sock// /_}
		s=$(date +%s%N)
		tmux -S "$sock" -f /dev/null new-session -d -s ff -x 100 -y 30 \
			"cd $work/ws && exec env -i HOME=$work/home PATH=$PATH TERM=xterm-256color GEMINI_API_KEY=x GEMINI_CLI_TRUST_WORKSPACE=true GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9 $*"
		until tmux -S "$sock" capture-pane -p -t ff | grep -q "$marker"; do sleep 0.02; done
		e=$(date +%s%N)
		echo $(((e - s) / 1000)) >>"$work/ready"
		end_pane "$sock"
	done
	sort -n "$work/ready" | awk -v n="$name" '{a[NR]=$1} END {printf "%s: exec → ready prompt on screen (polled) over %d runs: min %.0f ms, median %.0f ms, max %.0f ms\n", n, NR, a[1]/1000, a[int((NR+1)/2)]/1000, a[NR]/1000}'
}
trap 'for s in "$work"/tmux.*; do end_pane "$s"; done; tmux -L castor-bench kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
ready_time castor "$castor_ready" "$work/castor"
ready_time "Gemini CLI 0.61" "$gemini_ready" "$GEMINI"
