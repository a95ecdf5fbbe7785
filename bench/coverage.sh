#!/usr/bin/env bash
# Coverage of Castor's faces: how much of each package the end-to-end
# tests reach by running the built binary (e2e/..., built with -cover via
# CASTOR_E2E_COVERDIR), how much its own unit tests reach, and both
# together, as `go tool covdata percent` counts them.
#
#   bench/coverage.sh [package patterns...]
#
# The default packages are the faces and what drives them: a2a, acp,
# internal/acp, internal/tui and internal/cli. KEEP=dir keeps the raw
# coverage data there instead of in a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/castor-dev/castor
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(a2a acp internal/acp internal/tui internal/cli)

data=${KEEP:-$(mktemp -d)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$data"' EXIT
mkdir -p "$data/e2e" "$data/unit" "$data/all"

full=()
for p in "${pkgs[@]}"; do full+=("$mod/$p"); done
coverpkg=$(IFS=,; echo "${full[*]}")

echo "== end-to-end tests (the binary built with -cover, and the tests' own"
echo "   client code, such as the acp package's Go client)"
CASTOR_E2E_COVERDIR="$data/e2e" go test -count=1 -cover -coverpkg="$coverpkg" ./e2e/... -args -test.gocoverdir="$data/e2e" 2>&1 |
  grep -v "^warning: no packages being tested depend"
echo "== unit tests of the packages"
go test -count=1 -cover -coverpkg="$coverpkg" "${pkgs[@]/#/./}" -args -test.gocoverdir="$data/unit" >/dev/null

go tool covdata merge -i="$data/e2e,$data/unit" -o "$data/all"
# percent prints "pkg coverage: N% of statements" per package it saw.
pct() { go tool covdata percent -i="$1" -pkg="$coverpkg" | awk -v set="$2" '{print $1, set, $3}'; }
printf '\n%-30s %8s %8s %8s\n' package e2e unit both
{ pct "$data/e2e" e2e; pct "$data/unit" unit; pct "$data/all" both; } |
  awk -v mod="$mod/" '{ sub(mod, "", $1); v[$1, $2] = $3; p[$1] = 1 }
    END { for (k in p) printf "%-30s %8s %8s %8s\n", k, (k SUBSEP "e2e") in v ? v[k, "e2e"] : "-",
      (k SUBSEP "unit") in v ? v[k, "unit"] : "-", (k SUBSEP "both") in v ? v[k, "both"] : "-" }' | sort
