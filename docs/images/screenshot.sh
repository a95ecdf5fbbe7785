#!/usr/bin/env bash
# Remakes docs/images/terminal.png, the README's screenshot: the built
# castor in tmux over the quick start's scripted model, stopped at the
# approval dialog, captured with its colours (tmux capture-pane -e),
# turned into HTML (aha) and photographed by headless Chromium.
# Needs tmux, aha and chromium (Debian: apt-get install tmux aha chromium).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
sock="castor-shot-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT

go build -o "$tmp/castor" "$root/cmd/castor"
mkdir "$tmp/home"
cp -r "$root/examples/workspace" "$tmp/home/greeter"
tmux -L "$sock" -f /dev/null new-session -d -s main -x 100 -y 34 \
  "cd '$tmp/home/greeter' && env -i HOME='$tmp/home' PATH='$PATH' TERM=xterm-256color COLORTERM=truecolor GEMINI_CLI_TRUST_WORKSPACE=true '$tmp/castor' --fake-responses '$root/examples/quickstart.jsonl'; sleep 600"

# wait for content, never for a fixed time
until tmux -L "$sock" capture-pane -p -t main | grep -q 'context left'; do sleep 0.2; done
tmux -L "$sock" send-keys -t main -l 'Summarize this project into NOTES.md'
tmux -L "$sock" send-keys -t main Enter
until tmux -L "$sock" capture-pane -p -t main | grep -q 'Apply this change'; do sleep 0.2; done

# the screen's lines, without the blank ones below the footer
tmux -L "$sock" capture-pane -e -p -t main | awk '
  { line[NR] = $0; bare = $0; gsub(/\033\[[0-9;]*m|[ \t]/, "", bare); if (bare != "") last = NR }
  END { for (i = 1; i <= last; i++) print line[i] }' >"$tmp/screen.ansi"
lines=$(wc -l <"$tmp/screen.ansi")
{
  printf '<!doctype html><meta charset="utf-8"><style>body{margin:0;background:#1e1e2e}'
  printf 'pre{margin:0;padding:14px 16px;font:15px/1.15 "DejaVu Sans Mono",monospace;color:#cdd6f4;white-space:pre}</style><pre>'
  aha --no-header <"$tmp/screen.ansi"
  printf '</pre>'
} >"$tmp/screen.html"
height=$((lines * 345 / 20 + 30))
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --screenshot="$root/docs/images/terminal.png" --window-size=940,"$height" \
  "file://$tmp/screen.html" 2>/dev/null
echo "wrote docs/images/terminal.png (${lines} lines)"
