#!/usr/bin/env bash
# bench/tck.sh — run the A2A TCK (github.com/a2aproject/a2a-tck) against
# castor a2a-server, on a development machine (CI cannot fetch the TCK).
#
# Usage: bench/tck.sh [-k] [-v] TCK_DIR [CATEGORY] [-- pytest args...]
#
# TCK_DIR is a checkout of a2a-tck. The script tells the two lines apart:
#   - branch 0.3.x (A2A 0.3, tests/mandatory/): CATEGORY is mandatory
#     (the default), capabilities, quality or features;
#   - branch 1.0-dev (A2A 1.0, tests/compatibility/): CATEGORY is
#     mandatory (the default: the MUST-level tests, as `run_tck.py --level
#     must`), should, may or all.
#   -k  keep the temporary directory (binaries, logs, JUnit XML)
#   -v  verbose pytest output (one line per test)
#   -r  test a replica set: three castor a2a-server replicas on one
#       throwaway PostgreSQL cluster (.ci/postgres.sh), behind a loopback
#       round-robin proxy (internal/rrproxy/cmd/rrproxy), so that each
#       request reaches the next replica
#
# It builds castor and internal/fakegemini/cmd/fakegemini into a temporary
# directory, starts fakegemini on a script of plain text replies (each turn
# ends in input-required, the non-terminal state the TCK expects of a
# message/send answer), starts `castor a2a-server --port 0 --memory-store`
# on 127.0.0.1 with HOME, the workspace and the store in the temporary
# directory, runs the category's tests with pytest and prints the
# pass/fail/skip counts and the failing tests. The exit status is pytest's
# (0 when every selected test passed).
#
# Python: the TCK's dependencies from Debian apt, run with /usr/bin/python3
# (see /work/shared/reference/conformance.md §A.8):
#   apt-get install python3-pytest python3-pytest-asyncio python3-httpx \
#     python3-requests python3-responses python3-jsonschema python3-yaml \
#     python3-dotenv python3-grpcio python3-protobuf python3-jinja2
# Environment: PYTHON (default /usr/bin/python3), TCK_STREAMING_TIMEOUT
# (the TCK's, default 2.0), REPLIES (text replies scripted, default 2000),
# GOFLAGS (passed to go build), SUT_URL (test that running server instead
# of building and starting castor, e.g. a reference SDK's, to compare).
set -euo pipefail
export LC_ALL=C

KEEP=0
VERBOSE=0
REPLICAS=0
while getopts "kvrh" opt; do
	case $opt in
	k) KEEP=1 ;;
	v) VERBOSE=1 ;;
	r) REPLICAS=1 ;;
	*)
		sed -n "2,40p" "$0" | sed 's/^# \{0,1\}//'
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
die() {
	echo "tck.sh: $*" >&2
	exit 1
}
(($# >= 1)) || die "usage: bench/tck.sh [-k] [-v] TCK_DIR [CATEGORY] [-- pytest args...]"
TCK=$(cd "$1" && pwd) || die "$1: no such directory"
shift
CATEGORY=mandatory
if (($# >= 1)) && [[ $1 != -- ]]; then
	CATEGORY=$1
	shift
fi
[[ ${1:-} == -- ]] && shift
PYTHON=${PYTHON:-/usr/bin/python3}
REPLIES=${REPLIES:-2000}

# Which TCK line, and the pytest selection for the category.
declare -a SELECT
if [[ -d $TCK/tests/compatibility ]]; then
	LINE=1.0
	case $CATEGORY in
	mandatory | must) SELECT=(tests/compatibility/ -m must) ;;
	should | may) SELECT=(tests/compatibility/ -m "$CATEGORY") ;;
	all) SELECT=(tests/compatibility/) ;;
	*) die "category $CATEGORY: the 1.0 TCK has mandatory, should, may and all" ;;
	esac
elif [[ -d $TCK/tests/mandatory ]]; then
	LINE=0.3
	case $CATEGORY in
	mandatory) SELECT=(tests/mandatory/ -m "mandatory_jsonrpc or mandatory_protocol") ;;
	capabilities) SELECT=(tests/optional/capabilities/) ;;
	quality) SELECT=(tests/optional/quality/) ;;
	features) SELECT=(tests/optional/features/) ;;
	*) die "category $CATEGORY: the 0.3 TCK has mandatory, capabilities, quality and features" ;;
	esac
else
	die "$TCK is not an a2a-tck checkout (no tests/mandatory or tests/compatibility)"
