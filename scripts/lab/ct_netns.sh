# shellcheck shell=bash
# scripts/lab/ct_netns.sh - the three-namespace topology of the conntrack capture scripts
# (scripts/capture-conntrack.sh, scripts/capture-ct-alloc.sh). Source it after setting
# NC, NR, NS (namespace names: client, router, server), then:
#
#   ct_lab_topology NET4 NET6   e.g. 10.77 fd77:
#       $NC [c0] NET4.1.2 NET6:1::2 -- [r0] $NR [r1] -- [s0] NET4.2.2 NET6:2::2 $NS
#       (router NET4.1.1 / NET4.2.1, default routes via it both ways, forwarding on, no DAD / RS)
#   ct_lab_delete               kills what runs in the three namespaces and deletes them

ct_lab_delete() {
  local ns
  for ns in $NC $NR $NS; do ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true; done
  sleep 0.2
  for ns in $NC $NR $NS; do ip netns del "$ns" 2>/dev/null || true; done
}

ct_lab_topology() {
  local a4=$1 a6=$2 ns
  for ns in $NC $NR $NS; do ip netns del "$ns" 2>/dev/null || true; ip netns add "$ns"; done
  ip link add c0 netns "$NC" type veth peer name r0 netns "$NR"
  ip link add r1 netns "$NR" type veth peer name s0 netns "$NS"
  for ns in $NC $NR $NS; do
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
      net.ipv6.conf.all.router_solicitations=0 net.ipv6.conf.default.router_solicitations=0
    ip -n "$ns" link set lo up
  done
  ip -n "$NC" addr add "$a4.1.2/24" dev c0;  ip -n "$NC" addr add "$a6:1::2/64" dev c0 nodad
  ip -n "$NR" addr add "$a4.1.1/24" dev r0;  ip -n "$NR" addr add "$a6:1::1/64" dev r0 nodad
  ip -n "$NR" addr add "$a4.2.1/24" dev r1;  ip -n "$NR" addr add "$a6:2::1/64" dev r1 nodad
  ip -n "$NS" addr add "$a4.2.2/24" dev s0;  ip -n "$NS" addr add "$a6:2::2/64" dev s0 nodad
  ip -n "$NC" link set c0 up; ip -n "$NR" link set r0 up; ip -n "$NR" link set r1 up; ip -n "$NS" link set s0 up
  ip -n "$NC" route add default via "$a4.1.1"; ip -n "$NC" -6 route add default via "$a6:1::1"
  ip -n "$NS" route add default via "$a4.2.1"; ip -n "$NS" -6 route add default via "$a6:2::1"
  ip netns exec "$NR" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
}
