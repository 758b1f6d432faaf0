#!/usr/bin/env bash
# Renders the corpus with handlebars.js, then checks alknet-hbs against it byte for byte.
# usage: run.sh REPO_ROOT HBS_CONFORMANCE_BIN RESULTS_JSON CORPUS_DIR
set -euo pipefail
root=$1 bin=$2 results=$3 corpus_dir=$4
shopt -s nullglob
set -- "$corpus_dir"/*.json
[ $# -gt 0 ] || { echo "no corpus files in $corpus_dir" >&2; exit 1; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
node=${ALKNET_NODE:-node}  # ctest passes the node package.json pins
command -v "$node" >/dev/null || { echo "$node not found: run scripts/setup" >&2; exit 3; }
[ -f "$root/node_modules/handlebars/package.json" ] \
  || { echo "node_modules/handlebars missing: run scripts/setup (npm ci)" >&2; exit 3; }
"$node" "$here/render_js.js" "$root" "$@" > "$results"
exec "$bin" "$results" "$@"
