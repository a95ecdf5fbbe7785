#!/usr/bin/env bash
# bench/run.sh — startup and headless-run benchmarks of the castor binary.
#
# Builds castor and the fakegemini server into a temporary directory,
# prepares a workspace and a 4-call model script (list_directory,
# read_file, write_file, final text) in Gemini CLI's --fake-responses JSONL
# format, serves it on 127.0.0.1, and measures:
#
#   1. castor --version
#   2. castor -y -o json -p …   against the fake server over HTTP (loopback)
#   3. the same run with --fake-responses (no HTTP at all)
#
# Each is run RUNS times after WARMUP untimed runs; the table gives the
# median, min and max wall time and the peak RSS (/usr/bin/time %M, max
# over RSS_RUNS runs). hyperfine is used for the timings when installed,
# else a shell loop. Nothing is installed and nothing leaves the machine.
#
# Usage: bench/run.sh [-n RUNS] [-w WARMUP] [-r RSS_RUNS] [-k]
#   -k  keep the temporary directory (binaries, workspace, script, logs)
# Environment: RUNS, WARMUP, RSS_RUNS (same as the flags), GOFLAGS (passed
# to go build), CASTOR_BENCH_NO_HYPERFINE=1 forces the shell loop.
#
# The exit status is non-zero only when something failed to build or run;
# missed targets are reported in the table, not as a failure.
set -euo pipefail
export LC_ALL=C

RUNS=${RUNS:-20}
WARMUP=${WARMUP:-3}
RSS_RUNS=${RSS_RUNS:-5}
KEEP=0
while getopts "n:w:r:kh" opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	w) WARMUP=$OPTARG ;;
	r) RSS_RUNS=$OPTARG ;;
	k) KEEP=1 ;;
	*)
		sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
		exit 2
		;;
	esac
done
for v in "$RUNS" "$WARMUP" "$RSS_RUNS"; do
	[[ $v =~ ^[0-9]+$ ]] || {
		echo "run.sh: counts must be numbers" >&2
		exit 2
	}
