#!/bin/sh
# A call command: $1 is the tool's declared name, the arguments are JSON
# on stdin.
case "$1" in
echo)
	cat
	;;
now)
	printf 'ran in %s' "$(basename "$PWD")"
	;;
fail)
	cat
	echo "something broke" >&2
	exit 2
	;;
warn)
	printf 'done'
	echo "deprecated" >&2
	;;
signal)
	kill -TERM $$
	;;
huge)
	head -c 11000000 /dev/zero | tr '\0' 'x'
	;;
hang)
	echo started
	sleep 30
	;;
*)
	echo "unknown tool $1" >&2
	exit 1
	;;
esac
