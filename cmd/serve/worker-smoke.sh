#!/usr/bin/env bash
# worker-smoke.sh serves build/worker (see `make worker`) in workerd through
# wrangler dev and asks it for a page of each kind, failing on anything but
# 200. It needs Node and the npm registry; `make worker-smoke` runs it.
set -euo pipefail
wrangler=${WRANGLER:-npx --yes wrangler@3}
port=${PORT:-8787}
log=$(mktemp)
# In a session of its own, so that wrangler and the workerd processes it
# starts can be stopped together.
setsid $wrangler dev --config cmd/serve/wrangler.jsonc --ip 127.0.0.1 --port "$port" >"$log" 2>&1 &
pid=$!
trap 'kill -- -$pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 120); do
  curl -s -o /dev/null "http://127.0.0.1:$port/" && break
  sleep 1
done
base="http://127.0.0.1:$port"
page=$(curl -sf "$base/scenarios/dist/producer-retry") || { cat "$log"; exit 1; }
wasm=$(grep -o 'data-tidemark-wasm="[^"]*"' <<<"$page" | head -1 | cut -d'"' -f2)
for path in / /scenarios/dist/producer-retry /lessons/high-water-mark /play "/picture/hwm/visibility-gap.svg?step=3" "$wasm"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Accept-Encoding: br' "$base$path")
  echo "$code $path"
  [ "$code" = 200 ] || { cat "$log"; exit 1; }
done
echo "worker: every page served"