done
((RUNS >= 1 && RSS_RUNS >= 1)) || {
	echo "run.sh: RUNS and RSS_RUNS must be at least 1" >&2
	exit 2
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/castor-bench.XXXXXX")
BIN=$TMP/bin
WS=$TMP/workspace
HOMEDIR=$TMP/home
LOG=$TMP/log
mkdir -p "$BIN" "$WS/src" "$HOMEDIR" "$LOG"
SERVER_PID=
FAILED=0

cleanup() {
	if [[ -n $SERVER_PID ]]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	if ((KEEP)); then
		echo "kept $TMP"
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT

die() {
	echo "run.sh: $*" >&2
	exit 1
}

# ---------------------------------------------------------------- build
echo "building castor and fakegemini into $BIN ..."
(cd "$ROOT" && go build -o "$BIN/castor" ./cmd/castor) || die "go build ./cmd/castor failed"
(cd "$ROOT" && go build -o "$BIN/fakegemini" ./internal/fakegemini/cmd/fakegemini) || die "go build fakegemini failed"

# ------------------------------------------------------------ workspace
cat >"$WS/README.md" <<'EOF'
# Greeter

A tiny command-line program that greets whoever runs it.

Run it with `go run ./src`.
EOF
cat >"$WS/src/main.go" <<'EOF'
package main

import "fmt"

func main() {
	fmt.Println("Hello from the greeter!")
}
EOF

# The 4-call script: one model turn per line, streamed as Gemini sends it.
# Paths are absolute, in the workspace (mktemp paths need no escaping).
turn() { # turn <parts-json> <prompt-tokens> <candidate-tokens>
	printf '{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":%s},"index":0,"finishReason":"STOP"}],"modelVersion":"gemini-2.5-pro","usageMetadata":{"promptTokenCount":%d,"candidatesTokenCount":%d,"totalTokenCount":%d}}]}\n' \
		"$1" "$2" "$3" $(($2 + $3))
}
script_once() {
	turn '[{"text":"Let me look at the project first."},{"functionCall":{"name":"list_directory","args":{"path":"'"$WS"'"}}}]' 1200 20
	turn '[{"functionCall":{"name":"read_file","args":{"absolute_path":"'"$WS"'/README.md"}}}]' 1300 15
	turn '[{"functionCall":{"name":"write_file","args":{"file_path":"'"$WS"'/NOTES.md","content":"# Notes\n\n- Greeter is a one-file Go program.\n"}}}]' 1400 40
	turn '[{"text":"I read the README and wrote a summary to NOTES.md."}]' 1500 15
}
script_once >"$TMP/fake-responses.jsonl"
# The server consumes its script: give it one copy per run it will serve
# (check + warm-up + timed runs + RSS runs, with room for hyperfine).
SERVED=$((1 + 2 * (WARMUP + RUNS) + RSS_RUNS + 2))
for ((i = 0; i < SERVED; i++)); do script_once; done >"$TMP/server-script.jsonl"

# --------------------------------------------------------- fake server
"$BIN/fakegemini" "$TMP/server-script.jsonl" >"$LOG/server.out" 2>"$LOG/server.err" &
SERVER_PID=$!
URL=
for ((i = 0; i < 100; i++)); do
	URL=$(head -n 1 "$LOG/server.out" 2>/dev/null || true)
	[[ -n $URL ]] && break
	kill -0 "$SERVER_PID" 2>/dev/null || break
	sleep 0.05
done
[[ $URL == http://127.0.0.1:* ]] || die "fakegemini did not start: $(cat "$LOG/server.err")"

# castor runs in a clean environment (see clean_env): its own HOME, the
# fake server, a trusted workspace as the working directory.
PROMPT="Summarise this project into NOTES.md"
CMD_VERSION=("$BIN/castor" --version)
CMD_HTTP=("$BIN/castor" -y -o json -p "$PROMPT")
CMD_FAKE=("$BIN/castor" -y -o json --fake-responses "$TMP/fake-responses.jsonl" -p "$PROMPT")
GO_VERSION=$(go version | cut -d' ' -f3-)
SYS_PATH=$PATH

# clean_env empties the environment of the (sub)shell (its variables stay,
# unexported) and exports only what castor needs, so no variable of the
# caller's leaks into the runs and no env(1) process is timed along with
# castor.
clean_env() {
	local v
	while read -r v; do export -n "$v" 2>/dev/null || true; done < <(compgen -e)
	export HOME=$HOMEDIR PATH=$SYS_PATH LC_ALL=C NO_COLOR=1 \
		GEMINI_API_KEY=bench-key GOOGLE_GEMINI_BASE_URL=$URL GEMINI_CLI_TRUST_WORKSPACE=true \
		CASTOR_RETRY_BASE_DELAY=5ms
}

# check <name> <cmd...>: one run whose output must be right.
check() {
	local name=$1
	shift
	local out=$LOG/$name.check.out err=$LOG/$name.check.err rc=0
	"$@" >"$out" 2>"$err" || rc=$?
	if ((rc != 0)); then
		echo "run.sh: $name failed (exit $rc):" >&2
		cat "$err" >&2
		return 1
	fi
	case $name in
	version) grep -q '[0-9]' "$out" ;;
	*) grep -q '"response": *"I read the README and wrote a summary to NOTES.md."' "$out" && [[ -s $WS/NOTES.md ]] ;;
	esac || {
		echo "run.sh: $name gave unexpected output:" >&2
		cat "$out" "$err" >&2
		return 1
	}
}

# ------------------------------------------------------------- timing
# Timestamps come from bash's $EPOCHREALTIME (no process is started to read
# the clock); without it, from date +%s.%N, whose own start-up (~1 ms) is
# then counted in each run.
now() {
	if [[ -n ${EPOCHREALTIME:-} ]]; then
		REPLY=$EPOCHREALTIME
	else
		REPLY=$(date +%s.%N)
	fi
}

# stats <file of ms values> → "median min max"
stats() {
	sort -g "$1" | awk '{v[NR]=$1} END {
		if (NR == 0) { print "- - -"; exit }
		m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
		printf "%.1f %.1f %.1f\n", m, v[1], v[NR] }'
}

USE_HYPERFINE=0
if command -v hyperfine >/dev/null 2>&1 && [[ -z ${CASTOR_BENCH_NO_HYPERFINE:-} ]]; then
	USE_HYPERFINE=1
fi

# time_runs <name> <cmd...>: writes $LOG/<name>.ms (one value per run).
time_runs() {
	local name=$1
	shift
	local ms=$LOG/$name.ms
	: >"$ms"
	if ((USE_HYPERFINE)); then
		local q=() a
		for a in "$@"; do q+=("$(printf '%q' "$a")"); done
		hyperfine -N --style none --warmup "$WARMUP" --runs "$RUNS" \
			--export-json "$LOG/$name.json" "${q[*]}" >"$LOG/$name.hyperfine" 2>&1 || {
			echo "run.sh: $name failed under hyperfine:" >&2
			cat "$LOG/$name.hyperfine" >&2
			return 1
		}
		# "times": [s, s, ...] in the JSON export.
		tr -d '\n ' <"$LOG/$name.json" | sed 's/.*"times":\[\([^]]*\)\].*/\1/' | tr ',' '\n' |
			awk 'NF {printf "%.3f\n", $1 * 1000}' >"$ms"
		return 0
	fi
	local i t0 t1 rc
	for ((i = 0; i < WARMUP + RUNS; i++)); do
		rc=0
		now
		t0=$REPLY
		"$@" >/dev/null 2>"$LOG/$name.err" || rc=$?
		now
		t1=$REPLY
		if ((rc != 0)); then
			echo "run.sh: $name failed on run $((i + 1)) (exit $rc):" >&2
			cat "$LOG/$name.err" >&2
			return 1
		fi
		((i < WARMUP)) || awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", (b - a) * 1000}' >>"$ms"
	done
}

# rss_runs <name> <cmd...>: max RSS in KB over RSS_RUNS runs → $LOG/<name>.rss
rss_runs() {
	local name=$1
	shift
	local i max=0 kb
	for ((i = 0; i < RSS_RUNS; i++)); do
		if ! /usr/bin/time -f %M -o "$LOG/$name.time" "$@" >/dev/null 2>"$LOG/$name.err"; then
			echo "run.sh: $name failed under /usr/bin/time:" >&2
			cat "$LOG/$name.err" "$LOG/$name.time" >&2
			return 1
		fi
		kb=$(tail -n 1 "$LOG/$name.time")
		((kb > max)) && max=$kb
	done
	echo "$max" >"$LOG/$name.rss"
}

[[ -x /usr/bin/time ]] || die "/usr/bin/time is needed for peak RSS (Debian package: time)"

declare -A LABEL=(
	[version]="castor --version"
	[http]="4-call -y -o json, HTTP fake"
	[fake]="4-call, --fake-responses"
)
declare -A TARGET=([version]="<20 ms" [http]="<100 ms, <40 MB" [fake]="-")

measure() {
	local name=$1
	shift
	echo "measuring ${LABEL[$name]} ..."
	(
		clean_env
		cd "$WS"
		check "$name" "$@" && time_runs "$name" "$@" && rss_runs "$name" "$@"
	) || {
		FAILED=1
		rm -f "$LOG/$name.ms" "$LOG/$name.rss"
	}
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
measure version "${CMD_VERSION[@]}"
measure http "${CMD_HTTP[@]}"
measure fake "${CMD_FAKE[@]}"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

# --------------------------------------------------------------- report
echo
echo "castor $("$BIN/castor" --version 2>/dev/null || echo '?') | $GO_VERSION | $(nproc 2>/dev/null || echo '?') cores | load avg $LOAD_BEFORE → $LOAD_AFTER"
if ((USE_HYPERFINE)); then timer="hyperfine -N"; else timer="shell loop"; fi
echo "$RUNS timed runs after $WARMUP warm-up ($timer); peak RSS = max of $RSS_RUNS runs under /usr/bin/time"
echo
printf '%-30s %9s %9s %9s %10s  %-16s %s\n' "measurement" "median" "min" "max" "peak RSS" "target" "met"
printf '%-30s %9s %9s %9s %10s  %-16s %s\n' "------------------------------" "------" "---" "---" "--------" "------" "---"
for name in version http fake; do
	if [[ ! -s $LOG/$name.ms ]]; then
		printf '%-30s %9s %9s %9s %10s  %-16s %s\n' "${LABEL[$name]}" "FAILED" "-" "-" "-" "${TARGET[$name]}" "-"
		continue
	fi
	read -r med min max < <(stats "$LOG/$name.ms")
	rss_kb=$(cat "$LOG/$name.rss")
	rss_mb=$(awk -v k="$rss_kb" 'BEGIN {printf "%.1f", k / 1024}')
	met=-
	case $name in
	version) met=$(awk -v m="$med" 'BEGIN {print (m < 20) ? "yes" : "NO"}') ;;
	http) met=$(awk -v m="$med" -v r="$rss_mb" 'BEGIN {print (m < 100 && r < 40) ? "yes" : "NO"}') ;;
	esac
	printf '%-30s %6s ms %6s ms %6s ms %7s MB  %-16s %s\n' "${LABEL[$name]}" "$med" "$min" "$max" "$rss_mb" "${TARGET[$name]}" "$met"
done
echo
echo "Gemini CLI 0.61 on the same scenario (reference §6): --version 1.28 s / 194 MB; 4-call run 1.53 s / 252 MB"

if ((FAILED)); then
	echo "run.sh: some measurements failed (logs in $LOG; rerun with -k to keep them)" >&2
	exit 1
fi
