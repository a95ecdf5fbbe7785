#!/usr/bin/env bash
# CPU the interactive terminal spends per streamed chunk of an answer, in
# a real terminal (tmux): castor answers one prompt from a --fake-responses
# file twice, once as N chunks and once as a single chunk of the same
# text; the difference in castor's CPU time (user+system, /proc/<pid>/stat,
# read once the answer is on screen) divided by N-1 is the cost of a
# chunk. Linux only.
#
# With GEMINI set (bench/tui_common.sh), Gemini CLI 0.61 is measured the
# same way after castor, served by fakegemini (GOOGLE_GEMINI_BASE_URL),
# with the CPU of its process tree. Both run -m gemini-2.5-flash, so that
# no router's classifier call comes first.
#
#   bench/tui_chunks.sh [chunks] [runs]
set -euo pipefail
chunks=${1:-2000}
runs=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/tui_common.sh"
work=$(mktemp -d)
trap 'for s in "$work"/tmux.*; do end_pane "$s"; done; rm -rf "$work"' EXIT
go build -o "$work/castor" "$root/cmd/castor"
go build -o "$work/fakegemini" "$root/internal/fakegemini/cmd/fakegemini"
mkdir -p "$work/home" "$work/ws"
python3 - "$work" "$chunks" <<'PY'
import hashlib, json, sys
work, n = sys.argv[1], int(sys.argv[2])
# Text that never repeats, so that loop detection has nothing to find.
words = ["item %d %s; " % (i, hashlib.sha256(str(i).encode()).hexdigest()[:40]) for i in range(n)]
words = [w + ("\n\n" if i % 8 == 7 else "") for i, w in enumerate(words)]
words[-1] += "END-OF-ANSWER"
def reply(pieces):
    resp = [{"candidates": [{"content": {"role": "model", "parts": [{"text": p}]}, "index": 0}]} for p in pieces]
    resp[-1]["candidates"][0]["finishReason"] = "STOP"
    return json.dumps({"method": "generateContentStream", "response": resp}) + "\n"
open(work + "/many.jsonl", "w").write(reply(words))
open(work + "/one.jsonl", "w").write(reply(["".join(words)]))
PY
tick=$(getconf CLK_TCK)
cpu_of() { # file → CPU ticks the terminal used to show the whole answer
  # A socket per run: a tmux server still going away refuses the next.
  local sock="$work/tmux.$BASHPID"
  local cmd="$work/castor -m gemini-2.5-flash --fake-responses $1 -i go" url=""
  if [ -n "${use_gemini:-}" ]; then
    "$work/fakegemini" "$1" >"$work/url" 2>/dev/null &
    fake=$!
    until [ -s "$work/url" ]; do sleep 0.05; done
    url=$(head -1 "$work/url")
    cmd="$GEMINI -m gemini-2.5-flash -i go"
  fi
  tmux -S "$sock" -f /dev/null new-session -d -s ch -x 100 -y 30 \
    "cd $work/ws && exec env -i HOME=$work/home PATH=$PATH TERM=xterm-256color GEMINI_API_KEY=x GEMINI_CLI_TRUST_WORKSPACE=true GOOGLE_GEMINI_BASE_URL=$url $cmd"
  local pid; pid=$(tmux -S "$sock" list-panes -t ch -F '#{pane_pid}')
  local n=0
  until tmux -S "$sock" capture-pane -p -t ch | grep -q "END-OF-ANSWER" && ! tmux -S "$sock" capture-pane -p -t ch | grep -q "esc to cancel"; do
    sleep 0.1
    n=$((n + 1))
    if [ $n -gt 3000 ] || ! tmux -S "$sock" has-session 2>/dev/null; then tmux -S "$sock" capture-pane -p -t ch >&2; echo "the answer never ended" >&2; exit 1; fi
  done
  tree_ticks "$pid"
  end_pane "$sock"
  if [ -n "${use_gemini:-}" ]; then kill "$fake"; wait "$fake" 2>/dev/null || true; rm -f "$work/url"; fi
}
measure() { # name
best=""
for _ in $(seq "$runs"); do
  m=$(cpu_of "$work/many.jsonl"); o=$(cpu_of "$work/one.jsonl")
  per=$(awk -v m="$m" -v o="$o" -v t="$tick" -v n="$chunks" 'BEGIN { printf "%.3f", (m - o) / t * 1000 / (n - 1) }')
  echo "$1 run: $chunks chunks $(awk -v m="$m" -v t="$tick" 'BEGIN{printf "%.2f", m/t}') s, one chunk $(awk -v o="$o" -v t="$tick" 'BEGIN{printf "%.2f", o/t}') s: $per ms per chunk"
  if [ -z "$best" ] || awk -v a="$per" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$per; fi
done
echo "$1: CPU per streamed chunk (best of $runs): $best ms"
}
measure castor
if [ -n "${GEMINI:-}" ]; then
  gemini_home "$work/home"
  use_gemini=1 measure "Gemini CLI 0.61"
fi