fi
"$PYTHON" -c 'import pytest, pytest_asyncio, httpx' 2>/dev/null ||
	die "$PYTHON lacks pytest, pytest-asyncio or httpx (install the Debian packages listed in bench/tck.sh -h)"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/castor-tck.XXXXXX")
BIN=$TMP/bin
mkdir -p "$BIN" "$TMP/home" "$TMP/ws" "$TMP/logs"
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	if [[ -n ${PGDIR:-} ]]; then
		"$ROOT/.ci/postgres.sh" stop "$PGDIR" || true
		rm -rf "$PGDIR"
	fi
	if ((KEEP)); then
		echo "kept $TMP"
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT

if [[ -n ${SUT_URL:-} ]]; then
	# Another server under test (a reference SDK's, say), already running.
	SUT=${SUT_URL%/}
	echo "server under test at $SUT; TCK $LINE $(git -C "$TCK" describe --all --always 2>/dev/null || true), category $CATEGORY"
else
	echo "building castor and fakegemini into $BIN ..."
	(cd "$ROOT" && go build -o "$BIN/castor" ./cmd/castor) || die "go build ./cmd/castor failed"
	(cd "$ROOT" && go build -o "$BIN/fakegemini" ./internal/fakegemini/cmd/fakegemini) || die "go build fakegemini failed"

	# One streamed text reply per model call; the TCK makes a few hundred turns
	# at most, and a turn the fake cannot answer would fail its task.
	for ((i = 0; i < REPLIES; i++)); do
		printf '{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"text":"TCK reply %d."}]},"index":0,"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":3,"totalTokenCount":13}}]}\n' "$i"
	done >"$TMP/script.jsonl"

	# first_url waits for a process to print its URL on stdout.
	first_url() {
		local file=$1 what=$2
		for _ in $(seq 100); do
			if grep -qo 'http://[^ ]*' "$file" 2>/dev/null; then
				grep -o 'http://[^ ]*' "$file" | head -1
				return
			fi
			sleep 0.1
		done
		die "$what printed no URL (logs in $TMP/logs; rerun with -k to keep them)"
	}

	"$BIN/fakegemini" "$TMP/script.jsonl" >"$TMP/logs/fake.out" 2>"$TMP/logs/fake.err" &
	PIDS+=($!)
	FAKE=$(first_url "$TMP/logs/fake.out" fakegemini)

	# serve starts one castor a2a-server, its logs named $1, with the
	# store flags after it.
	serve() {
		local name=$1
		shift
		(cd "$TMP/ws" && exec env -i HOME="$TMP/home" PATH="$PATH" GEMINI_API_KEY=tck-key \
			GOOGLE_GEMINI_BASE_URL="$FAKE" GEMINI_CLI_TRUST_WORKSPACE=true \
			"$BIN/castor" a2a-server --host 127.0.0.1 --port 0 "$@" --allow-private-push \
			--workspace "$TMP/ws" --allowed-root "$TMP" >"$TMP/logs/$name.out" 2>"$TMP/logs/$name.err") &
		PIDS+=($!)
	}
	if ((REPLICAS)); then
		# Not under $TMP, which only its owner may enter: as root, the
		# cluster runs as the postgres user.
		PGDIR=$(mktemp -d "${TMPDIR:-/tmp}/castor-tck-pg.XXXXXX")
		PG=$("$ROOT/.ci/postgres.sh" start "$PGDIR") || die "PostgreSQL did not start"
		(cd "$ROOT" && go build -o "$BIN/rrproxy" ./internal/rrproxy/cmd/rrproxy) || die "go build rrproxy failed"
		declare -a URLS=()
		for r in 1 2 3; do
			serve "castor$r" --store "$PG" --lease-ttl 5s
			URLS+=("$(first_url "$TMP/logs/castor$r.out" "castor a2a-server replica $r")")
		done
		"$BIN/rrproxy" "${URLS[@]}" >"$TMP/logs/rrproxy.out" 2>"$TMP/logs/rrproxy.err" &
		PIDS+=($!)
		SUT=$(first_url "$TMP/logs/rrproxy.out" rrproxy)
		echo "three replicas on PostgreSQL (${URLS[*]}) behind a round-robin proxy"
	else
		serve castor --memory-store
		SUT=$(first_url "$TMP/logs/castor.out" "castor a2a-server")
	fi
	SUT=${SUT%/}
	echo "castor a2a-server at $SUT (fake model at $FAKE); TCK $LINE $(git -C "$TCK" describe --all --always 2>/dev/null || true) $(git -C "$TCK" rev-parse --short HEAD 2>/dev/null || true), category $CATEGORY"
fi

