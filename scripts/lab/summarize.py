#!/usr/bin/env python3
"""summarize.py - one line per TCP case from the files capture-tcp.sh wrote -> OUTDIR/summary.json.

usage: summarize.py OUTDIR [--markdown]

Reads every CASE.kernel.json (with its verification_summary from verify_truth.py),
CASE.counters.json and CASE.{sender,receiver}.tshark.tsv[.gz] (row counts) in OUTDIR.
--markdown also prints the README tables.
"""
import gzip
import json
import os
import re
import sys

ORDER = ["cubic-loss", "bbr-loss", "reno-taildrop", "cubic-deepqueue", "rwnd-limited",
         "short-conns", "reorder", "ipv6-loss", "tso-on", "long-lossy"]
SKIP = ("Tcp.InSegs", "Tcp.OutSegs", "TcpExt.TCPDelivered", "TcpExt.TCPOrigDataSent",
        "Tcp.ActiveOpens", "Tcp.PassiveOpens", "Tcp.RetransSegs")


def rows(path):
    for p in (path, path + ".gz"):
        if os.path.exists(p):
            with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
                return sum(1 for _ in f) - 1
    return None


def tcptrace_rexmt(path):
    """sum of 'rexmt data pkts' over connections, (a->b, b->a); a = the side that sent the SYN"""
    for p in (path, path + ".gz"):
        if os.path.exists(p):
            ab = ba = 0
            with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
                for line in f:
                    m = re.match(r"\s*rexmt data pkts:\s+(\d+)\s+rexmt data pkts:\s+(\d+)", line)
                    if m:
                        ab += int(m.group(1))
                        ba += int(m.group(2))
            return [ab, ba]
    return None


def case_summary(d, c):
    k = json.load(open(f"{d}/{c}.kernel.json"))
    co = json.load(open(f"{d}/{c}.counters.json"))
    v = k.get("verification_summary", {})
    sides, cls = {}, {}
    for fl in k["flows"]:
        for s, n in fl["retransmits_by_side"].items():
            sides[s] = sides.get(s, 0) + n
        for s, n in fl["retransmits_by_class"].items():
            cls[s] = cls.get(s, 0) + n
    big = max(k["flows"], key=lambda fl: (fl["probe"]["events"], fl["retransmits_total"]))
    txt = " ".join(co["router"].get("tc_qdisc", []))
    m = re.search(r"qdisc tbf.*?dropped (\d+)", txt)
    hc = co["namespaces"]["client"]["highlights"]
    hs = co["namespaces"]["server"]["highlights"]
    exits = [fl["probe"]["slow_start_exit"] for fl in k["flows"] if fl["probe"]["slow_start_exit"]]
    return {
        "sender_packets": rows(f"{d}/{c}.sender.tshark.tsv"),
        "receiver_packets": rows(f"{d}/{c}.receiver.tshark.tsv"),
        "flows": len(k["flows"]),
        "kernel_retransmits": k["retransmits_total"],
        "kernel_retransmits_by_side": sides,
        "kernel_retransmits_by_class": cls,
        "kernel_retransmits_failed": sum(len(fl["retransmits_failed"]) for fl in k["flows"]),
        "capture_retransmits": v.get("capture_retransmits"),
        "matched": v.get("matched"),
        "order_mismatches": v.get("order_mismatches"),
        "max_abs_dt_us": v.get("max_abs_dt_us"),
        "tshark": v.get("tshark"),
        "kernel_class_vs_tshark_flags": v.get("kernel_class_vs_tshark_flags"),
        "tcptrace_sender_rexmt_data_pkts_ab_ba": tcptrace_rexmt(f"{d}/{c}.sender.tcptrace.txt"),
        "client_RetransSegs": hc.get("Tcp.RetransSegs"),
        "server_RetransSegs": hs.get("Tcp.RetransSegs"),
        "router_random_drops": co["router"].get("nft_random_drops"),
        "router_tbf_drops": int(m.group(1)) if m else None,
        "main_flow": {"client": big["client"], "server": big["server"],
                      "retransmits": big["retransmits_total"],
                      "slow_start_exit": big["probe"]["slow_start_exit"],
                      "max_snd_cwnd": big["probe"]["max_snd_cwnd"],
                      "min_srtt_us": big["probe"]["min_srtt_us"]},
        "flows_with_slow_start_exit": len(exits),
        "client_counters": {kk: vv for kk, vv in hc.items() if vv and kk not in SKIP},
        "server_counters": {kk: vv for kk, vv in hs.items() if vv and kk not in SKIP},
        "trace_overruns": k["trace_overruns"],
    }


