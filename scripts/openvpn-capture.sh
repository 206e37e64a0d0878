#!/usr/bin/env bash
# scripts/openvpn-capture.sh - real OpenVPN 2.6 connection setups under loss, for flowtrace's
# OpenVPN reliability-layer analysis (docs/metrics.md, OpenVPN section; testdata/openvpn/README.md).
#
# Usage: scripts/openvpn-capture.sh [OUTDIR] [RUNS_SMALL] [RUNS_LARGE] [MODE]
#        OUTDIR defaults to testdata/openvpn; RUNS_* (default 15) connection setups per push size
#        (0 skips the case). MODE (default plain) is how the control channel is carried:
#          plain            UDP, no wrapping (files CASE.*)
#          tls-auth-sha1    UDP, tls-auth with the default --auth SHA1 (20-byte HMAC; files tls-auth-sha1.CASE.*)
#          tls-auth-sha256  UDP, tls-auth with --auth SHA256 (32-byte HMAC)
#          tls-crypt        UDP, tls-crypt (control channel encrypted after the replay id and time)
#          tcp              proto tcp (2-byte length framing), no wrapping; captured with -s 0 so
#                           the TCP stream can be reassembled
# Environment: LOSS_PERMILLE (default 10: 1 % each way) and SERVER_VERB (default 4; 8 logs the
#   server's every reliable_send, so its resends too) for the heavier-loss cases; CASE_TAG (default
#   empty) is put before the case name (e.g. loss4. -> tls-crypt.loss4.push-1k.*).
# Needs: root, iproute2, nftables, ethtool, tcpdump, tshark, openvpn (Debian 2.6), openssl.
#
# Topology (scripts/lab/netns.sh, with namespaces of our own: ov-client / ov-router / ov-server):
#   client 10.77.1.2 -- router -- server 10.77.2.2, UDP 1194, dev tun, topology subnet.
#   Router: tbf 1 Mbit/s toward the client (r0) and 200 kbit/s toward the server (r1), and nftables
#   "numgen random mod 1000 < 10 drop" on every forwarded packet (1 % each way). netem does not
#   exist on this kernel: no propagation delay is added, all delay is tbf queueing.
# Cases: push-1k (~1 KB of pushed "route" options) and push-100k (~100 KB), one OpenVPN server per
# case that stays up across its runs; each run starts a fresh client (new port, new session),
# waits for "Initialization Sequence Completed", which runs a route-up hook that sends UDP datagrams to
# the server's tunnel address (so a data-channel packet follows setup at once), then stops the client.
# Per case, in OUTDIR:
#   CASE.client.pcap.gz / CASE.server.pcap.gz   tcpdump -s 160 'udp port 1194' on c0 / s0
#   CASE.client.tshark.tsv.gz / CASE.server...  tshark -d udp.port==1194,openvpn, one line per
#                                   packet: frame, time, src, srcport, opcode, sessionid,
#                                   mpidarraylength, mpidarrayelement(s), rsessionid, mpid
#   CASE.runNN.client.log.gz        the client's --verb 8 --machine-readable-output log
#   CASE.runs.tsv                   run, client port, first/complete log timestamps (µs)
#   CASE.server.log.gz              the server's --verb 4 --machine-readable-output log (with
#                                   SERVER_VERB above 4: its first line and every reliable_send line,
#                                   "[client/]ip:port ACK reliable_send ID n", one per copy sent)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../testdata/openvpn}
RUNS_SMALL=${2:-15}
RUNS_LARGE=${3:-15}
MODE=${4:-plain}
LOSS_PERMILLE=${LOSS_PERMILLE:-10}
SERVER_VERB=${SERVER_VERB:-4}
CASE_TAG=${CASE_TAG:-}
case $MODE in
    plain) PREFIX= ;;
    tls-auth-sha1 | tls-auth-sha256 | tls-crypt | tcp) PREFIX=$MODE. ;;
    *) echo "unknown mode $MODE (plain, tls-auth-sha1, tls-auth-sha256, tls-crypt, tcp)" >&2; exit 2 ;;
esac
if [ "$MODE" = tcp ]; then
    PROTO=tcp SNAP=0 DECODE=(-d tcp.port==1194,openvpn)
else
    PROTO=udp SNAP=160 DECODE=(-d udp.port==1194,openvpn)
