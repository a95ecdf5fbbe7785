#!/usr/bin/env bash
# bench/startup.sh — start-up cost and capped search of this build against
# a previous release, built on the same machine.
#
# Builds castor from the work tree and from REV (default: the last commit
# before the Markdown/highlighting stack entered go.mod, the previous
# release of issue #24) into a temporary directory (REV through a
# temporary `git worktree`, removed at the end), both as scripts/release
# builds (CGO_ENABLED=0, -trimpath, -tags grpcnotrace, -s -w), then
# measures for both:
#
#   1. castor --version: CPU, wall, RSS and minor page faults, medians of
#      RUNS runs, and the heap allocated by package initialisation
#      (GODEBUG=inittrace=1, summed over every package);
#   2. a headless list-read run (-y -o json -p with --fake-responses: the
#      model lists the workspace, reads a file, answers), the same figures;
#      this build also with GEMINI_SANDBOX=false (-y turns the Landlock
#      sandbox on, which the previous release did not have);
#   3. capped searches: the model calls search_file_content for a word
#      found in a third of the files of a FILES-file tree (written once by
#      bench/gentree), and for one found only in its last tenth (in path
#      order), answered with the first 100 matches; then on Go's own source
#      tree ($(go env GOROOT)/src) for "return" (dense: the cap is reached
#      in the first folder) and a word found nowhere. With ripgrep on PATH
#      and without it (the Go walker), beside `rg` alone on the same tree
#      (rg --ignore-case --line-number WORD TREE).
#
# Runs of the rows of a table alternate (prev, now, prev, now, ...), so
# that load from other processes spreads over all of them. Both binaries
# are copied with cp before they run: a binary the linker just wrote sits
# in the page cache in large folios that a start maps whole, which adds
# some 7-16 MB of RSS to every run until the cache drops them (most with
# cgo's external linker, which go-landlock's psx forced until Castor
# called Landlock itself); copied, both are measured as a downloaded
# binary is.
#
# Usage: bench/startup.sh [-n RUNS] [-f FILES] [-r REV] [-s] [-k]
#   -s  skip the search part (no tree is written)
#   -k  keep the temporary directory (binaries, tree, logs)
# Environment: RUNS (default 20), SEARCH_RUNS (default 5), FILES (default
# 200000), TREE (a tree bench/gentree wrote before, searched instead of a
# new one).
#
# Needs bash, git, Go, /usr/bin/time (Debian package time) and, for the
# search rows with ripgrep, rg; with strace, a table of where each run's
# resident memory is when it exits (text, rodata, data, anonymous).
# Nothing leaves the machine.
set -euo pipefail
export LC_ALL=C

RUNS=${RUNS:-20}
SEARCH_RUNS=${SEARCH_RUNS:-5}
FILES=${FILES:-200000}
REV=
SEARCH=1
KEEP=0
while getopts "n:f:r:skh" opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	f) FILES=$OPTARG ;;
	r) REV=$OPTARG ;;
	s) SEARCH=0 ;;
	k) KEEP=1 ;;
	*)
		sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
		exit 2
		;;
	esac
done

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/castor-startup.XXXXXX")
PREV_WT=$TMP/prev-src
cleanup() {
	if [[ -d $PREV_WT ]]; then
		git -C "$ROOT" worktree remove --force "$PREV_WT" 2>/dev/null || true
	fi
	if ((KEEP)); then echo "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
die() {
	echo "startup.sh: $*" >&2
	exit 1
}
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package time)"

if [[ -z $REV ]]; then
	first=$(git -C "$ROOT" log --format=%H -S 'charm.land/glamour' -- go.mod | tail -n 1)
	[[ -n $first ]] || die "cannot find the commit that added glamour to go.mod; pass -r REV"
	REV=$(git -C "$ROOT" rev-parse "$first^")
fi

