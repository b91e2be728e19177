#!/usr/bin/env bash
# Uploads at a distance: N products with a small photo each, over HTTPS (nginx as the TLS
# front, HTTP/2 by ALPN, in front of the sandbox) through a proxy that delays every byte by
# half the round trip each way (Benchmarks/delay-proxy.py), so that a new connection pays
# its TCP and TLS handshakes as on a real network. At each round trip, 8 at a time:
#   - openmarket import --jobs 8, then the same sheet again (a sync: nothing changed), an
#     export of the shop with its photos, a sync of SYNC_N (1,000) unchanged rows, and the
#     first import again offering HTTP/2 (--http2)
#   - curl per product through xargs -P 8 (a new connection each)
#   - one curl --parallel --parallel-max 8 (connections reused, HTTP/2): the peer's best use
# and the connections each opened (counted by the proxy).
#   Benchmarks/distance.sh            (N=200 SYNC_N=1000 RTTS="0 50 150")
# Needs nginx, openssl, python3 and curl. Writes Benchmarks/results/distance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200}
SYNC_N=${SYNC_N:-1000}
RTTS=${RTTS:-"0 50 150"}
JOBS=${JOBS:-8}
work=${WORK:-/tmp/openmarket-distance}
rm -rf "$work" && mkdir -p "$work"
source scripts/lib/sandbox.sh
proxy_pid="" nginx_pid=""
# The table is made in '{ … } | tee' (a subshell): its pids reach the trap through a file.
pids="$work/pids"
cleanup() {
  [ -f "$pids" ] && while read -r p; do kill "$p" 2>/dev/null || true; done <"$pids"
  stop_sandboxes
}
trap cleanup EXIT
command -v nginx >/dev/null || { echo "distance.sh needs nginx (apt-get install -y nginx-light)" >&2; exit 1; }

# OPENMARKET_BIN: another build's binary (an earlier revision, side by side with this one).
if [ -n "${OPENMARKET_BIN:-}" ]; then bin=$OPENMARKET_BIN; else
  swift build -c release --product openmarket >/dev/null
  bin="$(swift build -c release --show-bin-path)/openmarket"
fi

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
cp samples/images/TEA-003/1.jpg "$work/photo.jpg"
awk -v n="$N" 'BEGIN { print "key,name,price,currency,stock,images"
  for (i = 1; i <= n; i++) printf "D%d,Distance product %d,%d,KRW,%d,photo.jpg\n", i, i, 1000 + i, i % 9 }' >"$work/products.csv"

write_params() {  # the register bodies, with the secret of the sandbox just started
  awk -F, -v s="$secret" 'NR > 1 { printf "{\"name\":\"%s\",\"description\":\"\",\"price\":%s,\"currency\":\"%s\",\"stock\":%s,\"secret\":\"%s\"}\n", $2, $3, $4, $5, s }' \
    "$work/products.csv" >"$work/params"
}
awk -v n="$SYNC_N" 'BEGIN { print "key,name,price,currency,stock,images"
  for (i = 1; i <= n; i++) printf "S%d,Synced product %d,%d,KRW,%d,photo.jpg\n", i, i, 1000 + i, i % 9 }' >"$work/sync.csv"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_front() {  # sandbox URL → starts nginx with TLS and HTTP/2 in front of it; sets front_port
  local upstream=${1#http://}
  front_port=$(free_port)
  mkdir -p "$work/nginx"
  cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_max_body_size 20m;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  upstream sandbox { server $upstream; keepalive 32; }
  server {
    listen 127.0.0.1:$front_port ssl http2;
    ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem;
    location / {
      proxy_pass http://sandbox;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$http_host;
      proxy_set_header X-Forwarded-Proto https;
    }
  }
}
EOF
  # Its output to a file: a background process holding the table's pipe keeps tee waiting.
  nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" -g 'daemon off;' >"$work/nginx/out.log" 2>&1 &
  nginx_pid=$!
  echo "$nginx_pid" >>"$pids"
  for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$front_port") 2>/dev/null && break; sleep 0.1; done
}

start_proxy() {  # rtt → starts the delay proxy in front of nginx; sets base (https URL) and stats
  stats="$work/connections"
  echo 0 >"$stats"
  python3 Benchmarks/delay-proxy.py 0 "$front_port" "$1" "$stats" >"$work/proxy.log" 2>&1 &
  proxy_pid=$!
  echo "$proxy_pid" >>"$pids"
  for _ in $(seq 50); do grep -q port "$work/proxy.log" && break; sleep 0.1; done
  base="https://127.0.0.1:$(awk '/port/ { print $2 }' "$work/proxy.log")"
}
stop_proxy() { kill "$proxy_pid" 2>/dev/null || true; wait "$proxy_pid" 2>/dev/null || true; proxy_pid=""; }

