#!/bin/sh
# A discovery command: prints the declarations of the shape named by $1.
case "$1" in
plain)
	cat <<'JSON'
[{"name": "echo", "description": "Echoes its input.",
  "parametersJsonSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
 {"name": "now"}]
JSON
	;;
snake)
	echo '[{"function_declarations": [{"name": "echo", "description": "Echoes."}, {"name": "now"}]}]'
	;;
camel)
	echo '[{"functionDeclarations": [{"name": "echo", "description": "Echoes."}]}, {"functionDeclarations": [{"name": "now"}]}]'
	;;
mixed)
	echo '[{"name": "echo"}, {"function_declarations": [{"name": "now"}]}, {"functionDeclarations": [{"name": "fail"}]}]'
	;;
malformed)
	echo '[{"description": "no name"}, {"name": "has space"}, {"name": "ok", "parametersJsonSchema": "nope"}, 3, {"name": "echo"}]'
	;;
empty)
	echo '[]'
	;;
object)
	echo '{"name": "echo"}'
	;;
bad)
	echo '[{"name": "echo",'
	;;
silent)
	;;
fail)
	echo "starting" >&2
	echo "no tools here: database is down" >&2
	exit 3
	;;
env)
	printf '[{"name": "%s"}]\n' "$DISCOVERED_NAME"
	;;
huge)
	# More than the 10 MiB Castor keeps, after a valid start.
	printf '['
	head -c 11000000 /dev/zero | tr '\0' ' '
	printf ']'
	;;
pwd)
	printf '[{"name": "%s"}]\n' "$(basename "$PWD")"
	;;
*)
	echo "unknown shape $1" >&2
	exit 2
	;;
esac