fi
case $MODE in   # tshark's own decode of the wrapping (its preferences, not auto-detection)
    tls-auth-*) DECODE+=(-o openvpn.tls_auth_detection_override:TRUE -o openvpn.tls_auth:TRUE
        -o "openvpn.tls_auth_hmac_size:$([ "$MODE" = tls-auth-sha1 ] && echo 20 || echo 32)") ;;
    tls-crypt) DECODE+=(-o openvpn.tls_auth_detection_override:TRUE -o openvpn.tls_crypt:TRUE) ;;
esac
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
. "$HERE/lab/netns.sh"
# namespaces of our own, so other lab scripts running at the same time are not torn down
LAB_NS_CLIENT=ov-client
LAB_NS_ROUTER=ov-router
LAB_NS_SERVER=ov-server
export LC_ALL=C
WORK=$(mktemp -d /tmp/flowtrace-ovpn.XXXXXX)
SERVER_PID=
cleanup() {
    [ -n "${KEEP_WORK:-}" ] && cp -r "$WORK" "$KEEP_WORK" || true
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    lab_teardown
    rm -rf "$WORK"
}
trap cleanup EXIT

make_pki() {   # throw-away CA, server and client certificates (EC P-256)
    local d=$WORK/pki
    mkdir -p "$d"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
        -subj /CN=flowtrace-ca -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null
    local who
    for who in server client; do
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$who" \
            -keyout "$d/$who.key" -out "$d/$who.csr" 2>/dev/null
        printf 'extendedKeyUsage=%s\nkeyUsage=digitalSignature,keyAgreement\n' \
            "$([ $who = server ] && echo serverAuth || echo clientAuth)" > "$d/$who.ext"
        openssl x509 -req -in "$d/$who.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
            -days 30 -extfile "$d/$who.ext" -out "$d/$who.crt" 2>/dev/null
    done
}

server_conf() {   # routes -> server config on stdout
    local routes=$1 i
    cat <<CONF
mode server
tls-server
proto $([ "$PROTO" = tcp ] && echo tcp-server || echo udp)
port 1194
local $LAB_SERVER4
dev tun
topology subnet
server 10.8.0.0 255.255.255.0
ca $WORK/pki/ca.crt
cert $WORK/pki/server.crt
key $WORK/pki/server.key
dh none
verb $SERVER_VERB
machine-readable-output
CONF
    wrap_conf 0
    for ((i = 0; i < routes; i++)); do
        echo "push \"route 10.$((100 + i / 256)).$((i % 256)).0 255.255.255.0\""
    done
}

client_conf() {
    cat <<CONF
client
proto $([ "$PROTO" = tcp ] && echo tcp-client || echo udp)
remote $LAB_SERVER4 1194
nobind
dev tun
ca $WORK/pki/ca.crt
cert $WORK/pki/client.crt
key $WORK/pki/client.key
remote-cert-tls server
verb 8
machine-readable-output
script-security 2
route-up $WORK/route-up.sh
# the routes are received (the wire is the same) but not installed: installing 3,000 routes with
# --verb 8 logging takes the client seconds after the last packet, which is not setup on the wire
pull-filter ignore "route "
CONF
    wrap_conf 1
}

wrap_conf() {   # key direction (0 server, 1 client) -> the MODE's wrapping lines
    case $MODE in
        tls-auth-sha1) echo "tls-auth $WORK/ta.key $1" ;;
        tls-auth-sha256) printf 'tls-auth %s %s\nauth SHA256\n' "$WORK/ta.key" "$1" ;;
        tls-crypt) echo "tls-crypt $WORK/tc.key" ;;
    esac
}