count() { curl -sk "$base/api/products?items_per_page=1" | grep -o '"totalCount":[0-9]*' | cut -d: -f2; }
row() { printf '| %5s | %-44s | %8s | %10s | %11s | %9s |\n' "$@"; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN{printf "%.1f", n/s}'; }
open_shop() {  # name rtt → a fresh sandbox behind nginx and the delay proxy ($url direct, $base through both)
  start_sandbox "$bin" "$work/data-$1-$2"
  start_front "$url"
  start_proxy "$2"
}
close_front() { stop_proxy; kill "$nginx_pid"; wait "$nginx_pid" 2>/dev/null || true; nginx_pid=""; }
om_import() {  # csv state run extra… → openmarket import through the proxy (journal and links by
  local csv=$1 state=$2 run=$3; shift 3  # state, report by run); JOBS_FLAG="" for the default
  "$bin" import "$csv" --server "$base" --insecure --identifier "$identifier" --secret "$secret" ${JOBS_FLAG---jobs $JOBS} --quiet \
    --report "$work/report-$run" --journal "$work/journal-$state" --links "$work/links-$state.sqlite" "$@" >"$work/$run.log" 2>&1
}
in_flight() { grep -E '^[0-9]+ rows?:' "$work/$1.log" | grep -o '[0-9–]* in flight' | head -1; }
timed() {  # command… → seconds in $seconds
  local start end
  start=$(date +%s.%N)
  "$@"
  end=$(date +%s.%N)
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b-a}')
}

{
  echo "$N products × 1 photo over HTTPS (nginx TLS front, HTTP/2 by ALPN) through a delay proxy, $JOBS at a time, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "RTT ms" "client" "seconds" "products/s" "connections" "on server"
  row "---:" "---" "---:" "---:" "---:" "---:"
  for rtt in $RTTS; do
    # openmarket: a first import, then the same sheet again (a sync with nothing to send).
    open_shop om "$rtt"
    timed om_import "$work/products.csv" "om-$rtt" "first-$rtt" --no-cache || true
    row "$rtt" "openmarket import --jobs $JOBS" "$seconds" "$(rate "$N" "$seconds")" "$(cat "$stats")" "$(count)"
    stop_proxy; start_proxy "$rtt"
    timed om_import "$work/products.csv" "om-$rtt" "again-$rtt" --no-cache || true
    row "$rtt" "openmarket import again (sync, all unchanged)" "$seconds" "$(rate "$N" "$seconds")" "$(cat "$stats")" "$(count)"
    stop_proxy; start_proxy "$rtt"
    timed "$bin" export --server "$base" --insecure --out "$work/export-$rtt" --jobs "$JOBS" --quiet >"$work/export-$rtt.log" 2>&1 || true
    row "$rtt" "openmarket export --jobs $JOBS (with the photos)" "$seconds" "$(rate "$N" "$seconds")" "$(cat "$stats")" "$(count)"
    close_front

    # The default: the number in flight found while the run goes (no --jobs).
    open_shop adaptive "$rtt"
    JOBS_FLAG="" timed om_import "$work/products.csv" "adaptive-$rtt" "adaptive-$rtt" --no-cache || true
    row "$rtt" "openmarket import (default: $(in_flight "adaptive-$rtt"))" "$seconds" "$(rate "$N" "$seconds")" "$(cat "$stats")" "$(count)"
    close_front

    # A sync of SYNC_N unchanged rows: the shop filled over loopback, then the same sheet
    # through the proxy (one page read per 500 products, nothing sent).
    open_shop sync "$rtt"
    base=$url om_import "$work/sync.csv" "sync-$rtt" "fill-$rtt" || true  # filled over loopback (base for this call only)
    timed om_import "$work/sync.csv" "sync-$rtt" "sync-$rtt" || true
    row "$rtt" "openmarket sync of $SYNC_N unchanged rows" "$seconds" "$(rate "$SYNC_N" "$seconds")" "$(cat "$stats")" "$(count)"
    close_front

    # The same first import offering HTTP/2 (hidden --http2): one connection per worker still,
    # and HTTP/2's flow control on each upload.
    open_shop h2 "$rtt"
    timed om_import "$work/products.csv" "h2-$rtt" "h2-$rtt" --no-cache --http2 || true
    row "$rtt" "openmarket import --jobs $JOBS --http2" "$seconds" "$(rate "$N" "$seconds")" "$(cat "$stats")" "$(count)"
    close_front

    # curl per product, a new connection each.
    open_shop xargs "$rtt"
    write_params
    timed xargs -P "$JOBS" -d '\n' -I{} curl -sk -o /dev/null -H "identifier: $identifier" -F "params={};type=application/json" \
      -F "images=@$work/photo.jpg" "$base/api/products" <"$work/params" || true
    row "$rtt" "curl per product (xargs -P $JOBS)" "$seconds" "$(rate "$N" "$seconds")" "$(cat "$stats")" "$(count)"
    close_front

    # One curl, all requests, connections reused and multiplexed.
    open_shop parallel "$rtt"
    write_params  # this sandbox's secret
    : >"$work/curl.config"
    while IFS= read -r params; do
      # Options do not carry over "next": each request names its own.
      printf 'url = "%s/api/products"\ninsecure\nsilent\nheader = "identifier: %s"\nform = "params=%s;type=application/json"\nform = "images=@%s"\noutput = "/dev/null"\nnext\n' \
        "$base" "$identifier" "${params//\"/\\\"}" "$work/photo.jpg" >>"$work/curl.config"
    done <"$work/params"
    sed -i '$ d' "$work/curl.config"  # no "next" after the last request
    timed curl -sk --no-progress-meter --parallel --parallel-max "$JOBS" --config "$work/curl.config" || true
    row "$rtt" "one curl --parallel --parallel-max $JOBS" "$seconds" "$(rate "$N" "$seconds")" "$(cat "$stats")" "$(count)"
    close_front
    stop_sandboxes
  done
} | tee "$work/table.md"
mkdir -p Benchmarks/results
cp "$work/table.md" Benchmarks/results/distance.md
