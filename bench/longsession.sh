#!/usr/bin/env bash
# bench/longsession.sh — memory over a long session (issue 26): one castor
# process answers TURNS prompts in a row, each a classifier call (the auto
# router), a read_file call and an answer of about 6 KB in 8 streamed
# chunks, served by fakegemini from a generated script on 127.0.0.1; the
# resident set size (VmRSS, and the peak VmHWM) is read from /proc after
# 100, 500 and 1,000 turns.
#
#   bench/longsession.sh [face...]     faces: stream-json (default), acp,
#                                      tui (the interactive terminal in tmux),
#                                      resume (a -p -o stream-json process
#                                      per prompt, each --resume latest)
#
# Environment: TURNS (1000), AT (100,500,1000), ANSWER (6144 bytes),
# CASTOR_ENV (extra environment for castor, comma-separated, e.g.
# GODEBUG=gctrace=1), MODEL (castor's -m; a model name skips the router),
# ARGS (more longsession flags, e.g. -no-classifier-replies), GOFLAGS
# (passed to go build), GEMINI (Gemini CLI 0.61's launcher, from
# `npm install --prefix DIR @google/gemini-cli@0.61.0`: DIR/node_modules/
# .bin/gemini): each face then runs 0.61 too, after castor, on the same
# script, stopped once its process tree holds more than MAX_MB (8000) MB.
# 0.61 has no stream-json input: its stream-json line is a `-p PROMPT -o
# stream-json --resume latest` process per prompt, each one's own largest
# RSS.
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
	[ -n "${GEMINI:-}" ] || continue
	"$work/longsession" -castor "$work/castor" -fakegemini "$work/fakegemini" -face "$face" \
		-gemini "$GEMINI" -max-mb "${MAX_MB:-8000}" -turn-timeout 10m \
		-turns "${TURNS:-1000}" -at "${AT:-100,500,1000}" -answer "${ANSWER:-6144}" \
		-m "${MODEL:-}" ${ARGS:-} 2> >(grep '^longsession:' >&2)
done
