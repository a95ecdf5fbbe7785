#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on 127.0.0.1 for the A2A store's tests
# (a2a/pgstore, e2e/a2a): `.ci/postgres.sh start DIR` runs initdb in DIR
# (as the postgres user when run as root, which initdb refuses), starts
# the server on a free port with fsync off, and prints the URL the tests
# read from CASTOR_TEST_POSTGRES; `.ci/postgres.sh stop DIR` stops it.
set -euo pipefail

bindir=""
for d in /usr/lib/postgresql/*/bin; do
  [ -x "$d/initdb" ] && bindir=$d
done
if [ -z "$bindir" ]; then
  echo "no PostgreSQL under /usr/lib/postgresql (apt-get install postgresql)" >&2
  exit 1
fi

cmd=$1 dir=$2
# as runs a command as the cluster's owner: the postgres user under root.
as() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case $cmd in
start)
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  as "$bindir/initdb" -D "$dir/data" -U castor --auth=trust -E UTF8 >"$dir/initdb.log"
  # A random port, tried again when taken.
  started=""
  for _ in 1 2 3 4 5 6 7 8; do
    port=$((20000 + RANDOM % 40000))
    if as "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null; then
      started=1
      break
    fi
  done
  if [ -z "$started" ]; then
    echo "PostgreSQL did not start; its log:" >&2
    cat "$dir/server.log" >&2
    exit 1
  fi
  as "$bindir/createdb" -h 127.0.0.1 -p "$port" -U castor castor
  echo "postgres://castor@127.0.0.1:$port/castor?sslmode=disable"
  ;;
stop)
  as "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null || true
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2
  exit 2
  ;;
esac
