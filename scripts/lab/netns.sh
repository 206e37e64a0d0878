# shellcheck shell=bash
# scripts/lab/netns.sh - shared network-namespace lab for flowtrace captures.
#
# Source this file (". scripts/lab/netns.sh"), then call:
#
#   lab_setup [--rate R] [--burst B] [--limit L] [--loss PERMILLE] [--loss-dir fwd|both]
#             [--syn-loss PERMILLE] [--rps pin|nopin] [--offloads on|off] [--delay-ms D]
#       Builds three namespaces joined by two veth pairs (all traffic stays inside them):
#
#         ft-client [c0] 10.77.1.2/24 fd77:1::2/64
#              |  veth
#         ft-router [r0] 10.77.1.1 fd77:1::1   [r1] 10.77.2.1 fd77:2::1   (forwarding on)
#              |  veth
#         ft-server [s0] 10.77.2.2/24 fd77:2::2/64
#
#       --rate R       tbf on the router's egress towards the server (r1), e.g. 50mbit; none = no tbf
#       --burst B      tbf burst bytes (default 16k)
#       --limit L      tbf queue limit bytes (default 100k)
#       --loss N       nft "numgen random mod 1000 < N drop" in the router's forward chain (0 = none)
#       --loss-dir D   fwd  = only client->server packets (in on r0) are dropped (default)
#                      both = every forwarded packet in either direction is dropped with that chance
#       --syn-loss N   an extra rule before it: TCP segments with SYN set (SYN and SYN-ACK) are
#                      dropped with chance N/1000 (same direction scope as --loss-dir)
#       --rps pin|nopin  pin = rx-0/rps_cpus=1 on every veth (one CPU, no veth reordering; default)
#       --offloads off|on  off = ethtool -K tso/gso/gro/tx off and gso_max_segs 1 on every veth (default)
#       --delay-ms D   propagation delay (netem does not exist here): the router sends every packet it
#                      forwards, both directions, through a delay line (scripts/lab/tunrelay.py delay,
#                      TUN device d0, policy routing by input interface) that holds it D ms before
#                      the main table forwards it on: RTT = 2 D + the path's ~0.1 ms. The line sits
#                      before the tbf, so the bottleneck queue is still the only queue that varies.
#                      Its stderr (packets carried, late ones) goes to LAB_DELAY_LOG.
#       Also sets net.ipv4.tcp_no_metrics_save=1 in client and server (no cached ssthresh),
#       disables IPv6 DAD/RA/RS noise, and warms the neighbour caches with one ping each way.
#
#   lab_teardown          deletes the three namespaces (safe to call twice; call from a trap)
#   lab_ns NS CMD...      run CMD in namespace NS (client|router|server)
#   LAB_* variables       addresses and interface names, see below.
#
# The namespaces are named ft-client / ft-router / ft-server (LAB_NS_CLIENT/ROUTER/SERVER set
# before sourcing choose others, so two labs can run at once). lab_setup first tears down any
# leftovers of an earlier run, so scripts are re-runnable.

LAB_NS_CLIENT=${LAB_NS_CLIENT:-ft-client}
LAB_NS_ROUTER=${LAB_NS_ROUTER:-ft-router}
LAB_NS_SERVER=${LAB_NS_SERVER:-ft-server}
LAB_IF_CLIENT=c0
LAB_IF_SERVER=s0
LAB_IF_ROUTER_C=r0
LAB_IF_ROUTER_S=r1
LAB_CLIENT4=10.77.1.2
LAB_ROUTER4_C=10.77.1.1
LAB_ROUTER4_S=10.77.2.1
LAB_SERVER4=10.77.2.2
LAB_CLIENT6=fd77:1::2
LAB_ROUTER6_C=fd77:1::1
LAB_ROUTER6_S=fd77:2::1
LAB_SERVER6=fd77:2::2

lab_log() { echo "[lab $(date +%H:%M:%S)] $*" >&2; }

lab_nsname() {
    case $1 in
        client) echo "$LAB_NS_CLIENT" ;; router) echo "$LAB_NS_ROUTER" ;; server) echo "$LAB_NS_SERVER" ;;
        *) echo "$1" ;;
    esac
}

lab_ns() {
    local ns; ns=$(lab_nsname "$1"); shift
    ip netns exec "$ns" "$@"
}

# lab_bg NS CMD...: start CMD in namespace NS in the background; LAB_BG_PID is CMD's own pid
# (ip netns exec execs CMD), so "kill $LAB_BG_PID" reaches it. stderr goes to $LAB_BG_ERR
# (default /dev/null).
lab_bg() {
    local ns; ns=$(lab_nsname "$1"); shift
    ip netns exec "$ns" "$@" 2>"${LAB_BG_ERR:-/dev/null}" &
    LAB_BG_PID=$!
}

