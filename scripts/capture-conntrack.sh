#!/usr/bin/env bash
# scripts/capture-conntrack.sh - record real ctnetlink events for flowtrace's conntrack tests (docs/conntrack.md).
#
# Builds its OWN namespaces ftct-c (client), ftct-r (router, where conntrack runs) and ftct-s
# (server), joined by two veth pairs; all traffic stays inside them; everything is torn down on exit.
#
#   ftct-c [c0] 10.77.1.2 fd77:1::2 -- [r0] ftct-r [r1] -- [s0] 10.77.2.2 fd77:2::2 ftct-s
#
# For every case it records, in the router namespace and at the same time:
#   testdata/conntrack/CASE.nl.bin      raw ctnetlink messages ([u32 LE length][bytes], ct_listen.py)
#   testdata/conntrack/CASE.events.txt  conntrack -E -o timestamp,extended,id,ktimestamp  (v4_xml: -o xml,...)
#   testdata/conntrack/CASE.attrs.txt   reference decoding of the .bin by ct_dump.py (python, not the Java code)
# and the ENOBUFS experiment: testdata/conntrack/burst.* (see run_burst).
#
# Usage: sudo scripts/capture-conntrack.sh [OUTDIR]   (needs root, nft, conntrack, ip, python3)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
LAB=$HERE/lab
OUT=${1:-$HERE/../testdata/conntrack}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
NC=ftct-c NR=ftct-r NS=ftct-s
. "$LAB/ct_netns.sh"
TMP=$(mktemp -d /tmp/ftct.XXXXXX)
PIDS=()

teardown() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  ct_lab_delete
  rm -rf "$TMP"
}
trap teardown EXIT

inr() { ip netns exec $NR "$@"; }

setup() {
  ct_lab_topology 10.77 fd77
  # Short timeouts so DESTROY follows each exchange within ~2 s (with the conntrack -L reaper).
  inr sysctl -qw net.netfilter.nf_conntrack_tcp_timeout_time_wait=1 net.netfilter.nf_conntrack_tcp_timeout_close=1 \
    net.netfilter.nf_conntrack_tcp_timeout_fin_wait=1 net.netfilter.nf_conntrack_tcp_timeout_last_ack=1 \
    net.netfilter.nf_conntrack_tcp_timeout_close_wait=1 net.netfilter.nf_conntrack_udp_timeout=1 \
    net.netfilter.nf_conntrack_udp_timeout_stream=2 net.netfilter.nf_conntrack_icmp_timeout=1 \
    net.netfilter.nf_conntrack_icmpv6_timeout=1
  ip netns exec $NS python3 "$LAB/ct_traffic.py" server --port 7777 & PIDS+=($!)
  sleep 0.5
  # Warm neighbour caches before any listener runs (no stray events inside a case).
  ip netns exec $NC ping -c2 -i0.3 -W2 10.77.2.2 >/dev/null || true
  ip netns exec $NC ping -c2 -i0.3 -W2 fd77:2::2 >/dev/null || true
}

# ruleset MARK ZONE NAT : the router's nftables; a "ct state" rule is what makes the namespace track.
ruleset() {
  local mark=$1 zone=$2 nat=$3
  inr nft flush ruleset
  {
    echo "table inet ftct {"
    echo "  chain ftpre { type filter hook prerouting priority -300; policy accept; ${zone:+ct zone set $zone;} }"
    echo "  chain ftfwd { type filter hook forward priority 0; policy accept; ${mark:+ct mark set $mark;} ct state new,established,related accept; }"
    echo "}"
    if [ "$nat" = 1 ]; then
      printf 'table ip ftctnat {\n  chain ftpost {\n    type nat hook postrouting priority srcnat; policy accept;\n    oifname "r1" masquerade\n  }\n}\n'
      printf 'table ip6 ftctnat6 {\n  chain ftpost {\n    type nat hook postrouting priority srcnat; policy accept;\n    oifname "r1" snat to fd77:2::1\n  }\n}\n'
    fi
  } | inr nft -f -
}

features() { inr sysctl -qw net.netfilter.nf_conntrack_acct=$1 net.netfilter.nf_conntrack_timestamp=$2; }

reap_until_empty() {
  local i
  for i in $(seq 1 40); do
    inr conntrack -L >/dev/null 2>&1 || true
    [ "$(inr conntrack -C 2>/dev/null || echo 0)" = 0 ] && { sleep 0.6; return; }
    sleep 0.5
  done
  echo "warning: conntrack table not empty after 20 s" >&2
}