declare -a ARGS=(-p no:cacheprovider --tb=short -rfE "--junitxml=$TMP/junit.xml")
((VERBOSE)) && ARGS+=(-v) || ARGS+=(-q)
if [[ $LINE == 1.0 ]]; then
	# The 1.0 line's pyproject.toml asks for pytest 8 (minversion, which
	# -o cannot lower); Debian 12 has 7.2, which runs the tests. Use its
	# pytest settings, less minversion, from an ini file of our own.
	"$PYTHON" - "$TCK/pyproject.toml" >"$TMP/pytest.ini" <<'PYINI'
import sys, tomllib
opts = tomllib.load(open(sys.argv[1], "rb"))["tool"]["pytest"]["ini_options"]
print("[pytest]")
for k, v in opts.items():
    if k == "minversion":
        continue
    if isinstance(v, list):
        print(k + " =\n" + "".join(f"    {x}\n" for x in v), end="")
    else:
        print(f"{k} = {v}")
PYINI
	ARGS+=("--sut-host=$SUT" -c "$TMP/pytest.ini" --rootdir "$TCK")
	# Its conftest imports the generated a2a_pb2 (gRPC stubs and the
	# proto-schema validator of JSON payloads), built by protobuf 6: it
	# needs google.protobuf.runtime_version and the google.api protos
	# (googleapis-common-protos), which Debian 12 (protobuf 3.21) lacks. A
	# shim supplies both: a no-op version check, and google/api files that
	# only name themselves, since a2a.proto uses them for options alone.
	# JSON-RPC runs are unaffected; gRPC ones are not attempted here.
	SHIM=$TMP/pyshim
	if ! "$PYTHON" -c 'import google.protobuf.runtime_version, google.api.annotations_pb2' 2>/dev/null; then
		mkdir -p "$SHIM/google/api" "$SHIM/google/protobuf"
		printf '%s\n' 'import os, google.protobuf' \
			'google.protobuf.__path__.append(os.path.join(os.path.dirname(__file__), "google", "protobuf"))' \
			>"$SHIM/tck_protobuf_shim.py"
		printf '%s\n' 'class Domain:' '    GOOGLE_INTERNAL = 1' '    PUBLIC = 2' \
			'def ValidateProtobufRuntimeVersion(*args, **kwargs):' '    pass' \
			>"$SHIM/google/protobuf/runtime_version.py"
		for n in annotations client field_behavior; do
			printf '%s\n' 'from google.protobuf import descriptor_pb2, descriptor_pool' \
				'DESCRIPTOR = descriptor_pool.Default().AddSerializedFile(' \
				"    descriptor_pb2.FileDescriptorProto(name=\"google/api/$n.proto\", package=\"google.api\").SerializeToString())" \
				>"$SHIM/google/api/${n}_pb2.py"
		done
		export PYTHONPATH=$SHIM${PYTHONPATH:+:$PYTHONPATH}
		ARGS+=(-p tck_protobuf_shim)
	fi
	# Only the transport castor serves: the gRPC and HTTP+JSON tests and
	# parametrizations would show as skips and hide the count that matters.
	ARGS+=(--transport=jsonrpc --ignore=tests/compatibility/grpc --ignore=tests/compatibility/http_json
		-k "not grpc and not http_json and not TestRest and not _rest")
else
	ARGS+=("--sut-url=$SUT" --test-scope=all)
fi
rc=0
(cd "$TCK" && TCK_STREAMING_TIMEOUT=${TCK_STREAMING_TIMEOUT:-2.0} "$PYTHON" -m pytest "${SELECT[@]}" "${ARGS[@]}" "$@") || rc=$?

# Counts from the JUnit XML, whatever pytest's summary line says.
"$PYTHON" - "$TMP/junit.xml" "$LINE" "$CATEGORY" <<'EOF' || true
import sys, xml.etree.ElementTree as ET
path, line, cat = sys.argv[1:4]
try:
    root = ET.parse(path).getroot()
except Exception as e:
    print(f"no JUnit report: {e}")
    sys.exit(0)
n = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
bad = []
for tc in root.iter("testcase"):
    kind = "passed"
    for child in tc:
        if child.tag in ("failure", "error", "skipped"):
            kind = {"failure": "failed"}.get(child.tag, child.tag)
            break
    n[kind] += 1
    if kind in ("failed", "error"):
        bad.append(f"  {kind}: {tc.get('classname')}::{tc.get('name')}")
print(f"TCK {line} {cat}: {n['passed']} passed, {n['failed']} failed, {n['error']} errors, {n['skipped']} skipped (xfail counts as skipped)")
print("\n".join(bad))
EOF
exit "$rc"
