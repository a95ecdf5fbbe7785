#!/usr/bin/env bash
# bench/mutants.sh — mutation testing of one or more packages on a
# reproducible sample of mutants (issue #24: tests that can fail).
#
# A whole gremlins run tests every mutant of a package (hundreds, each a
# test build), which is hours on a shared machine. This script lets
# gremlins find the mutants (`gremlins unleash --dry-run`, the default
# mutators: arithmetic, conditionals boundary and negation, ++/--, unary
# minus), orders them by sha256("SEED:file:line:column:type"), and tests
# the first N that compile: each mutant is written to a temporary copy of
# its file and the package's own tests run against it through
# `go test -overlay`, so the worktree is never modified. The order depends
# only on the seed and on the non-test code, so the same command picks the
# same mutants before and after tests are added. Mutants on lines no test
# covers are part of the sample: they are exactly the ones no test can
# catch. The tests are the files as they are when each mutant runs: do not
# edit them during a run (or run a copy: git archive HEAD | tar -x -C DIR).
#
# Issue #24's numbers: bench/mutants.sh ./agent ./policy ./tool, and
# bench/mutants.sh -x '^(grep|shell)' ./tool/builtin
#
# Usage: bench/mutants.sh [-n N] [-s SEED] [-x RE] [-f RE] [-r RE] [-k] PKG...
#   PKG       a package directory, e.g. ./agent (its subpackages are not
#             included)
#   -n N      sample size per package (default 30)
#   -s SEED   sample seed (default 24)
#   -x RE     skip files whose name matches RE (perl regexp, e.g.
#             '^(grep|shell)' for files other people are changing)
#   -f RE     take only files whose name matches RE (e.g. '^compress' with
#             -n 100: every mutant of one file)
#   -r RE     test again only the sampled mutants whose
#             "file:line:column:TYPE" matches RE (perl regexp), e.g. the
#             ones that lived, after adding tests; the others only compile
#             to keep their place in the sample
#   -k        keep the temporary directory (mutated files, test logs)
# Environment: GREMLINS (default $(go env GOPATH)/bin/gremlins), TIMEOUT
# (per test run, default 10m), GOFLAGS is honoured.
#
# Reading the output: a header per package ("== agent: 567 mutants, sample
# of 30, seed 24"), then one line per sampled mutant,
#   KILLED    agent/compress.go:56:17  ARITHMETIC_BASE  `return int32(n * 4)`
#   LIVED     agent/history.go:53:19  CONDITIONALS_NEGATION  `if p.InlineData == nil || ...` (not covered)
# where the quoted text is the mutated line and "(not covered)" says no
# test runs that line (gremlins' coverage). KILLED means a test failed
# with the mutant in place (good), LIVED means every test still passed (a
# behaviour no test pins, or an equivalent mutant), TIMEOUT means the tests
# hung (counted as killed). Mutants that do not compile (e.g. `-` on
# strings) are listed as NOTVIABLE and replaced by the next in the order.
# The last line per package is "PKG: L lived of N (P %)"; the
# exit status is non-zero only when something failed to run.
#
# Not run by CI: it takes about a minute per mutant on a loaded machine.
set -euo pipefail
export LC_ALL=C

N=30
SEED=24
EXCLUDE=
FILES=
ONLY=
KEEP=
while getopts n:s:x:f:r:k opt; do
	case $opt in
	n) N=$OPTARG ;;
	s) SEED=$OPTARG ;;
	x) EXCLUDE=$OPTARG ;;
	f) FILES=$OPTARG ;;
	r) ONLY=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '2,/^set -e/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: bench/mutants.sh [-n N] [-s SEED] [-x RE] [-f RE] [-r RE] [-k] PKG..." >&2; exit 2; }

cd "$(dirname "$0")/.."
ROOT=$PWD
GREMLINS=${GREMLINS:-$(go env GOPATH)/bin/gremlins}
TIMEOUT=${TIMEOUT:-10m}
[ -x "$GREMLINS" ] || { echo "no gremlins at $GREMLINS (go install github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0)" >&2; exit 1; }

TMP=$(mktemp -d)
if [ -n "$KEEP" ]; then echo "keeping $TMP" >&2; else trap 'rm -rf "$TMP"' EXIT; fi

