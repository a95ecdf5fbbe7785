#!/usr/bin/env bash
# bench/a2a.sh — load benchmark of castor's A2A server (castor a2a-server).
#
# Builds castor, the fakegemini server and the bench/a2aload load
# generator into a temporary directory and runs a2aload, which, RUNS
# times, with fresh processes each time and on 127.0.0.1 only:
#
#   1. writes a fake-model script (one streamed text reply per turn the
#      run makes) and starts fakegemini on it;
#   2. starts a timing proxy in front of the fake (in a2aload) and
#      castor a2a-server (--memory-store, or --store-dir in the temp dir
#      with -s file) pointed at it, with HOME=<temp>, GEMINI_API_KEY=x,
#      GOOGLE_GEMINI_BASE_URL=<proxy>, GEMINI_CLI_TRUST_WORKSPACE=true and
#      a temporary workspace;
#   3. measures start-up, idle RSS (VmRSS/RssAnon/VmHWM) after it settles,
#      sequential new-task and follow-up turns over message/stream (client
#      total, model time charged per turn by the proxy, and the difference:
#      the time castor added; castor CPU per turn), the fake's own time for
#      the same model request replayed directly, CONCURRENCY streaming
#      tasks at once (tasks/s, turns/s, latency), RSS after the load, and
#      errors.
#
# It prints one table: best and median over the runs, and each run.
#
# Usage: bench/a2a.sh [-n RUNS] [-c CONCURRENCY] [-s memory|file] [-k] [-- a2aload flags...]
#   -k  keep the temporary directory (binaries, scripts, logs, task store)
# Environment: RUNS, CONCURRENCY, STORE (same as the flags), GOFLAGS (passed
# to go build). `bench/a2a.sh -- -h` lists a2aload's own flags (counts of
# each phase, -castor-env GODEBUG=gctrace=1, -slow 50ms, -json FILE ...).
#
# The exit status is non-zero only when something failed to build or run,
# or when any turn failed; a missed target shows as NO in the table.
set -euo pipefail
export LC_ALL=C

RUNS=${RUNS:-3}
CONCURRENCY=${CONCURRENCY:-200}
STORE=${STORE:-memory}
KEEP=0
while getopts "n:c:s:kh" opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	c) CONCURRENCY=$OPTARG ;;
	s) STORE=$OPTARG ;;
	k) KEEP=1 ;;
	*)
		sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
[[ ${1:-} == -- ]] && shift
for v in "$RUNS" "$CONCURRENCY"; do
	[[ $v =~ ^[0-9]+$ ]] && ((v >= 1)) || {
		echo "a2a.sh: RUNS and CONCURRENCY must be positive numbers" >&2
		exit 2
	}
done
[[ $STORE == memory || $STORE == file ]] || {
	echo "a2a.sh: the store is memory or file" >&2
	exit 2
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/castor-a2a-bench.XXXXXX")
BIN=$TMP/bin
mkdir -p "$BIN" "$TMP/scratch"

cleanup() {
	if ((KEEP)); then
		echo "kept $TMP"
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT

die() {
	echo "a2a.sh: $*" >&2
	exit 1
}

echo "building castor, fakegemini and a2aload into $BIN ..."
(cd "$ROOT" && go build -o "$BIN/castor" ./cmd/castor) || die "go build ./cmd/castor failed"
(cd "$ROOT" && go build -o "$BIN/fakegemini" ./internal/fakegemini/cmd/fakegemini) || die "go build fakegemini failed"
# a2aload is its own module (so that it stays out of the castor module's
# ./...); a temporary workspace builds it against this checkout.
(cd "$ROOT/bench/a2aload" && GOWORK="$TMP/go.work" go work init "$ROOT" . &&
	GOWORK="$TMP/go.work" go build -o "$BIN/a2aload" .) || die "go build bench/a2aload failed"

echo "castor $("$BIN/castor" --version 2>/dev/null || echo '?') | $(go version | cut -d' ' -f3-) | $(nproc 2>/dev/null || echo '?') cores | load avg $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
rc=0
"$BIN/a2aload" -castor "$BIN/castor" -fakegemini "$BIN/fakegemini" -dir "$TMP/scratch" \
	-runs "$RUNS" -concurrency "$CONCURRENCY" -store "$STORE" -json "$TMP/results.json" "$@" || rc=$?
if ((rc != 0)); then
	echo "a2a.sh: the benchmark failed or saw errors (exit $rc); rerun with -k to keep the logs" >&2
fi
exit "$rc"
