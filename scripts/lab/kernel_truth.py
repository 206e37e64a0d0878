#!/usr/bin/env python3
"""kernel_truth.py - turn a tracefs text trace (scripts/lab/ktrace.sh) into CASE.kernel.json.

usage: kernel_truth.py RAWTRACE --case NAME --server-port P --sender client|server --out FILE.json

Input: the text of trace_pipe with the events tcp_retransmit_skb, tcp_retransmit_synack,
tcp_cong_state_set, tcp_probe, tcp_destroy_sock (trace_clock=tai), and RAWTRACE.meta
(tai_minus_realtime_s, per-CPU overruns).

A flow is (client ip:port, server ip:port), server port = --server-port; IPv4-mapped IPv6
addresses (::ffff:a.b.c.d, sockets of a dual-stack listener) are written as plain IPv4. A socket
side ("client"/"server") is told by which end of the tuple the event's local (source) address is.
A new flow instance starts when events for a tuple follow a tcp_destroy_sock of that side (port
reuse).

Per flow the JSON holds (times are epoch seconds = trace time - tai_minus_realtime_s, µs
resolution as printed by tracefs):
  retransmits: every tcp_retransmit_skb with err == 0 and every tcp_retransmit_synack, in trace
      order, each {t, side, kind, sk_state, ca_state, class}; kind = syn (socket in SYN_SENT),
      synack (tcp_retransmit_synack), data (any other state; in FIN_WAIT1/CLOSING/LAST_ACK it may
      be the FIN); ca_state = the last tcp_cong_state_set of that socket before it (Open if none
      yet); class = rto (Loss, and every synack: only the SYN-ACK timer resends it),
      fast (Recovery), tlp_or_early (Open, Disorder, CWR).
  retransmits_failed: tcp_retransmit_skb events with err != 0 (nothing went on the wire)
  retransmits_total, retransmits_by_side, retransmits_by_class
  cong_states: [[t, side, state], ...] every tcp_cong_state_set
  probe (tcp_probe of the data sender's socket only; the probe runs before the ACK is processed):
      slow_start_exit: first event whose ssthresh < 2147483647 (TCP_INFINITE_SSTHRESH):
          {t, snd_cwnd, ssthresh, cwnd_before, ca_state, srtt_us} (cwnd_before = snd_cwnd of the
          previous event, still in slow start); null if ssthresh never left its initial value
          (e.g. BBR, which does not use ssthresh that way)
      max_snd_cwnd, min_srtt_us, events, srtt_mean_us (mean srtt over every sample; cwnd_series
          holds only cwnd/ssthresh change points, so its srtt values are bunched where cwnd changed)
      inflight (snd_nxt - snd_una in bytes at each tcp_probe, i.e. before that ACK is processed;
          SACKed bytes are not subtracted, the tracepoint does not carry them):
          max_inflight_open_bytes: the largest in the Open state; max_inflight_before_exit_bytes:
          the largest at or before the slow-start exit sample (null without an exit)
      ssthresh_changes: every sample where ssthresh changed [t, snd_cwnd before, snd_cwnd,
          ssthresh, ca_state] (the first is the slow-start exit)
      samples (only with --samples, and only when the flow has <= 400 samples): every sample
          [t, snd_cwnd, ssthresh or null, srtt_us, snd_nxt - snd_una, ca_state]
      cwnd_series: <= 500 points [t, snd_cwnd, ssthresh or null, srtt_us], evenly spaced over the
          events where snd_cwnd or ssthresh changed (first and last always kept)
  destroyed: {side: t} from tcp_destroy_sock
"""
import argparse
import json
import re
import sys

LINE = re.compile(r"\[\d{3}\]\s+(?:\S+\s+)?(\d+\.\d+): (tcp_\w+): (.*)$")
KV = re.compile(r"(\w+)=(\[[^\]]*\]:\d+|\S+)")
CA = {0: "Open", 1: "Disorder", 2: "CWR", 3: "Recovery", 4: "Loss"}
CLASS = {"Loss": "rto", "Recovery": "fast", "Open": "tlp_or_early", "Disorder": "tlp_or_early",
         "CWR": "tlp_or_early"}
INF = 2147483647


def norm(addr):
    addr = addr.strip("[]")
    if addr.startswith("::ffff:") and "." in addr:
        return addr[7:]
    return addr


def split_hostport(s):
    if s.startswith("["):
        h, p = s[1:].split("]:")
    else:
        h, p = s.rsplit(":", 1)
    return norm(h), int(p)


