#!/usr/bin/env python3
"""counters.py - per-namespace kernel counters before/after a case -> CASE.counters.json.

usage: counters.py SNAPDIR --case NAME --out FILE.json

SNAPDIR holds files written by capture-tcp.sh (snap_counters):
  NS.before / NS.after   `cat /proc/net/snmp /proc/net/netstat` inside namespace NS
                         (client, router, server). /proc/net/netstat is what `nstat -az` prints
                         as TcpExt*/IpExt*; /proc/net/snmp gives Tcp RetransSegs etc.
  router.tc.after        `tc -s qdisc show` on the router (tbf sent/dropped/overlimits)
  router.nft.after       the loss rule's counter (packets dropped on purpose)
  softnet.before/.after  /proc/net/softnet_stat (global; column 2 = backlog drops)
Output: for each namespace, "delta" (every counter that changed, after - before) and
"highlights" (the counters flowtrace cares about, zeros included), plus router and softnet facts.
"""
import argparse
import json
import os

HIGHLIGHTS = [
    "Tcp.ActiveOpens", "Tcp.PassiveOpens", "Tcp.InSegs", "Tcp.OutSegs", "Tcp.RetransSegs",
    "Tcp.OutRsts", "TcpExt.TCPHystartTrainDetect", "TcpExt.TCPHystartTrainCwnd",
    "TcpExt.TCPHystartDelayDetect", "TcpExt.TCPHystartDelayCwnd", "TcpExt.TCPDSACKRecv",
    "TcpExt.TCPDSACKOfoRecv", "TcpExt.TCPDSACKOldSent", "TcpExt.TCPDSACKOfoSent",
    "TcpExt.TCPDSACKUndo", "TcpExt.TCPLossProbes", "TcpExt.TCPLossProbeRecovery",
    "TcpExt.TCPFastRetrans", "TcpExt.TCPSlowStartRetrans", "TcpExt.TCPLostRetransmit",
    "TcpExt.TCPTimeouts", "TcpExt.TCPSpuriousRTOs", "TcpExt.TCPSpuriousRtxHostQueues",
    "TcpExt.TCPSynRetrans", "TcpExt.TCPRetransFail", "TcpExt.TCPSackRecovery",
    "TcpExt.TCPRenoRecovery", "TcpExt.TCPLossUndo", "TcpExt.TCPFullUndo",
    "TcpExt.TCPPartialUndo", "TcpExt.TCPLossFailures", "TcpExt.TCPSackFailures",
    "TcpExt.TCPSACKReorder", "TcpExt.TCPTSReorder", "TcpExt.TCPRenoReorder",
    "TcpExt.TCPOFOQueue", "TcpExt.TCPSACKReneging", "TcpExt.TCPWantZeroWindowAdv",
    "TcpExt.TCPToZeroWindowAdv", "TcpExt.TCPFromZeroWindowAdv", "TcpExt.TCPWinProbe",
    "TcpExt.TCPBacklogDrop", "TcpExt.TCPRcvQDrop", "TcpExt.TCPZeroWindowDrop",
    "TcpExt.TCPDelivered", "TcpExt.DelayedACKs", "TcpExt.TCPAbortOnTimeout",
    "TcpExt.TCPOrigDataSent",
]


def parse_proc(path):
    vals = {}
    if not os.path.exists(path):
        return vals
    lines = open(path).read().splitlines()
    for i in range(0, len(lines) - 1):
        h, v = lines[i].split(), lines[i + 1].split()
        if not h or not v or h[0] != v[0] or not h[0].endswith(":"):
            continue
        if any(not x.lstrip("-").isdigit() for x in v[1:]):
            continue
        pre = h[0][:-1]
        for k, x in zip(h[1:], v[1:]):
            vals[f"{pre}.{k}"] = int(x)
    return vals


def softnet(path):
    if not os.path.exists(path):
        return None
    dropped = processed = squeezed = 0
    for line in open(path):
        f = line.split()
        processed += int(f[0], 16)
        dropped += int(f[1], 16)
        squeezed += int(f[2], 16)
    return {"processed": processed, "dropped": dropped, "time_squeeze": squeezed}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("snapdir")
    ap.add_argument("--case", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    d = a.snapdir
    doc = {"case": a.case,
           "source": "/proc/net/snmp and /proc/net/netstat per namespace (nstat -az shows the same "
                     "TcpExt counters), before/after the case; tc -s qdisc and the nft drop counter "
                     "on the router; /proc/net/softnet_stat (global)",
           "namespaces": {}}
    for ns in ("client", "server", "router"):
        b = parse_proc(os.path.join(d, f"{ns}.before"))
        af = parse_proc(os.path.join(d, f"{ns}.after"))
        if not af:
            continue
        delta = {k: af[k] - b.get(k, 0) for k in sorted(af) if af[k] - b.get(k, 0) != 0}
        hl = {k: af.get(k, 0) - b.get(k, 0) for k in HIGHLIGHTS if k in af}
        doc["namespaces"][ns] = {"highlights": hl, "delta": delta}
    r = {}
    p = os.path.join(d, "router.nft.after")
    if os.path.exists(p):
        t = open(p).read().strip()
        r["nft_random_drops"] = int(t) if t.isdigit() else None
    p = os.path.join(d, "router.tc.after")
    if os.path.exists(p):
        r["tc_qdisc"] = [ln.strip() for ln in open(p) if ln.strip()]
    doc["router"] = r
    sb, sa = softnet(os.path.join(d, "softnet.before")), softnet(os.path.join(d, "softnet.after"))
    if sb and sa:
        doc["softnet_delta_global"] = {k: sa[k] - sb[k] for k in sa}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
