#!/usr/bin/env bash
# scripts/capture-ct-alloc.sh - measure the kernel's real receive-buffer charge per ctnetlink event.
#
# Builds its OWN namespaces ftca-c (client), ftca-r (router, conntrack + the listener) and ftca-s
# (server), joined by two veth pairs; all traffic stays inside them; everything is torn down on exit.
#
#   ftca-c [c0] 10.93.1.2 fd93:1::2 -- [r0] ftca-r [r1] -- [s0] 10.93.2.2 fd93:2::2 ftca-s
#
# Per case (family x protocol x variant) a listener (scripts/lab/ct_alloc.py) in the router does
# not read while the case's connections run and `conntrack -F` destroys them, so every NEW, UPDATE
# and DESTROY is queued; then it records sk_rmem_alloc (SO_MEMINFO) and /proc/net/netlink Rmem,
# and drains, recording per message its recv() length and the drop of sk_rmem_alloc (= the skb's
# truesize). Results: testdata/conntrack/alloc.json (one object per case, from the kernel only).
#
# Variants: plain; nat (masquerade / snat); mark (ct mark set); zone (ct zone set 7); labels
# (ct label set 1: NF_CT_EXT_LABELS); all (nat + mark + zone + labels); nofeat (nf_conntrack_acct=0
# and nf_conntrack_timestamp=0; the others run with both 1).
#
# Usage: sudo scripts/capture-ct-alloc.sh [OUTFILE]   (needs root, nft, conntrack, ip, python3)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
LAB=$HERE/lab
OUTFILE=${1:-$HERE/../testdata/conntrack/alloc.json}
CONNS=${CONNS:-8}
NC=ftca-c NR=ftca-r NS=ftca-s
. "$LAB/ct_netns.sh"
TMP=$(mktemp -d /tmp/ftca.XXXXXX)
SERVER_PID=

teardown() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  ct_lab_delete
  rm -rf "$TMP"
}
trap teardown EXIT

inr() { ip netns exec $NR "$@"; }

setup() {
  ct_lab_topology 10.93 fd93
  ip netns exec $NS python3 "$LAB/ct_traffic.py" server --port 7777 & SERVER_PID=$!
  sleep 0.5
  if command -v ping >/dev/null; then   # warm the neighbour caches (optional: no conntrack here)
    ip netns exec $NC ping -c2 -i0.3 -W2 10.93.2.2 >/dev/null || true
    ip netns exec $NC ping -c2 -i0.3 -W2 fd93:2::2 >/dev/null || true
  fi
}

# ruleset VARIANT: the router's nftables; a "ct state" rule is what makes the namespace track.
ruleset() {
  local v=$1 mark= zone= label= nat=0
  case $v in
    mark) mark=0x2a ;; zone) zone=7 ;; labels) label=1 ;; nat) nat=1 ;;
    all) mark=0x2a zone=7 label=1 nat=1 ;;
  esac
  inr nft flush ruleset
  {
    echo "table inet ftca {"
    echo "  chain ftpre { type filter hook prerouting priority -300; policy accept; ${zone:+ct zone set $zone;} }"
    echo "  chain ftfwd { type filter hook forward priority 0; policy accept; ${mark:+ct mark set $mark;} ${label:+ct label set $label;} ct state new,established,related accept; }"
    echo "}"
    if [ "$nat" = 1 ]; then
      printf 'table ip ftcanat {\n  chain ftpost {\n    type nat hook postrouting priority srcnat; policy accept;\n    oifname "r1" masquerade\n  }\n}\n'
      printf 'table ip6 ftcanat6 {\n  chain ftpost {\n    type nat hook postrouting priority srcnat; policy accept;\n    oifname "r1" snat to fd93:2::1\n  }\n}\n'
    fi
  } | inr nft -f -
}

# run_case FAMILY PROTO VARIANT
run_case() {
  local fam=$1 proto=$2 v=$3 name="$1_$2_$3" dst=10.93.2.2 n
  [ "$fam" = v6 ] && dst=fd93:2::2
  if [ "$v" = nofeat ]; then n=0; else n=1; fi
  inr sysctl -qw net.netfilter.nf_conntrack_acct=$n net.netfilter.nf_conntrack_timestamp=$n
  ruleset "$v"
  inr conntrack -F >/dev/null 2>&1 || true
  sleep 0.2
  rm -f "$TMP/ready" "$TMP/go"
  ip netns exec $NR python3 "$LAB/ct_alloc.py" --case "$name" --out "$TMP/$name.json" \
    --ready-file "$TMP/ready" --go-file "$TMP/go" & local lp=$!
  while [ ! -f "$TMP/ready" ]; do sleep 0.05; done
  sleep 0.2
  if [ "$proto" = tcp ]; then
    ip netns exec $NC python3 "$LAB/ct_traffic.py" client --dst "$dst" --tcp "$CONNS"
  else
    ip netns exec $NC python3 "$LAB/ct_traffic.py" client --dst "$dst" --udp "$CONNS"
  fi
  sleep 0.3
  inr conntrack -F >/dev/null 2>&1   # DESTROY for every entry, while the listener still does not read
  sleep 0.3
  touch "$TMP/go"
  wait $lp
  echo "  $name: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m=d["messages"]; print(len(m), "msgs, rmem", d["rmem_before_drain"], "proc", d["proc_rmem_before_drain"], "drops", d["drops"])' "$TMP/$name.json")" >&2
}

setup
# Long timeouts: nothing expires during a case; conntrack -F makes the DESTROYs.
inr sysctl -qw net.netfilter.nf_conntrack_udp_timeout=60 net.netfilter.nf_conntrack_tcp_timeout_time_wait=60
for fam in v4 v6; do
  for proto in tcp udp; do
    for v in plain nat mark zone labels all nofeat; do
      run_case $fam $proto $v
    done
  done
done
python3 - "$TMP" "$OUTFILE" <<'PY'
import glob, json, sys
tmp, out = sys.argv[1], sys.argv[2]
cases = [json.load(open(p)) for p in sorted(glob.glob(tmp + '/*.json'))]
with open(out, 'w') as f:
    f.write('[\n' + ',\n'.join(json.dumps(c, separators=(',', ':')) for c in cases) + '\n]\n')
PY
echo "wrote $OUTFILE" >&2