run_case() {   # name routes runs
    local name=$PREFIX$CASE_TAG$1 routes=$2 runs=$3
    [ "$runs" -gt 0 ] || return 0
    lab_log "case $name: $routes pushed routes, $runs runs"
    server_conf "$routes" > "$WORK/server.conf"
    client_conf > "$WORK/client.conf"
    lab_capture client "$LAB_IF_CLIENT" "$WORK/$name.client.pcap" -s "$SNAP" "$PROTO" port 1194
    local cap_c=$LAB_CAP_PID
    lab_capture server "$LAB_IF_SERVER" "$WORK/$name.server.pcap" -s "$SNAP" "$PROTO" port 1194
    local cap_s=$LAB_CAP_PID
    LAB_BG_ERR=$WORK/$name.server.err lab_bg server openvpn --config "$WORK/server.conf" \
        --log "$WORK/$name.server.log"
    SERVER_PID=$LAB_BG_PID
    sleep 2
    printf 'run\tclient_log\tprocess_start_log_us\tcompleted_log_us\n' > "$OUT/$name.runs.tsv"
    local r log t0 t1 pid
    for ((r = 1; r <= runs; r++)); do
        log=$WORK/$name.run$(printf %02d "$r").client.log
        lab_bg client openvpn --config "$WORK/client.conf" --log "$log"
        pid=$LAB_BG_PID
        local waited=0
        until grep -q 'Initialization Sequence Completed' "$log" 2>/dev/null; do
            sleep 0.2
            waited=$((waited + 1))
            [ $waited -lt 600 ] || { lab_log "run $r: no completion in 120 s"; break; }
        done
        sleep 1.5   # the route-up datagrams
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        # machine-readable-output lines start "<sec>.<usec> <flags> ..." (see the README)
        t0=$(sed -n '1{s/^\([0-9]*\)\.\([0-9]*\) .*/\1\2/p}' "$log")
        t1=$(sed -n '/Initialization Sequence Completed/{s/^\([0-9]*\)\.\([0-9]*\) .*/\1\2/p;q}' "$log")
        printf '%02d\t%s\t%s\t%s\n' "$r" "$(basename "$log").gz" "$t0" "${t1:-}" >> "$OUT/$name.runs.tsv"
        lab_log "  run $r: $(( (${t1:-$t0} - t0) / 1000 )) ms (log)"
        # the whole --verb 8 log of a 100 KB push is ~1.5 MB: keep the lines the tests and a reader
        # need (first line = process start, link, every reliable_send, push, completion)
        { sed -n 1p "$log"; grep -E 'UDPv4 link|TCPv4_CLIENT link|TCP connection established|reliable_send ID|PUSH|Initialization Sequence Completed|Data Channel:' "$log"; } |
            gzip -9 > "$OUT/$(basename "$log").gz"
        sleep 0.5
    done
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
    lab_stop_capture "$cap_c" "$cap_s"
    local side
    for side in client server; do
        tshark -r "$WORK/$name.$side.pcap" "${DECODE[@]}" -T fields -E separator=/t \
            -E occurrence=a -E aggregator=, -e frame.number -e frame.time_epoch -e ip.src -e udp.srcport \
            -e openvpn.opcode -e openvpn.sessionid -e openvpn.mpidarraylength \
            -e openvpn.mpidarrayelement -e openvpn.rsessionid -e openvpn.mpid -e openvpn.pid -e openvpn.net_time \
            -e tcp.analysis.retransmission 2>/dev/null |
            gzip -9 > "$OUT/$name.$side.tshark.tsv.gz"
        gzip -9c "$WORK/$name.$side.pcap" > "$OUT/$name.$side.pcap.gz"
    done
    if [ "$SERVER_VERB" -gt 4 ]; then   # keep what the tests read: the first line and every send
        { sed -n 1p "$WORK/$name.server.log"
          grep -E 'reliable_send ID|Peer Connection Initiated|Initialization Sequence Completed' "$WORK/$name.server.log"; } |
            gzip -9 > "$OUT/$name.server.log.gz"
    else
        gzip -9c "$WORK/$name.server.log" > "$OUT/$name.server.log.gz"
    fi
}

command -v openvpn >/dev/null || { echo "openvpn missing: apt-get install openvpn" >&2; exit 1; }
make_pki
cat > "$WORK/route-up.sh" <<'HOOK'
#!/bin/sh
# a data-channel packet right after setup
# (three UDP datagrams to the discard port through the tunnel: bash's /dev/udp, no ping needed)
bash -c 'for i in 1 2 3; do echo flowtrace > /dev/udp/10.8.0.1/9; sleep 0.2; done' >/dev/null 2>&1 &
exit 0
HOOK
chmod +x "$WORK/route-up.sh"
case $MODE in
    tls-auth-*) openvpn --genkey tls-auth "$WORK/ta.key" ;;
    tls-crypt) openvpn --genkey tls-crypt "$WORK/tc.key" ;;
esac
lab_setup --rate 200kbit --burst 4k --limit 30k --loss "$LOSS_PERMILLE" --loss-dir both
lab_ns router tc qdisc replace dev "$LAB_IF_ROUTER_C" root tbf rate 1mbit burst 4k limit 30k
# no IPv6 on the tun device: router solicitations would be data packets before setup ends
lab_ns client sysctl -qw net.ipv6.conf.default.disable_ipv6=1
lab_ns server sysctl -qw net.ipv6.conf.default.disable_ipv6=1
run_case push-1k 30 "$RUNS_SMALL"
run_case push-100k 3000 "$RUNS_LARGE"
lab_log "done: $OUT"