def markdown(s):
    out = ["| case | sender pkts | receiver pkts | kernel retransmits (client/server side) | by class | "
           "matched to capture frames (max abs dt) | tshark on sender capture, client→server: retrans / "
           "fast / spurious / out-of-order | tcptrace on sender capture: rexmt data pkts a→b | RetransSegs client/server | router random / tbf drops | "
           "slow-start exit of the main flow: cwnd before→after (ca state) | max cwnd |",
           "|" + "---|" * 12]
    for c, v in s.items():
        t = (v["tshark"] or {}).get("sender_c2s", {})
        sse = v["main_flow"]["slow_start_exit"]
        sse_s = f"{sse['cwnd_before']}→{sse['snd_cwnd']} ({sse['ca_state']})" if sse else "none"
        if v["flows"] > 3:
            sse_s = f"{v['flows_with_slow_start_exit']} of {v['flows']} flows exit"
        sd = v["kernel_retransmits_by_side"]
        out.append(
            f"| {c} | {v['sender_packets']} | {v['receiver_packets']} | {v['kernel_retransmits']} "
            f"({sd.get('client', 0)}/{sd.get('server', 0)}) | "
            f"{', '.join(f'{a} {b}' for a, b in sorted(v['kernel_retransmits_by_class'].items())) or '-'} | "
            f"{v['matched']} of {v['kernel_retransmits']} ({v['max_abs_dt_us']} µs) | "
            f"{t.get('retransmission')} / {t.get('fast_retransmission')} / {t.get('spurious_retransmission')} / "
            f"{t.get('out_of_order')} | {(v['tcptrace_sender_rexmt_data_pkts_ab_ba'] or ['-'])[0]} | "
            f"{v['client_RetransSegs']}/{v['server_RetransSegs']} | "
            f"{v['router_random_drops'] if v['router_random_drops'] is not None else '-'} / "
            f"{v['router_tbf_drops'] if v['router_tbf_drops'] is not None else '-'} | {sse_s} | "
            f"{v['main_flow']['max_snd_cwnd']} |")
    out += ["", "| case | client counters (non-zero highlights) | server counters (non-zero highlights) |",
            "|---|---|---|"]
    for c, v in s.items():
        f = lambda h: ", ".join(f"{kk.split('.')[1]} {vv}" for kk, vv in h.items())
        out.append(f"| {c} | {f(v['client_counters'])} | {f(v['server_counters'])} |")
    out += ["", "| case | kernel class → tshark flags on the matched frame (capture of the retransmitting side) |", "|---|---|"]
    for c, v in s.items():
        xt = v["kernel_class_vs_tshark_flags"] or {}
        out.append(f"| {c} | " + "; ".join(f"{cl}: " + ", ".join(f"{fl} {n}" for fl, n in sorted(m.items()))
                                          for cl, m in sorted(xt.items())) + " |")
    return "\n".join(out)


def main():
    d = sys.argv[1]
    cases = [c for c in ORDER if os.path.exists(f"{d}/{c}.kernel.json")]
    cases += sorted(os.path.basename(p)[:-12] for p in os.listdir(d)
                    if p.endswith(".kernel.json") and p[:-12] not in cases)
    s = {c: case_summary(d, c) for c in cases}
    json.dump(s, open(f"{d}/summary.json", "w"), indent=1)
    if "--markdown" in sys.argv:
        print(markdown(s))
    else:
        for c, v in s.items():
            print(c, json.dumps({kk: v[kk] for kk in ("sender_packets", "receiver_packets", "kernel_retransmits",
                                                      "capture_retransmits", "matched", "order_mismatches")}))


if __name__ == "__main__":
    main()
