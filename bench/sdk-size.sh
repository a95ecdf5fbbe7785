#!/usr/bin/env bash
# bench/sdk-size.sh — what the SDK costs a Go program, and how big the
# engine, the A2A face and the assembly are.
#
# Builds, in a temporary directory outside the repository, the smallest
# useful SDK program (one agent from castor.New, reading GEMINI_API_KEY as
# the castor command does; one Send; the answer printed), with a replace
# directive to the checkout, and prints:
#
#   - its binary size, plain and with -ldflags='-s -w';
#   - its package count (`go list -deps .`: all, and without the standard
#     library), and the root package's (`go list -deps .` in the module);
#   - whether the root package reaches a2a, ide/companion, internal/cli or
#     cobra (it must not: the SDK links no face);
#   - line counts (non-test .go files) of agent, a2a (the package alone
#     and with its subpackages), internal/a2asession (A2A's session
#     factory), the assembly (internal/setup, or the root package's
#     setup*.go files before it existed) and the root package.
#
# Usage: bench/sdk-size.sh [REV]
#   REV  a git revision to measure instead of the work tree (for example
#        5025a06, before the assembly moved to internal/setup); its files
#        are taken with git archive into the temporary directory.
# Nothing is written to the repository; the go build cache is used.
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/castor-sdk-size.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

SRC=$ROOT
LABEL="work tree ($(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'))"
if [ $# -gt 0 ]; then
	SRC=$TMP/src
	mkdir -p "$SRC"
	git -C "$ROOT" archive "$1" | tar -x -C "$SRC"
	LABEL="$1 ($(git -C "$ROOT" rev-parse --short "$1"))"
fi

# castor.New took no context before the SDK became a facade.
newcall='castor.New(ctx)'
grep -q 'func New(ctx context.Context' "$SRC/castor.go" || newcall='castor.New()'

PROG=$TMP/prog
mkdir -p "$PROG"
cat >"$PROG/main.go" <<EOF
// Command sdkprobe is the smallest useful Castor SDK program.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/castor-dev/castor"
)

func main() {
	ctx := context.Background()
	a, err := $newcall
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer a.Close()
	res, err := a.Send(ctx, strings.Join(os.Args[1:], " "))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(res.Text)
}
EOF
goline=$(grep -m1 '^go ' "$SRC/go.mod")
cat >"$PROG/go.mod" <<EOF
module sdkprobe

$goline

require github.com/castor-dev/castor v0.0.0

replace github.com/castor-dev/castor => $SRC
EOF
cp "$SRC/go.sum" "$PROG/go.sum"

cd "$PROG"
export GOFLAGS=-mod=mod GOWORK=off
go build -o sdk .
go build -ldflags='-s -w' -o sdk-stripped .
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f MB (%d bytes)", b / 1048576, b }'; }
all=$(go list -deps . | wc -l)
nonstd=$(go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' . | grep -c . || true)
root_all=$(cd "$SRC" && GOFLAGS= go list -deps . | wc -l)
faces=$(cd "$SRC" && GOFLAGS= go list -deps . | grep -E '^github.com/castor-dev/castor/(a2a|ide/companion|internal/cli)(/|$)|^github.com/spf13/cobra(/|$)' || true)

lines() {
	local n=0 f
	for f in "$@"; do
		[ -e "$f" ] || continue
		n=$((n + $(find "$f" -name '*.go' ! -name '*_test.go' -print0 | xargs -0r cat | wc -l)))
	done
	echo "$n"
}
top() { # the package's own files, without subdirectories
	find "$1" -maxdepth 1 -name '*.go' ! -name '*_test.go' -print0 | xargs -0r cat | wc -l
}
if [ -d "$SRC/internal/setup" ]; then
	assembly="internal/setup $(lines "$SRC/internal/setup")"
else
	assembly="root setup*.go $(find "$SRC" -maxdepth 1 -name 'setup*.go' ! -name '*_test.go' -print0 | xargs -0r cat | wc -l)"
fi

echo "Castor SDK size: $LABEL | $(go version | cut -d' ' -f3-)"
echo "minimal SDK program, binary:            $(mb sdk)"
echo "minimal SDK program, -ldflags='-s -w':  $(mb sdk-stripped)"
echo "minimal SDK program, go list -deps:     $all packages ($nonstd outside the standard library)"
echo "root package castor, go list -deps:     $root_all packages"
if [ -n "$faces" ]; then
	echo "root package reaches faces:             yes:" $faces
else
	echo "root package reaches faces:             no (a2a, ide/companion, internal/cli, cobra absent)"
fi
echo "lines (non-test .go):"
echo "  agent                                 $(lines "$SRC/agent")"
echo "  a2a (package)                         $(top "$SRC/a2a")"
echo "  a2a with subpackages                  $(lines "$SRC/a2a")"
echo "  internal/a2asession                   $(lines "$SRC/internal/a2asession")"
echo "  assembly                              $assembly"
echo "  root package castor                   $(top "$SRC")"