lab_teardown() {
    local ns
    for ns in $LAB_NS_CLIENT $LAB_NS_ROUTER $LAB_NS_SERVER; do
        if ip netns list | grep -qw "$ns"; then
            # end processes we started inside the namespace (by pid, namespace-scoped)
            local p
            for p in $(ip netns pids "$ns" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
            ip netns del "$ns" 2>/dev/null || true
        fi
    done
}

_lab_if_tune() {   # ns ifname offloads rps
    local ns=$1 ifn=$2 off=$3 rps=$4
    if [ "$off" = off ]; then
        ip netns exec "$ns" ethtool -K "$ifn" tso off gso off gro off tx off >/dev/null 2>&1 || true
        ip netns exec "$ns" ip link set dev "$ifn" gso_max_segs 1
    fi
    if [ "$rps" = pin ]; then
        ip netns exec "$ns" sh -c "echo 1 > /sys/class/net/$ifn/queues/rx-0/rps_cpus"
    else
        ip netns exec "$ns" sh -c "echo 0 > /sys/class/net/$ifn/queues/rx-0/rps_cpus"
    fi
}

_lab_ns_base() {   # ns
    local ns=$1
    ip netns add "$ns"
    ip netns exec "$ns" ip link set lo up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
        net.ipv6.conf.all.accept_ra=0 net.ipv6.conf.default.accept_ra=0 \
        net.ipv6.conf.all.router_solicitations=0 net.ipv6.conf.default.router_solicitations=0
}

lab_setup() {
    LAB_RATE=none LAB_BURST=16k LAB_LIMIT=100k LAB_LOSS=0 LAB_LOSS_DIR=fwd LAB_RPS=pin LAB_OFFLOADS=off
    LAB_SYN_LOSS=0 LAB_DELAY_MS=0
    while [ $# -gt 0 ]; do
        case $1 in
            --rate) LAB_RATE=$2; shift 2 ;;
            --burst) LAB_BURST=$2; shift 2 ;;
            --limit) LAB_LIMIT=$2; shift 2 ;;
            --loss) LAB_LOSS=$2; shift 2 ;;
            --loss-dir) LAB_LOSS_DIR=$2; shift 2 ;;
            --syn-loss) LAB_SYN_LOSS=$2; shift 2 ;;
            --rps) LAB_RPS=$2; shift 2 ;;
            --offloads) LAB_OFFLOADS=$2; shift 2 ;;
            --delay-ms) LAB_DELAY_MS=$2; shift 2 ;;
            *) echo "lab_setup: unknown option $1" >&2; return 2 ;;
        esac
    done
    lab_teardown
    local C=$LAB_NS_CLIENT R=$LAB_NS_ROUTER S=$LAB_NS_SERVER
    _lab_ns_base "$C"; _lab_ns_base "$R"; _lab_ns_base "$S"
    ip link add "$LAB_IF_CLIENT" netns "$C" type veth peer name "$LAB_IF_ROUTER_C" netns "$R"
    ip link add "$LAB_IF_SERVER" netns "$S" type veth peer name "$LAB_IF_ROUTER_S" netns "$R"
    # fixed MACs so captures are structurally reproducible
    ip -n "$C" link set "$LAB_IF_CLIENT" address 02:77:00:00:01:02
    ip -n "$R" link set "$LAB_IF_ROUTER_C" address 02:77:00:00:01:01
    ip -n "$R" link set "$LAB_IF_ROUTER_S" address 02:77:00:00:02:01
    ip -n "$S" link set "$LAB_IF_SERVER" address 02:77:00:00:02:02
    ip -n "$C" addr add "$LAB_CLIENT4/24" dev "$LAB_IF_CLIENT"
    ip -n "$C" addr add "$LAB_CLIENT6/64" dev "$LAB_IF_CLIENT" nodad
    ip -n "$R" addr add "$LAB_ROUTER4_C/24" dev "$LAB_IF_ROUTER_C"
    ip -n "$R" addr add "$LAB_ROUTER6_C/64" dev "$LAB_IF_ROUTER_C" nodad
    ip -n "$R" addr add "$LAB_ROUTER4_S/24" dev "$LAB_IF_ROUTER_S"
    ip -n "$R" addr add "$LAB_ROUTER6_S/64" dev "$LAB_IF_ROUTER_S" nodad
    ip -n "$S" addr add "$LAB_SERVER4/24" dev "$LAB_IF_SERVER"
    ip -n "$S" addr add "$LAB_SERVER6/64" dev "$LAB_IF_SERVER" nodad
    local ns ifn
    for ns in "$C:$LAB_IF_CLIENT" "$R:$LAB_IF_ROUTER_C" "$R:$LAB_IF_ROUTER_S" "$S:$LAB_IF_SERVER"; do
        _lab_if_tune "${ns%%:*}" "${ns#*:}" "$LAB_OFFLOADS" "$LAB_RPS"
        ip -n "${ns%%:*}" link set "${ns#*:}" up
    done
    ip -n "$C" route add default via "$LAB_ROUTER4_C"
    ip -n "$C" -6 route add default via "$LAB_ROUTER6_C"
    ip -n "$S" route add default via "$LAB_ROUTER4_S"
    ip -n "$S" -6 route add default via "$LAB_ROUTER6_S"
    ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
    for ns in "$C" "$S"; do
        ip netns exec "$ns" sysctl -qw net.ipv4.tcp_no_metrics_save=1
    done
    if [ "$LAB_RATE" != none ]; then
        ip netns exec "$R" tc qdisc replace dev "$LAB_IF_ROUTER_S" root tbf \
            rate "$LAB_RATE" burst "$LAB_BURST" limit "$LAB_LIMIT"
    fi
    if [ "$LAB_LOSS" -gt 0 ] || [ "$LAB_SYN_LOSS" -gt 0 ]; then
        local match="" synrule="" lossrule=""
        [ "$LAB_LOSS_DIR" = fwd ] && match="iifname \"$LAB_IF_ROUTER_C\""
        [ "$LAB_SYN_LOSS" -gt 0 ] &&
            synrule="$match tcp flags & syn == syn numgen random mod 1000 < $LAB_SYN_LOSS counter drop"
        [ "$LAB_LOSS" -gt 0 ] && lossrule="$match numgen random mod 1000 < $LAB_LOSS counter drop"
        ip netns exec "$R" nft -f - <<EOF
