#!/usr/bin/env bash
# `alknet template render`: output, modes, partials, stdin data and exit codes.
# usage: cli_test.sh ALKNET_BIN
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() {  # check NAME EXPECTED_RC EXPECTED_STDOUT_OR_- STDERR_SUBSTRING_OR_- -- ARGS...
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  shift 5
  local out err rc
  out=$("$bin" "$@" 2>"$tmp/err" <"$tmp/stdin"); rc=$?
  err=$(cat "$tmp/err")
  if [ "$rc" != "$want_rc" ] || { [ "$want_out" != - ] && [ "$out" != "$want_out" ]; } ||
     { [ "$want_err" != - ] && [[ "$err" != *"$want_err"* ]]; }; then
    echo "FAIL $name: rc=$rc (want $want_rc) out=[$out] err=[$err]"
    fails=$((fails + 1))
  fi
}
printf 'fn {{name}}() { {{> body}} }' > "$tmp/t.hbs"
printf 'return {{v}};' > "$tmp/body.hbs"
printf '{"name": "f", "v": "<1>"}' > "$tmp/d.json"
printf 'x\n{{missing}}y' > "$tmp/bad.hbs"
printf 'S { {{v}}}' > "$tmp/wgsl.hbs"
printf '{"name": "g", "v": 2}' > "$tmp/stdin"
check render 0 'fn f() { return <1>; }' - -- template render "$tmp/t.hbs" --data "$tmp/d.json" --partial body="$tmp/body.hbs"
check compat 0 'fn f() { return &lt;1&gt;; }' - -- template render "$tmp/t.hbs" --data "$tmp/d.json" --partial body="$tmp/body.hbs" --compat
check stdin 0 'fn g() { return 2; }' - -- template render "$tmp/t.hbs" --data - --partial body="$tmp/body.hbs"
check strict-missing 1 - "bad.hbs:2:3" -- template render "$tmp/bad.hbs"
check compat-missing 0 $'x\ny' - -- template render "$tmp/bad.hbs" --compat
check missing-partial 1 - "partial 'body' not found" -- template render "$tmp/t.hbs" --data "$tmp/d.json"
check wgsl 1 - "space or a line break" -- template render "$tmp/wgsl.hbs" --data "$tmp/d.json"
check bad-json 1 - "invalid JSON" -- template render "$tmp/t.hbs" --data "$tmp/t.hbs"
check no-file 1 - "cannot read" -- template render "$tmp/nope.hbs"
check usage 2 - "missing template FILE" -- template render
check bad-option 2 - "unknown option" -- template render "$tmp/t.hbs" --frob
check bad-partial 2 - "NAME=FILE" -- template render "$tmp/t.hbs" --partial body
check help 0 - - -- template render --help
check help2 0 - - -- template --help
[ "$fails" = 0 ] && echo "cli: all checks passed"
exit $((fails > 0))
