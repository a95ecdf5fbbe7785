#!/usr/bin/env bash
# bench/search.sh — search_file_content and glob over Go's own source tree
# ($(go env GOROOT)/src) against ripgrep run directly on the same tree.
#
# Builds the tool/builtin test binary once and runs its BenchmarkSearch*
# benchmarks ROUNDS times, interleaved (every benchmark once per round), so
# that load from other processes spreads over all of them; the table gives
# the median wall and CPU time (this process and the programs it ran) per
# benchmark and the ratios the issue sets targets for, judged on CPU,
# which other load on the machine changes less:
#
#   search_file_content, ripgrep backend / rg direct    target ≤ 1.1×
#   search_file_content, pure-Go backend / rg direct    target ≤ 3×
#   glob "**/*.go" / rg --files                         target ≤ 2×
#
# "rg direct" is `rg --ignore-case --line-number PATTERN DIR` (the tool
# searches case-insensitively), timed the same way, process start included.
# The searches are a literal with ~1,300 matches ("NewReader"), a regular
# expression, a literal found nowhere, and "needle|return", whose matches
# are everywhere (the 100-match cap is reached in the first folder).
#
# Usage: bench/search.sh [-n ROUNDS] [-t BENCHTIME] [-k]
#   -k  keep the temporary directory (test binary, raw benchmark output)
# Environment: ROUNDS (default 5), BENCHTIME (go -benchtime per round,
# default 3x).
#
# Needs go and rg. The exit status is non-zero only when something failed
# to build or run; missed targets are marked in the table.
set -euo pipefail
export LC_ALL=C

ROUNDS=${ROUNDS:-5}
BENCHTIME=${BENCHTIME:-3x}
KEEP=0
while getopts "n:t:kh" opt; do
	case $opt in
	n) ROUNDS=$OPTARG ;;
	t) BENCHTIME=$OPTARG ;;
	k) KEEP=1 ;;
	*)
		sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
		exit 2
		;;
	esac
done

command -v rg >/dev/null || { echo "search.sh: rg not on PATH" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
if [ "$KEEP" = 1 ]; then
	echo "keeping $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi

(cd "$root" && go test -c -o "$tmp/builtin.test" ./tool/builtin)
echo "GOROOT/src: $(go env GOROOT)/src, $(find "$(go env GOROOT)/src" -type f | wc -l) files; $(nproc) CPUs; $(rg --version | head -1)" >&2
for i in $(seq "$ROUNDS"); do
	echo "round $i/$ROUNDS" >&2
	(cd "$root/tool/builtin" && "$tmp/builtin.test" -test.run '^$' -test.bench 'BenchmarkSearch' -test.benchtime "$BENCHTIME") >>"$tmp/bench.txt"
done

awk '
/^BenchmarkSearch/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	c = ""
	for (i = 2; i <= NF; i++) { if ($(i) == "ns/op") v = $(i-1); if ($(i) == "cpu-ms/op") c = $(i-1) }
	n[name]++; t[name, n[name]] = v; cpu[name, n[name]] = c
}
function median(arr, name,   k, i, j, x, a) {
	k = n[name]
	for (i = 1; i <= k; i++) a[i] = arr[name, i]
	for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j+1] = a[j]; a[j+1] = x }
	return (k % 2) ? a[(k+1)/2] : (a[k/2] + a[k/2+1]) / 2
}
function row(label, num, den, target,   a, b, r, ca, cb, cr) {
	if (!(num in n) || !(den in n)) { printf "%-44s %10s %10s %7s %8s %8s %7s  %s\n", label, "-", "-", "-", "-", "-", "-", "skipped"; return }
	a = median(t, num) / 1e6; b = median(t, den) / 1e6; r = a / b
	ca = median(cpu, num); cb = median(cpu, den); cr = (cb > 0) ? ca / cb : 0
	printf "%-44s %8.1fms %8.1fms %6.2fx %6.1fms %6.1fms %6.2fx  %s\n", label, a, b, r, ca, cb, cr, ((cr > 0 ? cr : r) <= target ? "ok (≤ " target "x)" : "MISSED (target " target "x)")
}
END {
	printf "%-44s %10s %10s %7s %8s %8s %7s  %s\n", "benchmark (median)", "castor", "baseline", "ratio", "CPU", "CPU base", "ratio", "target (CPU)"
	split("literal regexp none capped", pats, " ")
	for (i = 1; i <= 4; i++) {
		p = pats[i]
		row("search_file_content ripgrep/" p " vs rg", "BenchmarkSearchTool/backend=ripgrep/" p, "BenchmarkSearchRipgrepDirect/" p, 1.1)
	}
	for (i = 1; i <= 4; i++) {
		p = pats[i]
		row("search_file_content pure Go/" p " vs rg", "BenchmarkSearchTool/backend=go/" p, "BenchmarkSearchRipgrepDirect/" p, 3)
	}
	row("glob **/*.go vs rg --files", "BenchmarkSearchGlob", "BenchmarkSearchRgFiles", 2)
}' "$tmp/bench.txt"