BIN=$TMP/bin
mkdir -p "$BIN" "$TMP/build" "$TMP/log"
echo "building this tree and $(git -C "$ROOT" log --oneline -1 "$REV" | cut -c1-70) ..." >&2
# Both as scripts/release builds them (static, stripped, its tags).
RELEASE_FLAGS=(-trimpath -tags grpcnotrace -ldflags "-s -w")
(cd "$ROOT" && CGO_ENABLED=0 go build "${RELEASE_FLAGS[@]}" -o "$TMP/build/castor-now" ./cmd/castor) || die "go build failed"
git -C "$ROOT" worktree add --quiet --detach "$PREV_WT" "$REV" || die "git worktree add $REV failed"
(cd "$PREV_WT" && CGO_ENABLED=0 go build "${RELEASE_FLAGS[@]}" -o "$TMP/build/castor-prev" ./cmd/castor) || die "go build of $REV failed"
git -C "$ROOT" worktree remove --force "$PREV_WT"
(cd "$ROOT" && go build -o "$BIN/gentree" ./bench/gentree) || die "go build gentree failed"
for b in prev now; do
	cp "$TMP/build/castor-$b" "$BIN/castor-$b"
	rm "$TMP/build/castor-$b"
done

# A workspace and the scripted model.
WS=$TMP/ws
mkdir -p "$WS/src" "$TMP/home"
printf '# Greeter\n\nA tiny program that greets whoever runs it.\n' >"$WS/README.md"
printf 'package main\n\nfunc main() { println("hello") }\n' >"$WS/src/main.go"
turn() { # turn <parts-json>
	printf '{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":%s},"index":0,"finishReason":"STOP"}],"modelVersion":"gemini-2.5-pro","usageMetadata":{"promptTokenCount":1000,"candidatesTokenCount":20,"totalTokenCount":1020}}]}\n' "$1"
}
{
	turn '[{"functionCall":{"name":"list_directory","args":{"path":"'"$WS"'"}}}]'
	turn '[{"functionCall":{"name":"read_file","args":{"absolute_path":"'"$WS"'/README.md"}}}]'
	turn '[{"text":"It greets people."}]'
} >"$TMP/listread.jsonl"

SYS_PATH=$PATH
# env(1) gives castor only what it needs (env execs castor, so it is not
# timed apart); ENV_NORG is the same without ripgrep on PATH.
ENV=(env -i HOME="$TMP/home" PATH="$SYS_PATH" LC_ALL=C NO_COLOR=1 GEMINI_API_KEY=bench GEMINI_CLI_TRUST_WORKSPACE=true)

# Rows are declared with row <label> <dir> <cmd...> and measured by
# table <runs>: each run goes once through every row declared since the
# last table. CPU is perf's task-clock (to the microsecond, children
# included) when perf works, else /usr/bin/time's user+sys (to 10 ms);
# wall, RSS and minor page faults come from /usr/bin/time. Every figure
# is the median over the runs.
PERF=0
if command -v perf >/dev/null && perf stat -x, -e task-clock -o /dev/null true 2>/dev/null; then PERF=1; fi
ROWS=()
row() { # row <label> <dir> <cmd...>
	local label=$1
	ROWS+=("$label")
	shift
	printf '%q ' "$@" >"$TMP/log/$label.cmd"
	: >"$TMP/log/$label.time"
}
run_once() { # run_once <label>
	local label=$1 f=$TMP/log/$1 cpu= rc=0
	local -a cmd
	eval "cmd=($(cat "$f.cmd"))"
	local dir=${cmd[0]}
	cmd=("${cmd[@]:1}")
	if ((PERF)); then
		(cd "$dir" && /usr/bin/time -o "$f.one" -f '%U %S %e %M %R' perf stat -x, -e task-clock -o "$f.perf" -- "${cmd[@]}" \
			>"$f.out" 2>"$f.err") || rc=$?
		cpu=$(awk -F, '/task-clock/ { print $1 }' "$f.perf")
	else
		(cd "$dir" && /usr/bin/time -o "$f.one" -f '%U %S %e %M %R' "${cmd[@]}" >"$f.out" 2>"$f.err") || rc=$?
	fi
	# rg's status 1 is "no match".
	if ((rc != 0)) && ! [[ $rc == 1 && $label == "rg alone"* ]]; then
		die "$label failed: $(tail -n 3 "$f.err")"
	fi
	sed -i '/^Command exited with non-zero status/d' "$f.one"
	echo "$(cat "$f.one") $cpu" >>"$f.time"
}
table() { # table <runs>
	local runs=$1 label
	for ((i = 0; i < runs; i++)); do
		for label in "${ROWS[@]}"; do run_once "$label"; done
	done
	for label in "${ROWS[@]}"; do
		awk -v label="$label" '
			{ n++; cpu[n] = ($6 != "") ? $6 : ($1 + $2) * 1000; wall[n] = $3 * 1000; rss[n] = $4; flt[n] = $5 }
			function median(a, n,   i, j, x) {
				for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j+1] = a[j]; a[j+1] = x }
				return (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
			}
			END { printf "%-40s %9.1f %9.0f %8.1f %8d\n", label, median(cpu, n), median(wall, n), median(rss, n) / 1024, median(flt, n) }' "$TMP/log/$label.time"
	done
	ROWS=()
}
header() { printf '%-40s %9s %9s %8s %8s\n' "$1" "CPU ms" "wall ms" "RSS MB" "faults"; }

