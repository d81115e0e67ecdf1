#!/usr/bin/env bash
# loadtest.sh serves the same bytes with Tidemark and with nginx on loopback
# and measures both with ApacheBench (keep-alive), printing each rate and
# their ratio: a static file and a scenario page, each as is and gzipped, at
# several concurrencies. `make loadtest` runs it after building the browser
# module; docs/performance.md records its figures.
#
# A third server gives the floor of Go's net/http on this machine: a handler
# that only writes the same saved bytes with the same headers, with the
# timeouts cmd/serve had when net/http served it. It is why cmd/serve now
# reads and writes HTTP with fasthttp (cmd/serve/fast.go): under the same
# site handler that server goes faster than net/http's floor.
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
floor_pid=
cleanup() {
  [ -n "$floor_pid" ] && kill "$floor_pid" 2>/dev/null || true
  [ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null || true
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/serve" ./cmd/serve
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

# The floor: net/http writing the saved bytes, nothing else.
mkdir -p "$tmp/floor"
cat >"$tmp/floor/main.go" <<'GO'
package main

import (
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

type file struct{ body, gz []byte; typ, cache string }

func main() {
	root, addr, csp := os.Args[1], os.Args[2], os.Args[3]
	files := map[string]file{}
	for _, p := range os.Args[4:] {
		body, _ := os.ReadFile(root + p)
		gz, _ := os.ReadFile(root + p + ".gz")
		f := file{body: body, gz: gz, typ: "text/html; charset=utf-8", cache: "no-cache"}
		if strings.HasSuffix(p, ".css") {
			f.typ, f.cache = "text/css; charset=utf-8", "public, max-age=31536000, immutable"
		}
		files[p] = f
	}
	srv := &http.Server{Addr: addr, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f, ok := files[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			h := w.Header()
			h["Content-Security-Policy"] = []string{csp}
			h["X-Frame-Options"] = []string{"SAMEORIGIN"}
			h["X-Content-Type-Options"] = []string{"nosniff"}
			h["Referrer-Policy"] = []string{"strict-origin-when-cross-origin"}
			h["Content-Type"] = []string{f.typ}
			h["Cache-Control"] = []string{f.cache}
			h["Vary"] = []string{"Accept-Encoding"}
			body := f.body
			if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				body = f.gz
				h["Content-Encoding"] = []string{"gzip"}
			}
			h["Content-Length"] = []string{strconv.Itoa(len(body))}
			w.Write(body)
		})}
	panic(srv.ListenAndServe())
}
GO
(cd "$tmp/floor" && go mod init floor >/dev/null 2>&1 && go build -o floor .)
floor_port=$((port + 2))
"$tmp/floor/floor" "$root" "127.0.0.1:$floor_port" "$csp" "$static" "$page" 2>/dev/null &
floor_pid=$!
fl="http://127.0.0.1:$floor_port"
ng="http://127.0.0.1:$nginx_port"
for _ in $(seq 50); do curl -sf -o /dev/null "$ng$static" && curl -sf -o /dev/null "$fl$static" && break; sleep 0.1; done

# Both must send the same body for each form.
for p in "$static" "$page"; do
  for enc in identity gzip; do
    a=$(curl -sf -H "Accept-Encoding: $enc" "$tm$p" | sha256sum)
    b=$(curl -sf -H "Accept-Encoding: $enc" "$ng$p" | sha256sum)
    c=$(curl -sf -H "Accept-Encoding: $enc" "$fl$p" | sha256sum)
    [ "$a" = "$b" ] && [ "$a" = "$c" ] || { echo "loadtest: $p ($enc) differs between Tidemark, nginx and the floor" >&2; exit 1; }
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

echo "Tidemark $(git rev-parse --short HEAD 2>/dev/null || echo '?') vs $("$nginx" -v 2>&1 | sed 's/.*: //') and net/http's floor; ab -k, ${seconds}s a run, best of $rounds; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "req/s: the best rate of the rounds; CPU µs: the server's CPU time per request, the least of the rounds (a busy machine disturbs it less);"
echo "ratios: Tidemark against nginx (rate, and CPU as nginx's over Tidemark's), and the floor's rate against nginx's"
printf '%-12s %4s %8s %8s %8s %6s %6s %7s %7s %7s %6s\n' case c nginx floor tidemark ratio floor nginx floor tidemark ratio
printf '%-12s %4s %8s %8s %8s %6s %6s %7s %7s %7s %6s\n' "" "" "req/s" "req/s" "req/s" "" "" "CPU µs" "CPU µs" "CPU µs" "CPU"
for name in $cases; do
  case $name in
  static) path=$static opts=() ;;
  static-gzip) path=$static opts=(-H 'Accept-Encoding: gzip') ;;
  page) path=$page opts=() ;;
  page-gzip) path=$page opts=(-H 'Accept-Encoding: gzip') ;;
  *) echo "loadtest: unknown case $name" >&2; exit 2 ;;
  esac
  for c in 16 32 128; do
    best_n=0 best_f=0 best_t=0 cpu_n=1e9 cpu_f=1e9 cpu_t=1e9
    for _ in $(seq "$rounds"); do
      read -r n cn < <(measure "$ng$path" "$c" "$nginx_pids" ${opts[@]+"${opts[@]}"})
      read -r f cf < <(measure "$fl$path" "$c" "$floor_pid" ${opts[@]+"${opts[@]}"})
      read -r t ct < <(measure "$tm$path" "$c" "$serve_pid" ${opts[@]+"${opts[@]}"})
      read -r best_n best_f best_t cpu_n cpu_f cpu_t < <(awk \
        -v a="$best_n" -v b="$n" -v c="$best_f" -v d="$f" -v e="$best_t" -v g="$t" \
        -v h="$cpu_n" -v i="$cn" -v j="$cpu_f" -v k="$cf" -v l="$cpu_t" -v m="$ct" \
        'BEGIN {print (b > a ? b : a), (d > c ? d : c), (g > e ? g : e), (i < h ? i : h), (k < j ? k : j), (m < l ? m : l)}')
    done
    awk -v name="$name" -v c="$c" -v n="$best_n" -v f="$best_f" -v t="$best_t" -v cn="$cpu_n" -v cf="$cpu_f" -v ct="$cpu_t" \
      'BEGIN {printf "%-12s %4d %8.0f %8.0f %8.0f %5.2fx %5.2fx %7.1f %7.1f %7.1f %5.2fx\n", name, c, n, f, t, t / n, f / n, cn, cf, ct, cn / ct}'
  done
done
echo "paths: static $static, page $page"
