#!/usr/bin/env bash
# bench/longsession.sh — memory over a long session (issue 26): one castor
# process answers TURNS prompts in a row, each a classifier call (the auto
# router), a read_file call and an answer of about 6 KB in 8 streamed
# chunks, served by fakegemini from a generated script on 127.0.0.1; the
# resident set size (VmRSS, and the peak VmHWM) is read from /proc after
# 100, 500 and 1,000 turns.
#
#   bench/longsession.sh [face...]     faces: stream-json (default), acp,
#                                      tui (the interactive terminal in tmux)
#
# Environment: TURNS (1000), AT (100,500,1000), ANSWER (6144 bytes),
# CASTOR_ENV (extra environment for castor, comma-separated, e.g.
# GODEBUG=gctrace=1), MODEL (castor's -m; a model name skips the router),
# ARGS (more longsession flags, e.g. -no-classifier-replies), GOFLAGS
# (passed to go build).
# The fake decodes every request, whose history grows each turn, so a
# run of 1,000 turns takes minutes on a loaded machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
faces=("$@")
[ ${#faces[@]} -gt 0 ] || faces=(stream-json)
(cd "$root" && go build -o "$work/castor" ./cmd/castor &&
	go build -o "$work/fakegemini" ./internal/fakegemini/cmd/fakegemini &&
	go build -o "$work/longsession" ./bench/longsession)
for face in "${faces[@]}"; do
	"$work/longsession" -castor "$work/castor" -fakegemini "$work/fakegemini" -face "$face" \
		-turns "${TURNS:-1000}" -at "${AT:-100,500,1000}" -answer "${ANSWER:-6144}" \
		-env "${CASTOR_ENV:-}" -m "${MODEL:-}" ${ARGS:-}
done