# init_allocs <bin>: heap bytes and allocations of every package's init.
init_allocs() {
	GODEBUG=inittrace=1 "$1" --version 2>&1 >/dev/null |
		awk '/^init /{ b += $8; a += $10 } END { printf "%.2f MB in %d allocations", b / 1e6, a }'
}

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $(go version | cut -d' ' -f3)" >&2
header "run (median of $RUNS runs)"
for b in prev now; do
	row "$b --version" "$WS" "${ENV[@]}" "$BIN/castor-$b" --version
done
for b in prev now; do
	row "$b -p list-read" "$WS" "${ENV[@]}" "$BIN/castor-$b" -y -o json \
		--fake-responses "$TMP/listread.jsonl" -p "What does this project do?"
done
row "now -p list-read, GEMINI_SANDBOX=false" "$WS" "${ENV[@]}" GEMINI_SANDBOX=false "$BIN/castor-now" -y -o json \
	--fake-responses "$TMP/listread.jsonl" -p "What does this project do?"
table "$RUNS"
for b in prev now; do
	grep -q 'It greets people' "$TMP/log/$b -p list-read.out" || die "$b -p list-read: unexpected answer"
	echo "$b: package initialisation allocates $(init_allocs "$BIN/castor-$b")"
done

# segments <label>: where the row's resident memory is when it exits, by
# mapping (text, read-only data, data and bss of the binary, anonymous
# memory: the heap, stacks, the runtime's own). The run is held at
# exit_group by strace while /proc/PID/smaps is read. The kernel maps a
# file's pages in 64 KB windows around each fault, so text and rodata are
# counted in windows touched, not bytes used.
segments() {
	local label=$1 f=$TMP/log/$1 sp pid= i
	local -a cmd
	eval "cmd=($(cat "$f.cmd"))"
	local dir=${cmd[0]}
	cmd=("${cmd[@]:1}")
	: >"$f.strace"
	(cd "$dir" && exec strace -f -qq -o "$f.strace" -e trace=exit_group -e inject=exit_group:delay_enter=3000000 "${cmd[@]}" >/dev/null 2>&1) &
	sp=$!
	for ((i = 0; i < 200; i++)); do
		grep -q 'exit_group(' "$f.strace" && break
		sleep 0.05
	done
	pid=$(pgrep -P "$sp" | head -n 1 || true)
	if [[ -z $pid ]] || ! cp "/proc/$pid/smaps" "$f.smaps" 2>/dev/null; then
		wait "$sp" || true
		echo "$label: no smaps (strace could not hold the run)" >&2
		return
	fi
	wait "$sp" || true
	awk -v label="$label" '
		/^[0-9a-f]+-[0-9a-f]+ / { kind = "anon"; if ($6 ~ /castor-(now|prev)$/) kind = ($2 ~ /x/) ? "text" : ($2 ~ /w/) ? "data" : "rodata"; next }
		/^Rss:/ { kb[kind] += $2 }
		END { printf "%-40s %8.1f %8.1f %8.1f %8.1f %8.1f\n", label, kb["text"] / 1024, kb["rodata"] / 1024, kb["data"] / 1024, kb["anon"] / 1024, (kb["text"] + kb["rodata"] + kb["data"] + kb["anon"]) / 1024 }' "$f.smaps"
}
if command -v strace >/dev/null; then
	printf '%-40s %8s %8s %8s %8s %8s\n' "resident at exit, MB (one run)" text rodata data anon total
	for label in "prev --version" "now --version" "prev -p list-read" "now -p list-read"; do segments "$label"; done
