#!/usr/bin/env python3
"""verify_truth.py - line the kernel's retransmissions up with the captures; count tshark's flags.

usage: verify_truth.py CASE.kernel.json SENDER.tshark.tsv RECEIVER.tshark.tsv [--summary OUT.json]

The kernel truth (kernel_truth.py) lists each flow's retransmissions in trace order with the side
that sent them. A capture on the sending side's own veth sees every segment that side transmitted
(client side -> CASE.sender.pcap, server side -> CASE.receiver.pcap, both taken at the end hosts),
so the i-th kernel retransmission of a side should be the i-th retransmitted segment of that side
in its capture. "Retransmitted segment" is decided here from the capture alone, without tshark:
per direction, a segment carrying data, SYN or FIN whose sequence range starts before the highest
sequence number already sent in that direction (32-bit serial arithmetic), or a repeated SYN with
the same ISN. A SYN with a new ISN starts a new connection (port reuse).

For every kernel retransmission this adds to the kernel.json (rewritten in place):
  frame      frame.number of the matched segment in that side's capture (null if unmatched)
  capture    "sender" or "receiver" (which capture the frame number refers to)
  dt_us      capture timestamp - trace timestamp, µs (tracepoint and capture tap are a few µs
             apart; |dt| > 2 ms would flag an order mismatch)
  tshark     tshark's tcp.analysis flags on that frame in that capture (short names, e.g.
             ["retransmission", "fast_retransmission"]; [] = tshark flagged nothing)
and per flow "verification": kernel count, capture count, matched, max |dt_us|, the first index
where order/timing disagrees (|dt| > 2 ms), and tshark's flag counts in the sender capture for each
direction, c2s (client->server: data) and s2c (server->client: ACKs, so dup ACKs and zero windows),
and the same for the receiver capture
(tshark's retransmission flag is also set on its fast and spurious retransmissions).
"""
import argparse
import csv
import gzip
import json
import re
import sys

TSHARK_FLAGS = ["tcp.analysis.retransmission", "tcp.analysis.fast_retransmission",
                "tcp.analysis.spurious_retransmission", "tcp.analysis.out_of_order",
                "tcp.analysis.lost_segment", "tcp.analysis.duplicate_ack",
                "tcp.analysis.zero_window", "tcp.analysis.zero_window_probe",
                "tcp.analysis.keep_alive"]


def before(a, b):
    """a < b in 32-bit serial arithmetic"""
    return ((a - b) & 0xFFFFFFFF) > 0x7FFFFFFF


def ep(ip, port):
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def load(tsv):
    rows = []
    with (gzip.open(tsv, "rt") if tsv.endswith(".gz") else open(tsv)) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            if not r.get("tcp.srcport"):
                continue
            src = r["ip.src"] or r["ipv6.src"]
            dst = r["ip.dst"] or r["ipv6.dst"]
            rows.append(r | {"_src": ep(src, r["tcp.srcport"]), "_dst": ep(dst, r["tcp.dstport"])})
    return rows


def retransmitted_segments(rows):
    """{(src, dst, instance): [row, ...]} of retransmitted segments in capture order; instance
    counts the connections on that tuple (a SYN with a new ISN starts the next one)"""
    state = {}
    out = {}
    inst = {}
    for r in rows:
        tup = (r["_src"], r["_dst"])
        seq = int(r["tcp.seq_raw"])
        ln = int(r["tcp.len"] or 0)
        fl = int(r["tcp.flags"], 16)
        syn, fin = fl & 0x02, fl & 0x01
        st = state.get(tup)
        if syn:
            if st is not None and st["isn"] == seq:
                out.setdefault(tup + (inst[tup],), []).append(r)
                continue
            inst[tup] = inst.get(tup, -1) + 1
            state[tup] = {"isn": seq, "max": (seq + 1 + ln) & 0xFFFFFFFF}
            continue
        if st is None:
            continue
        if ln == 0 and not fin:
            continue
        end = (seq + ln + (1 if fin else 0)) & 0xFFFFFFFF
        if before(seq, st["max"]):
            out.setdefault(tup + (inst[tup],), []).append(r)
        if before(st["max"], end):
            st["max"] = end
    return out


