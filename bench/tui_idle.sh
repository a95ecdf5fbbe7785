#!/usr/bin/env bash
# CPU the interactive terminal uses while it sits idle at its prompt, in a
# real terminal (tmux): the built castor is started, left alone for a few
# seconds to settle, then its user+system CPU time is read from
# /proc/<pid>/stat before and after a window (60 s by default). Linux only.
#
#   bench/tui_idle.sh [seconds]
set -euo pipefail
secs=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
sock="$work/tmux"
trap 'tmux -S "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/castor" "$root/cmd/castor"
mkdir -p "$work/home" "$work/ws"
tmux -S "$sock" -f /dev/null new-session -d -x 100 -y 30 \
  "cd $work/ws && exec env -i HOME=$work/home PATH=$PATH TERM=xterm-256color GEMINI_API_KEY=x GEMINI_CLI_TRUST_WORKSPACE=true GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9 $work/castor"
pid=$(tmux -S "$sock" list-panes -F '#{pane_pid}')
until tmux -S "$sock" capture-pane -p | grep -q "context left"; do sleep 0.2; done
sleep 3
tick=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
wakeups() { awk '/^voluntary_ctxt_switches|^nonvoluntary_ctxt_switches/ {n += $2} END {print n}' /proc/$pid/task/*/status; }
c0=$(cpu); w0=$(wakeups)
sleep "$secs"
c1=$(cpu); w1=$(wakeups)
awk -v c=$((c1 - c0)) -v t="$tick" -v s="$secs" -v w=$((w1 - w0)) 'BEGIN {
  printf "idle over %d s: %.2f s of CPU (%.3f %% of a core), %.1f context switches a second\n", s, c / t, 100 * c / t / s, w / s }'
