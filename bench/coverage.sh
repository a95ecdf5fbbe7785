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

echo "== end-to-end tests (the binary built with -cover)"
CASTOR_E2E_COVERDIR="$data/e2e" go test -count=1 ./e2e/... | tail -n +1
echo "== unit tests of the packages"
go test -count=1 -cover -coverpkg="$coverpkg" "${pkgs[@]/#/./}" -args -test.gocoverdir="$data/unit" >/dev/null

go tool covdata merge -i="$data/e2e,$data/unit" -o "$data/all"
# percent prints "pkg coverage: N% of statements" per package.
pct() { go tool covdata percent -i="$1" -pkg="$coverpkg" | awk '{print $1, $3}'; }
printf '\n%-40s %10s %10s %10s\n' package e2e unit both
join <(pct "$data/e2e" | sort) <(pct "$data/unit" | sort) | join - <(pct "$data/all" | sort) |
  while read -r p e u a; do printf '%-40s %10s %10s %10s\n' "${p#"$mod"/}" "$e" "$u" "$a"; done
