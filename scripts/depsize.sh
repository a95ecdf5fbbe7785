#!/usr/bin/env bash
# depsize.sh [PKG...] prints what each package costs a stripped static
# linux/amd64 binary on its own: a program importing only it, built as
# the release builds (with scripts/release's grpcnotrace tag), less an
# empty program. Packages share dependencies (net/http, protobuf), so the
# numbers overlap and do not add up; they say
# which imports are worth moving behind a build tag. With no arguments it
# measures the module's largest direct dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
  pkgs=(
    google.golang.org/genai
    google.golang.org/grpc
    github.com/a2aproject/a2a-go/a2aclient
    github.com/a2aproject/a2a-go/v2/a2asrv
    github.com/modelcontextprotocol/go-sdk/mcp
    github.com/coder/acp-go-sdk
    charm.land/bubbletea/v2
    charm.land/lipgloss/v2
    gocloud.dev/blob
    golang.org/x/text/collate
    mvdan.cc/sh/v3/syntax
    github.com/spf13/cobra
    cloud.google.com/go/auth/credentials
  )
fi
work=$(mktemp -d "$root/.depsize.XXXXXX")
trap 'rm -rf "$work"' EXIT
build() { # build DIR: prints the stripped size of the program in DIR
  (cd "$root" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -tags grpcnotrace -ldflags "-s -w" -o "$1/bin" "./${1#"$root"/}")
  stat -c %s "$1/bin"
}
mkdir -p "$work/empty"
printf 'package main\n\nfunc main() {}\n' >"$work/empty/main.go"
base=$(build "$work/empty")
printf '%8s  %s\n' "MB" "package (alone, over an empty program of $((base / 1000)) kB)"
i=0
for p in "${pkgs[@]}"; do
  i=$((i + 1))
  mkdir -p "$work/p$i"
  printf 'package main\n\nimport _ "%s"\n\nfunc main() {}\n' "$p" >"$work/p$i/main.go"
  size=$(build "$work/p$i")
  awk -v s="$size" -v b="$base" -v p="$p" 'BEGIN { printf "%8.2f  %s\n", (s - b) / 1e6, p }'
done