def endpoints(ev, kv):
    """(local ip, local port, remote ip, remote port) of the socket the event belongs to"""
    if ev == "tcp_probe":
        lh, lp = split_hostport(kv["src"])
        rh, rp = split_hostport(kv["dest"])
        return lh, lp, rh, rp
    fam = kv.get("family")
    if fam == "AF_INET6":
        ls, rs = norm(kv["saddrv6"]), norm(kv["daddrv6"])
    else:
        ls, rs = kv["saddr"], kv["daddr"]
    return ls, int(kv["sport"]), rs, int(kv["dport"])


def read_meta(path):
    meta = {}
    try:
        for line in open(path):
            if "=" in line:
                k, v = line.strip().split("=", 1)
                meta[k] = v
    except FileNotFoundError:
        pass
    return meta


def downsample(points, n=500):
    if len(points) <= n:
        return points
    step = (len(points) - 1) / (n - 1)
    return [points[round(i * step)] for i in range(n)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("--case", required=True)
    ap.add_argument("--server-port", type=int, required=True)
    ap.add_argument("--sender", choices=["client", "server"], default="client")
    ap.add_argument("--out", required=True)
    ap.add_argument("--samples", action="store_true", help="keep every tcp_probe sample of short flows")
    a = ap.parse_args()
    meta = read_meta(a.raw + ".meta")
    off = float(meta.get("tai_minus_realtime_s", "0"))
    overruns = {k: int(v) for k, v in meta.items() if k.endswith("_overrun") and v.isdigit()}

    flows = {}       # (client, server) -> list of instances
    closed = set()   # (key, side) destroyed -> next event starts a new instance
    lost_lines = 0
    counts = {}

    def instance(key, side):
        lst = flows.setdefault(key, [])
        if not lst or (key, side) in closed:
            if lst and (key, side) in closed:
                # only the first side to come back after a destroy opens a new instance
                closed.discard((key, "client"))
                closed.discard((key, "server"))
            lst.append(new_flow(key))
        return lst[-1]

    def new_flow(key):
        return {"client": key[0], "server": key[1], "family": "ipv6" if key[0].startswith("[") else "ipv4",
                "retransmits": [], "retransmits_failed": [], "cong_states": [],
                "_ca": {"client": "Open", "server": "Open"}, "_probe": [], "destroyed": {}}

    def fmt(h, p):
        return f"[{h}]:{p}" if ":" in h else f"{h}:{p}"

    for line in open(a.raw, errors="replace"):
        if "LOST" in line and "EVENTS" in line:
            lost_lines += 1
            continue
        m = LINE.search(line)
        if not m:
            continue
        ts, ev, rest = float(m.group(1)), m.group(2), m.group(3)
        counts[ev] = counts.get(ev, 0) + 1
        kv = dict(KV.findall(rest))
        lh, lp, rh, rp = endpoints(ev, kv)
        if lp == 0 or rp == 0:
            continue  # listening socket (destroyed when the server exits)
        if lp == a.server_port:
            side, key = "server", (fmt(rh, rp), fmt(lh, lp))
        elif rp == a.server_port:
            side, key = "client", (fmt(lh, lp), fmt(rh, rp))
        else:
            continue
        t = round(ts - off, 6)
        fl = instance(key, side)
        if ev == "tcp_cong_state_set":
            st = CA.get(int(kv["cong_state"]), kv["cong_state"])
            fl["_ca"][side] = st
            fl["cong_states"].append([t, side, st])
        elif ev == "tcp_retransmit_skb":
            state = kv.get("state", "")
            kind = "syn" if state == "TCP_SYN_SENT" else "data"
            ca = fl["_ca"][side]
            rec = {"t": t, "side": side, "kind": kind, "sk_state": state, "ca_state": ca,
                   "class": CLASS.get(ca, "unknown")}
            if int(kv.get("err", "0")) != 0:
                rec["err"] = int(kv["err"])
                fl["retransmits_failed"].append(rec)
            else:
                fl["retransmits"].append(rec)
        elif ev == "tcp_retransmit_synack":
            fl["retransmits"].append({"t": t, "side": side, "kind": "synack", "sk_state": "TCP_NEW_SYN_RECV",
                                      "ca_state": None, "class": "rto"})
        elif ev == "tcp_probe":
            if side == a.sender:
                fl["_probe"].append((t, int(kv["snd_cwnd"]), int(kv["ssthresh"]), int(kv["srtt"]),
                                     fl["_ca"][side],
                                     (int(kv["snd_nxt"], 0) - int(kv["snd_una"], 0)) & 0xffffffff))
        elif ev == "tcp_destroy_sock":
            fl["destroyed"][side] = t
            closed.add((key, side))

    out_flows = []
    for key in sorted(flows):
        for fl in flows[key]:
            pr = fl.pop("_probe")
            fl.pop("_ca")
            probe = {"events": len(pr), "slow_start_exit": None, "max_snd_cwnd": None,
                     "min_srtt_us": None, "cwnd_series": []}
            if pr:
                probe["max_snd_cwnd"] = max(p[1] for p in pr)
                probe["min_srtt_us"] = min(p[3] for p in pr if p[3] > 0) if any(p[3] > 0 for p in pr) else None
                probe["srtt_mean_us"] = round(sum(p[3] for p in pr) / len(pr), 1)
                for i, p in enumerate(pr):
                    if p[2] < INF:
                        probe["slow_start_exit"] = {
                            "t": p[0], "snd_cwnd": p[1], "ssthresh": p[2],
                            "cwnd_before": pr[i - 1][1] if i > 0 else None,
                            "ca_state": p[4], "srtt_us": p[3]}
                        break
                changes = [pr[0]]
                for p in pr[1:]:
                    if p[1] != changes[-1][1] or p[2] != changes[-1][2]:
                        changes.append(p)
                if changes[-1] is not pr[-1]:
                    changes.append(pr[-1])
                probe["cwnd_series"] = [[p[0], p[1], p[2] if p[2] < INF else None, p[3]]
                                        for p in downsample(changes)]
                opens = [p[5] for p in pr if p[4] == "Open"]
                probe["max_inflight_open_bytes"] = max(opens) if opens else None
                exit_t = probe["slow_start_exit"]["t"] if probe["slow_start_exit"] else None
                probe["max_inflight_before_exit_bytes"] = (max(p[5] for p in pr if p[0] <= exit_t)
                                                           if exit_t is not None else None)
                sst = []
                for i, p in enumerate(pr):
                    if i > 0 and p[2] != pr[i - 1][2]:
                        sst.append([p[0], pr[i - 1][1], p[1], p[2], p[4]])
                probe["ssthresh_changes"] = sst
                if a.samples and len(pr) <= 400:
                    probe["samples"] = [[p[0], p[1], p[2] if p[2] < INF else None, p[3], p[5], p[4]]
                                        for p in pr]
            rt = fl["retransmits"]
            fl["retransmits_total"] = len(rt)
            by_side, by_class, by_kind = {}, {}, {}
            for r in rt:
                by_side[r["side"]] = by_side.get(r["side"], 0) + 1
                by_class[r["class"]] = by_class.get(r["class"], 0) + 1
                by_kind[r["kind"]] = by_kind.get(r["kind"], 0) + 1
            fl["retransmits_by_side"] = by_side
            fl["retransmits_by_class"] = by_class
            fl["retransmits_by_kind"] = by_kind
            fl["probe"] = probe
            out_flows.append(fl)
    out_flows.sort(key=lambda f: (min([r["t"] for r in f["retransmits"]] +
                                      [c[0] for c in f["cong_states"]] +
                                      ([f["probe"]["cwnd_series"][0][0]] if f["probe"]["cwnd_series"] else []) +
                                      list(f["destroyed"].values()) +
                                      [9e18]), f["client"]))
    order = ["client", "server", "family", "retransmits_total", "retransmits_by_side",
             "retransmits_by_class", "retransmits_by_kind", "retransmits", "retransmits_failed",
             "probe", "cong_states", "destroyed"]
    out_flows = [{k: f[k] for k in order} for f in out_flows]
    doc = {
        "case": a.case,
        "source": "tracefs tcp:tcp_retransmit_skb, tcp_retransmit_synack, tcp_cong_state_set, "
                  "tcp_probe, tcp_destroy_sock (scripts/lab/ktrace.sh, kernel_truth.py)",
        "trace_clock": meta.get("trace_clock", "tai"),
        "tai_minus_realtime_s": off,
        "time_note": "t = trace timestamp (CLOCK_TAI) - tai_minus_realtime_s, i.e. CLOCK_REALTIME "
                     "epoch seconds like pcap timestamps; µs resolution",
        "server_port": a.server_port,
        "data_sender": a.sender,
        "trace_event_counts": counts,
        "trace_overruns": overruns,
        "trace_lost_event_lines": lost_lines,
        "flows_total": len(out_flows),
        "retransmits_total": sum(f["retransmits_total"] for f in out_flows),
        "flows": out_flows,
    }
    text = json.dumps(doc, indent=1, ensure_ascii=False)
    # one line per innermost array (series points, state changes) keeps the file readable
    text = re.sub(r"\[\s*([^\[\]{}]*?)\s*\]", lambda m: "[" + re.sub(r"\s*\n\s*", " ", m.group(1)) + "]", text)
    with open(a.out, "w") as f:
        f.write(text + "\n")
    print(f"{a.out}: {len(out_flows)} flows, {doc['retransmits_total']} retransmits, events {counts}, "
          f"overruns {overruns}", file=sys.stderr)


if __name__ == "__main__":
    main()