else
	echo "(no strace: the resident-memory-by-mapping table is left out)" >&2
fi

((SEARCH)) || exit 0
if [[ -n ${TREE:-} && -d $TREE ]]; then
	echo "searching the tree $TREE (TREE)" >&2
else
	TREE=$TMP/tree
	echo "writing $FILES files into $TREE ..." >&2
	"$BIN/gentree" -dir "$TREE" -files "$FILES"
fi
for word in needle haystack; do
	{
		turn '[{"functionCall":{"name":"search_file_content","args":{"pattern":"'"$word"'","path":"'"$TREE"'"}}}]'
		turn '[{"text":"Found them."}]'
	} >"$TMP/search-$word.jsonl"
done
# A PATH without rg: every directory of PATH, rg's own left out.
NORG=$TMP/norg
mkdir -p "$NORG"
IFS=: read -ra dirs <<<"$SYS_PATH"
for d in "${dirs[@]}"; do
	for x in "$d"/*; do
		[[ -x $x && ! -d $x && $(basename "$x") != rg && ! -e $NORG/$(basename "$x") ]] && ln -s "$x" "$NORG/"
	done
done
ENV_NORG=()
for v in "${ENV[@]}"; do
	[[ $v == PATH=* ]] && v=PATH=$NORG
	ENV_NORG+=("$v")
done
GOSRC=$(go env GOROOT)/src
for word in return zqxjv_not_anywhere; do
	{
		turn '[{"functionCall":{"name":"search_file_content","args":{"pattern":"'"$word"'","path":"'"$GOSRC"'"}}}]'
		turn '[{"text":"Found them."}]'
	} >"$TMP/search-$word.jsonl"
done
# The page cache warm for everyone.
find "$TREE" "$GOSRC" -type f -exec cat {} + >/dev/null
# "needle" is in a third of the files all over the tree: a search in path
# order reaches the cap within the first files. "haystack" is only in the
# last tenth: one in path order reads nine tenths of the tree first. In
# Go's tree "return" is everywhere, the other word nowhere.
search_rows() { # search_rows <tree> <word>
	local tree=$1 word=$2
	header "search \"$word\", $(find "$tree" -type f | wc -l) files"
	if command -v rg >/dev/null; then
		row "rg alone, $word" "$tree" rg --ignore-case --line-number "$word" "$tree"
		for b in prev now; do
			row "$b search, ripgrep, $word" "$tree" "${ENV[@]}" "$BIN/castor-$b" -y -o stream-json \
				--fake-responses "$TMP/search-$word.jsonl" -p "Find the $word"
		done
	else
		echo "rg is not on PATH: no ripgrep rows" >&2
	fi
	for b in prev now; do
		row "$b search, no ripgrep, $word" "$tree" "${ENV_NORG[@]}" "$BIN/castor-$b" -y -o stream-json \
			--fake-responses "$TMP/search-$word.jsonl" -p "Find the $word"
	done
	table "$SEARCH_RUNS"
}
search_rows "$TREE" needle
search_rows "$TREE" haystack
search_rows "$GOSRC" return
search_rows "$GOSRC" zqxjv_not_anywhere
# Every search answered (no deadline exceeded).
for f in "$TMP"/log/*search*.out; do
	grep -q '"type":"tool_result".*"status":"success"' "$f" || echo "startup.sh: $(basename "$f" .out): the search failed" >&2
done