# mutate FILE LINE COL TYPE OUT: writes FILE with the operator at LINE:COL
# replaced as gremlins' TYPE does, and prints the mutated line.
mutate() {
	perl -e '
		my ($file, $line, $col, $type, $out) = @ARGV;
		my %map = (
			ARITHMETIC_BASE       => {"+"=>"-", "-"=>"+", "*"=>"/", "/"=>"*", "%"=>"*"},
			CONDITIONALS_BOUNDARY => {">="=>">", ">"=>">=", "<="=>"<", "<"=>"<="},
			CONDITIONALS_NEGATION => {"=="=>"!=", "!="=>"==", ">="=>"<", ">"=>"<=", "<="=>">", "<"=>">="},
			INCREMENT_DECREMENT   => {"++"=>"--", "--"=>"++"},
			INVERT_NEGATIVES      => {"-"=>"+"},
		);
		open my $in, "<", $file or die "$file: $!\n";
		my @lines = <$in>;
		close $in;
		my $text = $lines[$line - 1];
		my $m = $map{$type} or die "$file:$line:$col: unknown mutator $type\n";
		my ($op) = grep { substr($text, $col - 1, length $_) eq $_ } sort { length $b <=> length $a } keys %$m;
		defined $op or die "$file:$line:$col: no $type operator at " . substr($text, $col - 1, 8) . "\n";
		substr($text, $col - 1, length $op) = $m->{$op};
		$lines[$line - 1] = $text;
		open my $o, ">", $out or die "$out: $!\n";
		print $o @lines;
		close $o;
		$text =~ s/^\s+|\s+$//g;
		print $text;
	' "$@"
}

status=0
for pkg in "$@"; do
	pkg=${pkg%/}
	case $pkg in ./*) ;; *) pkg=./$pkg ;; esac
	name=${pkg#./}
	work=$TMP/${name//\//_}
	mkdir -p "$work"
	# The dry run lists the package's mutants (and whether tests cover
	# their lines); only the package's own files are kept.
	if ! "$GREMLINS" unleash --dry-run -o "$work/dry.json" "$pkg" >"$work/dry.log" 2>&1; then
		echo "$name: gremlins failed, see $work/dry.log" >&2
		status=1
		continue
	fi
	jq -r '.files[] | .file_name as $f | .mutations[] | [$f, .line, .column, .type, .status] | @tsv' "$work/dry.json" |
		SEED=$SEED EXCLUDE=$EXCLUDE FILES=$FILES perl -MDigest::SHA=sha256_hex -F'\t' -lane '
			next if $F[0] =~ m{/};
			next if length $ENV{EXCLUDE} && $F[0] =~ /$ENV{EXCLUDE}/;
			next if length $ENV{FILES} && $F[0] !~ /$ENV{FILES}/;
			print join("\t", sha256_hex("$ENV{SEED}:$F[0]:$F[1]:$F[2]:$F[3]"), @F);
		' | sort >"$work/order.tsv"
	total=$(wc -l <"$work/order.tsv")
	echo "== $name: $total mutants, sample of $N, seed $SEED"

	tested=0 lived=0 again=0 i=0
	while IFS=$'\t' read -r _ file line col type cover; do
		[ "$tested" -lt "$N" ] || break
		i=$((i + 1))
		src=$ROOT/$name/$file
		out=$work/m$i.go
		if ! text=$(mutate "$src" "$line" "$col" "$type" "$out"); then
			status=1
			continue
		fi
		printf '{"Replace":{"%s":"%s"}}' "$src" "$out" >"$work/m$i.json"
		if [ -n "$ONLY" ] && ! printf '%s' "$file:$line:$col:$type" | perl -ne "exit !/$ONLY/"; then
			# Not tested again, but it takes its place in the sample if it
			# compiles, so that the sample stays that of a run without -r.
			if go build -o /dev/null -overlay "$work/m$i.json" "$pkg" >/dev/null 2>&1; then
				tested=$((tested + 1))
			fi
			continue
		fi
		res=KILLED
		if timeout "$TIMEOUT" go test -count=1 -vet=off -failfast -overlay "$work/m$i.json" "$pkg" </dev/null >"$work/m$i.log" 2>&1; then
			res=LIVED
		else
			rc=$?
			if grep -q -e '\[build failed\]' -e '\[setup failed\]' "$work/m$i.log"; then
				res=NOTVIABLE
			elif [ "$rc" -eq 124 ] || grep -q 'panic: test timed out' "$work/m$i.log"; then
				res=TIMEOUT
			fi
		fi
		[ "$cover" = "NOT COVERED" ] && cover=" (not covered)" || cover=
		printf '%-9s %s/%s:%s:%s  %s  `%s`%s\n' "$res" "$name" "$file" "$line" "$col" "$type" "$text" "$cover"
		[ "$res" = NOTVIABLE ] && continue
		tested=$((tested + 1)) again=$((again + 1))
		[ "$res" = LIVED ] && lived=$((lived + 1))
	done <"$work/order.tsv"
	if [ -n "$ONLY" ]; then
		echo "$name: $lived lived of the $again tested again (the other $((tested - again)) of the sample: as in a run without -r)"
	elif [ "$tested" -gt 0 ]; then
		echo "$name: $lived lived of $tested ($((lived * 100 / tested)) %)"
	fi
done
exit $status
