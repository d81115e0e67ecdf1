#!/usr/bin/env bash
# loadtest.sh serves the same bytes with Tidemark and with nginx on loopback
# and measures both with ApacheBench (keep-alive), printing each rate and
# their ratio: a static file and a scenario page, each as is and gzipped, at
# several concurrencies. `make loadtest` runs it after building the browser
# module; docs/performance.md records its figures.
#
# Two more servers give the floors of Go's HTTP servers on this machine:
# internal/httpfloor, a handler that only writes the same saved bytes with
# the same headers, under net/http's server (with the timeouts cmd/serve had
# on it) and under fasthttp's. cmd/serve reads and writes HTTP with fasthttp
# (cmd/serve/fast.go) because net/http's floor is under the targets of
# issue 16; Tidemark cannot be faster than fasthttp's floor.
#
# nginx serves files saved from Tidemark (the gzip forms too, through
# gzip_static), with the same security headers, so both send the same body
# and nearly the same headers. nginx and ab are installed with apt-get when
# missing.
#
# Environment: LOADTEST_SECONDS per ab run (default 4), LOADTEST_ROUNDS
# (default 2; each round runs nginx then Tidemark, and the best rate of each
# is kept), LOADTEST_PORT (default 18480; nginx listens on the next port),
# LOADTEST_CASES to run a subset (e.g. "static page-gzip").
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${LOADTEST_SECONDS:-4}
rounds=${LOADTEST_ROUNDS:-2}
port=${LOADTEST_PORT:-18480}
nginx_port=$((port + 1))
cases=${LOADTEST_CASES:-static static-gzip page page-gzip}

missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v ab >/dev/null 2>&1 || missing+=(apache2-utils)
if [ ${#missing[@]} -gt 0 ]; then
  echo "loadtest: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)

tmp=$(mktemp -d)
chmod 755 "$tmp" # nginx's workers read the files as another user
serve_pid=
floor_pids=
cleanup() {
  [ -n "$floor_pids" ] && kill $floor_pids 2>/dev/null || true
  [ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null || true
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/serve" ./cmd/serve
go build -o "$tmp/httpfloor" ./internal/httpfloor
"$tmp/serve" -addr "127.0.0.1:$port" 2>"$tmp/serve.log" &
serve_pid=$!
tm="http://127.0.0.1:$port"
for _ in $(seq 120); do
  curl -sf -o /dev/null "$tm/healthz" && break
  kill -0 "$serve_pid" 2>/dev/null || { cat "$tmp/serve.log"; exit 1; }
  sleep 0.5
done

page=/scenarios/hwm/visibility-gap
static=$(curl -sf "$tm$page" | grep -o '/static/app\.[0-9a-f]*\.css' | head -1)
[ -n "$static" ] || { echo "loadtest: no stylesheet link in $page" >&2; exit 1; }

# The files nginx serves: the bodies Tidemark sends, as is and gzipped.
root="$tmp/root"
for p in "$static" "$page"; do
  mkdir -p "$root$(dirname "$p")"
  curl -sf -o "$root$p" "$tm$p"
  curl -sf -H 'Accept-Encoding: gzip' -o "$root$p.gz" "$tm$p"
done
csp=$(curl -sfI "$tm$page" | tr -d '\r' | sed -n 's/^Content-Security-Policy: //Ip')

cat >"$tmp/nginx.conf" <<CONF
worker_processes auto;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log;
events { worker_connections 4096; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  gzip_static on;
  gzip_vary on;
  gzip_http_version 1.0; # ab speaks HTTP/1.0
  server {
    listen 127.0.0.1:$nginx_port;
    root $root;
    add_header Content-Security-Policy "$csp" always;
    add_header X-Frame-Options SAMEORIGIN always;
    add_header X-Content-Type-Options nosniff always;
    add_header Referrer-Policy strict-origin-when-cross-origin always;
    location /static/ { add_header Cache-Control "public, max-age=31536000, immutable"; }
    location /scenarios/ { default_type "text/html; charset=utf-8"; add_header Cache-Control no-cache; }
  }
}
CONF
"$nginx" -c "$tmp/nginx.conf" -p "$tmp" -e "$tmp/nginx-error.log"

# The floors: net/http's and fasthttp's servers writing the saved bytes,
# nothing else.
"$tmp/httpfloor" -server nethttp -addr "127.0.0.1:$((port + 2))" -root "$root" -csp "$csp" "$static" "$page" 2>"$tmp/floor.log" &
floor_pid=$!
"$tmp/httpfloor" -server fasthttp -addr "127.0.0.1:$((port + 3))" -root "$root" -csp "$csp" "$static" "$page" 2>>"$tmp/floor.log" &
fast_pid=$!
floor_pids="$floor_pid $fast_pid"
fl="http://127.0.0.1:$((port + 2))"
ff="http://127.0.0.1:$((port + 3))"
ng="http://127.0.0.1:$nginx_port"
for _ in $(seq 50); do curl -sf -o /dev/null "$ng$static" && curl -sf -o /dev/null "$fl$static" && curl -sf -o /dev/null "$ff$static" && break; sleep 0.1; done

# All must send the same body for each form.
for p in "$static" "$page"; do
  for enc in identity gzip; do
    a=$(curl -sf -H "Accept-Encoding: $enc" "$tm$p" | sha256sum)
    for other in "$ng" "$fl" "$ff"; do
      b=$(curl -sf -H "Accept-Encoding: $enc" "$other$p" | sha256sum)
      [ "$a" = "$b" ] || { echo "loadtest: $p ($enc) differs between Tidemark and $other" >&2; cat "$tmp/floor.log" >&2; exit 1; }
    done
  done
done

# cpu_ticks PID... prints the CPU time (user and system, in clock ticks) the
# processes have used, all threads included.
cpu_ticks() {
  local t=0 task
  for p in "$@"; do
    for task in /proc/"$p"/task/*; do
      t=$((t + $(awk '{print $14 + $15}' "$task/stat")))
    done
  done
  echo "$t"
}
tck=$(getconf CLK_TCK)

# measure URL CONCURRENCY PIDS [ab options...] prints the requests per second
# and the server's CPU time per request in microseconds (PIDS is a quoted,
# space-separated list of the server's processes).
measure() {
  local url=$1 c=$2 pids=$3
  shift 3
  local out before after n
  # shellcheck disable=SC2086
  before=$(cpu_ticks $pids)
  out=$(ab -q -k -c "$c" -t "$seconds" -n 100000000 "$@" "$url" 2>&1) || { echo "$out" >&2; return 1; }
  # shellcheck disable=SC2086
  after=$(cpu_ticks $pids)
  if grep -q '^Non-2xx responses' <<<"$out" || ! grep -q '^Failed requests: *0$' <<<"$out"; then
    echo "$out" >&2
    return 1
  fi
  n=$(awk '/^Complete requests/ {print $3}' <<<"$out")
  awk -v out="$out" -v t=$((after - before)) -v n="$n" -v tck="$tck" 'BEGIN {
    split(out, lines, "\n")
    for (i in lines) if (lines[i] ~ /^Requests per second/) { split(lines[i], f, " "); rate = f[4] }
    printf "%s %.1f\n", rate, t * 1e6 / tck / n
  }'
}

nginx_pids="$(cat "$tmp/nginx.pid") $(pgrep -P "$(cat "$tmp/nginx.pid")" | tr '\n' ' ')"

echo "Tidemark $(git rev-parse --short HEAD 2>/dev/null || echo '?') vs $("$nginx" -v 2>&1 | sed 's/.*: //') and the floors of net/http and fasthttp; ab -k, ${seconds}s a run, best of $rounds; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "req/s: the best rate of the rounds; CPU µs: the server's CPU time per request, the least of the rounds (a busy machine disturbs it less);"
echo "ratios: each server's rate against nginx's, and CPU as nginx's over Tidemark's"
printf '%-12s %4s %8s %8s %8s %8s %6s %6s %6s %7s %7s %7s %7s %6s\n' case c nginx net/http fasthttp tidemark ratio n/h f/h nginx n/h f/h tidemark ratio
printf '%-12s %4s %8s %8s %8s %8s %6s %6s %6s %7s %7s %7s %7s %6s\n' "" "" "req/s" "floor" "floor" "req/s" "" "floor" "floor" "CPU µs" "CPU µs" "CPU µs" "CPU µs" "CPU"
for name in $cases; do
  case $name in
  static) path=$static opts=() ;;
  static-gzip) path=$static opts=(-H 'Accept-Encoding: gzip') ;;
  page) path=$page opts=() ;;
  page-gzip) path=$page opts=(-H 'Accept-Encoding: gzip') ;;
  *) echo "loadtest: unknown case $name" >&2; exit 2 ;;
  esac
  for c in 16 32 128; do
    # best rates (r_) and least CPU (u_) of nginx, the two floors and Tidemark
    r_n=0 r_f=0 r_x=0 r_t=0 u_n=1e9 u_f=1e9 u_x=1e9 u_t=1e9
    for _ in $(seq "$rounds"); do
      read -r n cn < <(measure "$ng$path" "$c" "$nginx_pids" ${opts[@]+"${opts[@]}"})
      read -r f cf < <(measure "$fl$path" "$c" "$floor_pid" ${opts[@]+"${opts[@]}"})
      read -r x cx < <(measure "$ff$path" "$c" "$fast_pid" ${opts[@]+"${opts[@]}"})
      read -r t ct < <(measure "$tm$path" "$c" "$serve_pid" ${opts[@]+"${opts[@]}"})
      read -r r_n r_f r_x r_t u_n u_f u_x u_t < <(awk \
        -v rn="$r_n" -v n="$n" -v rf="$r_f" -v f="$f" -v rx="$r_x" -v x="$x" -v rt="$r_t" -v t="$t" \
        -v un="$u_n" -v cn="$cn" -v uf="$u_f" -v cf="$cf" -v ux="$u_x" -v cx="$cx" -v ut="$u_t" -v ct="$ct" \
        'function max(a, b) { return b > a ? b : a } function min(a, b) { return b < a ? b : a }
         BEGIN {print max(rn, n), max(rf, f), max(rx, x), max(rt, t), min(un, cn), min(uf, cf), min(ux, cx), min(ut, ct)}')
    done
    awk -v name="$name" -v c="$c" -v n="$r_n" -v f="$r_f" -v x="$r_x" -v t="$r_t" -v cn="$u_n" -v cf="$u_f" -v cx="$u_x" -v ct="$u_t" \
      'BEGIN {printf "%-12s %4d %8.0f %8.0f %8.0f %8.0f %5.2fx %5.2fx %5.2fx %7.1f %7.1f %7.1f %7.1f %5.2fx\n", name, c, n, f, x, t, t / n, f / n, x / n, cn, cf, cx, ct, cn / ct}'
  done
done
echo "paths: static $static, page $page"
