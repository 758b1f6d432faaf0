#!/bin/sh
# The container's entrypoint: `alknet serve` on $ALKNET_LISTEN (default 0.0.0.0:7070) with the
# token from $ALKNET_TOKEN_FILE (the Kubernetes Secret's mount; default
# /var/run/secrets/alknet/token). Extra arguments go to `alknet serve` (--json, limits, TLS).
# `exec`: alknet replaces the shell as PID 1, so SIGTERM from the kubelet reaches it and
# drains (NOT_SERVING, in-flight calls finish within --drain-timeout, exit 0).
set -eu
alknet=${ALKNET_BIN:-/opt/alknet/bin/alknet}
listen=${ALKNET_LISTEN:-0.0.0.0:7070}
token_file=${ALKNET_TOKEN_FILE:-/var/run/secrets/alknet/token}
drain=${ALKNET_DRAIN_TIMEOUT_MS:-25000}
if [ ! -r "$token_file" ]; then
  echo "entrypoint: the token file $token_file is missing or unreadable (mount the Secret, or set ALKNET_TOKEN_FILE)" >&2
  exit 2
fi
exec "$alknet" serve --listen "$listen" --token-file "$token_file" --drain-timeout "$drain" "$@"