table inet ftlab {
    chain lossy {
        type filter hook forward priority 0; policy accept;
        $synrule
        $lossrule
    }
}
EOF
    fi
    [ "$LAB_DELAY_MS" != 0 ] && _lab_delay_line "$R"
    # warm ARP/ND caches so captures do not start with resolution traffic
    ip netns exec "$C" ping -c1 -W2 -q "$LAB_SERVER4" >/dev/null 2>&1 || true
    ip netns exec "$C" ping -6 -c1 -W2 -q "$LAB_SERVER6" >/dev/null 2>&1 || true
    ip netns exec "$S" ping -c1 -W2 -q "$LAB_CLIENT4" >/dev/null 2>&1 || true
    lab_log "topology up: delay=${LAB_DELAY_MS}ms each way rate=$LAB_RATE burst=$LAB_BURST limit=$LAB_LIMIT loss=${LAB_LOSS}/1000 syn-loss=${LAB_SYN_LOSS}/1000 ($LAB_LOSS_DIR) rps=$LAB_RPS offloads=$LAB_OFFLOADS"
}

_lab_delay_line() {   # router-ns
    local R=$1 i
    LAB_DELAY_LOG=$(mktemp /tmp/ftlab-delay.XXXXXX)
    # real-time priority (SCHED_FIFO): on a loaded machine a normal-priority relay wakes ms late
    LAB_BG_ERR=$LAB_DELAY_LOG lab_bg "$R" chrt -f 20 python3 "$(dirname "${BASH_SOURCE[0]}")/tunrelay.py" delay \
        --dev d0 --delay-ms "$LAB_DELAY_MS"
    for i in $(seq 1 50); do
        grep -q ready "$LAB_DELAY_LOG" && break
        sleep 0.1
    done
    # a packet re-injected on d0 carries a source that routes back via r0/r1: no reverse-path check
    ip netns exec "$R" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
        net.ipv4.conf.d0.rp_filter=0
    ip -n "$R" route add default dev d0 table 77
    ip -n "$R" rule add iif "$LAB_IF_ROUTER_C" lookup 77 pref 100
    ip -n "$R" rule add iif "$LAB_IF_ROUTER_S" lookup 77 pref 101
}

lab_nft_counter() {   # packets dropped so far by the loss rules (sum; 0 if none)
    ip netns exec "$LAB_NS_ROUTER" nft list table inet ftlab 2>/dev/null |
        sed -n 's/.*counter packets \([0-9]*\).*/\1/p' | awk '{s+=$1} END{print s+0}'
}

# lab_capture NS IFACE FILE [tcpdump options...]: start tcpdump (--immediate-mode, -U) in the
# background; sets LAB_CAP_PID. Waits until tcpdump reports it is listening. Its stderr goes to
# /tmp/ftlab-cap.PID.log; lab_stop_capture prints its packet/drop summary.
declare -gA LAB_CAP_LOGS
lab_capture() {
    local ns=$1 ifn=$2 file=$3; shift 3
    local log; log=$(mktemp /tmp/ftlab-cap.XXXXXX)
    LAB_BG_ERR=$log lab_bg "$ns" tcpdump -i "$ifn" -w "$file" -U --immediate-mode "$@"
    LAB_CAP_PID=$LAB_BG_PID
    LAB_CAP_LOGS[$LAB_CAP_PID]="$log:$file"
    local i
    for i in $(seq 1 50); do
        grep -q "listening on" "$log" && break
        sleep 0.1
    done
}

# lab_stop_capture PID...: give the ring a moment, then SIGTERM (background jobs ignore SIGINT)
# the tcpdumps we started, wait for them, print their "captured / dropped by kernel" summary.
lab_stop_capture() {
    local p
    sleep 1
    for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "$@"; do
        wait "$p" 2>/dev/null || true
        local ent=${LAB_CAP_LOGS[$p]:-}
        if [ -n "$ent" ]; then
            local log=${ent%%:*} file=${ent#*:}
            echo "  capture $(basename "$file"): $(grep -E 'captured|dropped by kernel' "$log" | tr '\n' ' ')" >&2
            rm -f "$log"
            unset "LAB_CAP_LOGS[$p]"
        fi
    done
}
