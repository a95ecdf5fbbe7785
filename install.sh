#!/bin/sh
# Installs Castor's latest release for this machine (Linux or macOS, amd64
# or arm64), after checking the archive against the release's SHA-256
# checksums:
#
#   curl -fsSL https://raw.githubusercontent.com/castor-dev/castor/main/install.sh | sh
#
# CASTOR_INSTALL_DIR  where castor goes (default: ~/.local/bin)
# CASTOR_VERSION      a version to install instead of the latest (0.2.0)
# CASTOR_RELEASE_URL  the folder holding release.json, checksums.txt and
#                     the archives (default: the project's latest GitHub
#                     release; a mirror or a local `scripts/release` dist
#                     served over HTTP works the same)
#
# Nothing is written to the install folder unless the checksum matches.
set -eu

fail() {
  echo "install.sh: $*" >&2
  exit 1
}

base=${CASTOR_RELEASE_URL:-}
if [ -z "$base" ]; then
  if [ -n "${CASTOR_VERSION:-}" ]; then
    base="https://github.com/castor-dev/castor/releases/download/v${CASTOR_VERSION#v}"
  else
    base="https://github.com/castor-dev/castor/releases/latest/download"
  fi
fi
base=${base%/}
dest=${CASTOR_INSTALL_DIR:-$HOME/.local/bin}

case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "no release for $(uname -s): on Windows use npm (npm i -g @castor-dev/castor) or the zip of the release" ;;
esac
case $(uname -m) in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "no release for the $(uname -m) processor" ;;
esac

if command -v curl >/dev/null 2>&1; then
  fetch() { curl -fsSL --proto '=http,https' -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  fetch() { wget -q -O "$2" "$1"; }
else
  fail "neither curl nor wget is installed"
fi
if command -v sha256sum >/dev/null 2>&1; then
  sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
  sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
  fail "neither sha256sum nor shasum is installed: the download cannot be checked"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

version=${CASTOR_VERSION:-}
if [ -z "$version" ]; then
  fetch "$base/release.json" "$tmp/release.json" || fail "cannot read $base/release.json"
  version=$(sed -n 's/.*"tag_name"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$tmp/release.json" | head -n 1)
  [ -n "$version" ] || fail "$base/release.json names no tag_name"
fi
version=${version#v}
archive="castor_${version}_${os}_${arch}.tar.gz"

echo "Downloading Castor $version for $os/$arch from $base"
fetch "$base/checksums.txt" "$tmp/checksums.txt" || fail "cannot read $base/checksums.txt"
fetch "$base/$archive" "$tmp/$archive" || fail "cannot download $base/$archive"
want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/checksums.txt")
[ -n "$want" ] || fail "checksums.txt has no line for $archive"
got=$(sha256 "$tmp/$archive")
if [ "$got" != "$want" ]; then
  fail "checksum mismatch for $archive: downloaded $got, checksums.txt says $want; nothing was installed"
fi

mkdir -p "$tmp/x" "$dest"
tar -xzf "$tmp/$archive" -C "$tmp/x" castor || fail "$archive holds no castor"
chmod 755 "$tmp/x/castor"
# Written beside the old one and renamed over it: a running castor keeps
# its file, and an interrupted install leaves the old one whole.
cp "$tmp/x/castor" "$dest/.castor.new.$$"
mv -f "$dest/.castor.new.$$" "$dest/castor"
echo "Installed $("$dest/castor" --version) to $dest/castor"
case ":$PATH:" in
  *":$dest:"*) ;;
  *) echo "Add $dest to your PATH to run castor." ;;
esac