# run_case NAME DST TCP UDP PINGS OUTFMT
run_case() {
  local name=$1 dst=$2 tcp=$3 udp=$4 pings=$5 fmt=$6
  echo "case $name" >&2
  inr conntrack -F >/dev/null 2>&1 || true
  sleep 0.2
  rm -f "$TMP/ready"
  ip netns exec $NR python3 "$LAB/ct_listen.py" --out "$OUT/$name.nl.bin" --ready-file "$TMP/ready" --stats "$TMP/$name.stats" & local lp=$!
  ip netns exec $NR stdbuf -oL conntrack -E -o "$fmt" > "$OUT/$name.events.txt" 2>"$TMP/$name.ct.err" & local cp=$!
  while [ ! -f "$TMP/ready" ]; do sleep 0.05; done
  sleep 0.5
  ( while true; do inr conntrack -L >/dev/null 2>&1 || true; sleep 0.5; done ) & local rp=$!
  ip netns exec $NC python3 "$LAB/ct_traffic.py" client --dst "$dst" --tcp "$tcp" --udp "$udp"
  local k; for k in $(seq 1 "$pings"); do ip netns exec $NC ping -q -c 2 -i 0.2 -W 1 "$dst" >/dev/null; done
  reap_until_empty
  kill $rp; wait $rp 2>/dev/null || true
  sleep 0.3
  kill -TERM $cp $lp; wait $cp 2>/dev/null || true; wait $lp || true
  python3 "$LAB/ct_dump.py" "$OUT/$name.nl.bin" > "$OUT/$name.attrs.txt"
  echo "  raw=$(wc -l < "$OUT/$name.attrs.txt") text=$(grep -c . "$OUT/$name.events.txt" || true)" >&2
}

# ENOBUFS experiment: three listeners that do not read during a burst of NEW conntracks
# (BURST one-way UDP flows), then drain. Facts go to burst.facts (java.util.Properties format).
run_burst() {
  local n=${BURST:-400}
  echo "case burst ($n flows)" >&2
  features 1 1; ruleset "" "" 0
  inr sysctl -qw net.netfilter.nf_conntrack_udp_timeout=30
  inr conntrack -F >/dev/null 2>&1 || true
  sleep 0.2
  rm -f "$TMP"/ready.* "$TMP/go"
  local lps=() spec name buf
  for spec in big:8388608 small:16384 conntrackd:2097152; do
    name=${spec%%:*}; buf=${spec##*:}
    ip netns exec $NR python3 "$LAB/ct_listen.py" --out "$TMP/burst.$name.bin" --rcvbuf "$buf" --groups 0x7 \
      --pause-file "$TMP/go" --ready-file "$TMP/ready.$name" --stats "$TMP/burst.$name.stats" & lps+=($!)
  done
  while [ "$(ls "$TMP"/ready.* 2>/dev/null | wc -l)" -lt 3 ]; do sleep 0.05; done
  sleep 0.3
  local t0 t1
  t0=$(date +%s%N)
  ip netns exec $NC python3 "$LAB/ct_traffic.py" client --dst 10.77.2.2 --burst-udp "$n"
  t1=$(date +%s%N)
  sleep 1
  touch "$TMP/go"
  sleep 1.5
  kill -TERM "${lps[@]}"; wait "${lps[@]}" || true
  cp "$TMP/burst.big.bin" "$OUT/burst.nl.bin"
  python3 "$LAB/ct_dump.py" "$OUT/burst.nl.bin" > "$OUT/burst.attrs.txt"
  python3 - "$TMP" "$OUT/burst.facts" "$n" "$t0" "$t1" <<'PY'
import json, sys
tmp, out, n, t0, t1 = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
lines = ['# ENOBUFS experiment recorded by scripts/capture-conntrack.sh (run_burst); values from the kernel',
         '# (SO_RCVBUF getsockopt, recv() errors, /proc/net/netlink Rmem/Drops), not from flowtrace code.',
         'flows=%d' % n, 'burst_duration_ns=%d' % (t1 - t0), 'listeners=big,small,conntrackd']
for name in ('big', 'small', 'conntrackd'):
    s = json.load(open('%s/burst.%s.stats' % (tmp, name)))
    bd = s.get('before_drain') or {}
    ex = s.get('at_exit') or {}
    for k, v in (('rcvbuf_requested', s['rcvbuf_requested']), ('rcvbuf_effective', s['rcvbuf_effective']),
                 ('received', s['messages']), ('received_bytes', s['bytes']), ('enobufs', s['enobufs']),
                 ('rmem_before_drain', bd.get('rmem')), ('drops_before_drain', bd.get('drops')),
                 ('drops_at_exit', ex.get('drops'))):
        lines.append('%s.%s=%s' % (name, k, v))
open(out, 'w').write('\n'.join(lines) + '\n')
PY
  cat "$OUT/burst.facts" >&2
}

setup
TEXT=timestamp,extended,id,ktimestamp
features 1 1
ruleset "" "" 0;      run_case v4_plain 10.77.2.2 4 4 3 $TEXT
                      run_case v6_plain fd77:2::2 4 4 3 $TEXT
ruleset 0x2a "" 0;    run_case v4_mark  10.77.2.2 3 2 2 $TEXT
                      run_case v6_mark  fd77:2::2 2 2 1 $TEXT
ruleset "" 7 0;       run_case v4_zone  10.77.2.2 3 2 2 $TEXT
                      run_case v6_zone  fd77:2::2 2 2 1 $TEXT
ruleset 0x2a 7 0;     run_case v4_zone_mark 10.77.2.2 2 1 1 $TEXT
ruleset "" "" 1;      run_case v4_nat   10.77.2.2 3 2 2 $TEXT
                      run_case v6_nat   fd77:2::2 2 2 1 $TEXT
ruleset "" "" 0;      run_case v4_xml   10.77.2.2 2 2 1 xml,timestamp,id,ktimestamp
features 0 0;         run_case v4_nofeat 10.77.2.2 2 2 1 $TEXT
features 0 0;         run_case v6_nofeat fd77:2::2 1 1 1 $TEXT
run_burst
du -sh "$OUT" >&2