def tshark_counts(rows, src, dst):
    c = {f.split(".")[-1]: 0 for f in TSHARK_FLAGS}
    for r in rows:
        if r["_src"] == src and r["_dst"] == dst:
            for f in TSHARK_FLAGS:
                if r.get(f):
                    c[f.split(".")[-1]] += 1
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel_json")
    ap.add_argument("sender_tsv")
    ap.add_argument("receiver_tsv")
    ap.add_argument("--summary")
    a = ap.parse_args()
    doc = json.load(open(a.kernel_json))
    snd = load(a.sender_tsv)
    rcv = load(a.receiver_tsv)
    caps = {"client": ("sender", retransmitted_segments(snd)),
            "server": ("receiver", retransmitted_segments(rcv))}
    summary = {"case": doc["case"], "flows": 0, "kernel_retransmits": 0, "capture_retransmits": 0,
               "matched": 0, "order_mismatches": 0, "max_abs_dt_us": 0, "tshark": {}}
    tot_tshark = {}
    crosstab = {}
    seen = {}
    for fl in doc["flows"]:
        v = {}
        # flows are in time order, so the n-th kernel instance of a tuple is its n-th connection
        n = seen.get((fl["client"], fl["server"]), 0)
        seen[(fl["client"], fl["server"])] = n + 1
        for side in ("client", "server"):
            capname, segs = caps[side]
            key = (fl["client"], fl["server"], n) if side == "client" else (fl["server"], fl["client"], n)
            cap = segs.get(key, [])
            kern = [r for r in fl["retransmits"] if r["side"] == side]
            matched, maxdt, first_bad = 0, 0, None
            for i, r in enumerate(kern):
                if i < len(cap):
                    c = cap[i]
                    dt = round((float(c["frame.time_epoch"]) - r["t"]) * 1e6)
                    r["frame"] = int(c["frame.number"])
                    r["capture"] = capname
                    r["dt_us"] = dt
                    r["tshark"] = [f.split(".")[-1] for f in TSHARK_FLAGS if c.get(f)]
                    xt = crosstab.setdefault(r["class"], {})
                    key = "+".join(r["tshark"]) or "none"
                    xt[key] = xt.get(key, 0) + 1
                    matched += 1
                    maxdt = max(maxdt, abs(dt))
                    if abs(dt) > 2000 and first_bad is None:
                        first_bad = i
                else:
                    r["frame"] = None
                    r["capture"] = capname
                    r["dt_us"] = None
                    r["tshark"] = None
            if kern or cap:
                v[side] = {"kernel": len(kern), "capture": len(cap), "matched": matched,
                           "max_abs_dt_us": maxdt, "first_order_mismatch": first_bad}
                summary["kernel_retransmits"] += len(kern)
                summary["capture_retransmits"] += len(cap)
                summary["matched"] += matched
                summary["max_abs_dt_us"] = max(summary["max_abs_dt_us"], maxdt)
                if first_bad is not None or len(kern) != len(cap):
                    summary["order_mismatches"] += 1
        for capn, rows in (("sender", snd), ("receiver", rcv)):
            for name, src, dst in (("c2s", fl["client"], fl["server"]), ("s2c", fl["server"], fl["client"])):
                tc = tshark_counts(rows, src, dst)
                v[f"tshark_{capn}_capture_{name}"] = {k: n for k, n in tc.items() if n}  # non-zero only
                agg = tot_tshark.setdefault(f"{capn}_{name}", {})
                for k, n in tc.items():
                    agg[k] = agg.get(k, 0) + n
        fl["verification"] = v
        summary["flows"] += 1
    summary["tshark"] = tot_tshark
    summary["kernel_class_vs_tshark_flags"] = crosstab
    doc["verification_note"] = ("frame/capture/dt_us per retransmit and flows[].verification were added by "
                                "scripts/lab/verify_truth.py: i-th kernel retransmission of a side = i-th "
                                "retransmitted segment of that side in its own capture")
    doc["verification_summary"] = summary
    text = json.dumps(doc, indent=1, ensure_ascii=False)
    text = re.sub(r"\[\s*([^\[\]{}]*?)\s*\]", lambda m: "[" + re.sub(r"\s*\n\s*", " ", m.group(1)) + "]", text)
    # one retransmission per line
    text = re.sub(r"\{\n\s*(\"t\": [^{}]*?)\n\s*\}", lambda m: "{" + re.sub(r"\s*\n\s*", " ", m.group(1)) + "}", text)
    open(a.kernel_json, "w").write(text + "\n")
    if a.summary:
        json.dump(summary, open(a.summary, "w"), indent=1)
    print(json.dumps(summary), file=sys.stderr)


if __name__ == "__main__":
    main()
