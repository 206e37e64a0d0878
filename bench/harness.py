#!/usr/bin/env python3
"""The benchmark harness behind bench/run.sh: builds, makes the inputs, measures flowtrace against
its peers on the same inputs in the same run, and regenerates the marked blocks of
docs/BENCHMARKS.md (the prose around them is written by people and kept as it is).

Sections: offline (analyze vs tcptrace vs tshark; long flows 10^4..10^6 packets, both directions
and one direction, with a PNG plot), core (JMH per-packet cost and allocation), job
(bench/job-bench.sh when present), agent (file replay to Kafka vs decode).
"""
import argparse
import datetime
import json
import os
import signal
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "BENCHMARKS.md")
PLOT = os.path.join(ROOT, "docs", "bench-long-flow.png")
JAR = os.path.join(ROOT, "bench", "target", "flowtrace-bench.jar")
FLOWTRACE = os.path.join(ROOT, "flowtrace")
SECTIONS = ("offline", "core", "job", "agent")


def log(msg):
    print(f"[bench {datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


def run(cmd, **kw):
    log("$ " + " ".join(cmd))
    return subprocess.run(cmd, check=True, cwd=ROOT, **kw)


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def machine():
    mem = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) / 1024 / 1024
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    tools = []
    for tool, args, pattern in (("tcptrace", ["-v"], r"version\s*([\d.]+)"), ("tshark", ["-v"], r"TShark[^\d]*([\d.]+)")):
        if shutil.which(tool):
            out = subprocess.run([tool] + args, capture_output=True, text=True)
            m = re.search(pattern, out.stdout + out.stderr)
            tools.append(f"{tool} {m.group(1) if m else '?'}")
    return (f"{os.cpu_count()} cores, {mem:.0f} GiB, Linux {platform.release()}, {java.strip()}; "
            + ", ".join(tools))


def packets_in(path):
    out = subprocess.run(["capinfos", "-c", "-M", path], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"Number of packets:\s*(\d+)", out).group(1))


class Timing:
    """Repeated whole-process runs of one command: median, min, max seconds, peak RSS, last stdout."""

    def __init__(self, name, cmd, reps, timeout, slow_after=60.0):
        self.name, self.cmd = name, cmd
        self.seconds, self.rss_kb, self.stdout, self.timed_out = [], [], "", False
        for i in range(reps):
            tfile = os.path.join(WORK, "time.out")
            # In a session of its own, so a timeout kills the tool and not only /usr/bin/time: a
            # surviving tcptrace kept a core busy through the rest of a run and slowed every later line.
            proc = subprocess.Popen(["/usr/bin/time", "-f", "%e %M", "-o", tfile] + cmd, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, cwd=ROOT, start_new_session=True)
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
                self.timed_out = True
                log(f"{name}: timed out after {timeout} s")
                break
            p = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
            if p.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
            with open(tfile) as f:
                s, m = f.read().split()[-2:]
            self.seconds.append(float(s))
            self.rss_kb.append(int(m))
            self.stdout = p.stdout
            if float(s) > slow_after:
                break  # one run of something this slow says enough; the table shows n
        self.timeout = timeout

    @property
    def n(self):
        return len(self.seconds)

    def median(self):
        return statistics.median(self.seconds) if self.seconds else None

    def cell(self):
        if not self.seconds:
            return f"> {self.timeout} s (timeout)"
        if self.n == 1:
            return f"{self.seconds[0]:.2f} s (1 run{', then timeout' if self.timed_out else ''})"
        return f"{self.median():.2f} s ({min(self.seconds):.2f}-{max(self.seconds):.2f}, n={self.n})"

    def rate(self, packets):
        return f"{packets / self.median():,.0f}" if self.seconds else "-"

    def rss(self):
        return f"{statistics.median(self.rss_kb) / 1024:,.0f} MB" if self.rss_kb else "-"


def flowtrace_retransmissions(stdout):
    n = 0
    for line in stdout.splitlines():
        if line.strip().startswith("{"):
            o = json.loads(line)
            n += o["c2s"]["retransmitted_packets"] + o["s2c"]["retransmitted_packets"]
    return n


def tcptrace_retransmissions(stdout):
    return sum(int(a) + int(b) for a, b in re.findall(r"rexmt data pkts:\s+(\d+)\s+rexmt data pkts:\s+(\d+)", stdout))


def tshark_retransmissions(stdout):
    return sum(1 for line in stdout.splitlines() if line.strip())


def measure_tools(path, reps, with_tshark, tshark_reps, timeout):
    packets = packets_in(path)
    run([FLOWTRACE, "analyze", "-q", "--json", path], stdout=subprocess.DEVNULL)  # build if needed, warm the cache
    rows = [Timing("flowtrace analyze --json", [FLOWTRACE, "analyze", "-q", "--json", path], reps, timeout)]
    rows[0].retx = flowtrace_retransmissions(rows[0].stdout)
    t = Timing("tcptrace -l -r -n", ["tcptrace", "-l", "-r", "-n", path], reps, timeout)
    t.retx = tcptrace_retransmissions(t.stdout) if t.seconds else None
    rows.append(t)
    if with_tshark:
        s = Timing("tshark -2 (tcp.analysis)", ["tshark", "-2", "-n", "-r", path, "-Y", "tcp.analysis.retransmission",
                                                 "-T", "fields", "-e", "frame.number"], tshark_reps, timeout)
        s.retx = tshark_retransmissions(s.stdout) if s.seconds else None
        rows.append(s)
    return packets, rows


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" if i == 0 else "---:" for i in range(len(header))) + " |"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def offline(args):
    java = ["java", "-cp", JAR]
    scale = 40 if args.quick else 400
    inputs = {
        "lossy": (f"scale-cubic-loss-x{scale}.pcap", ["io.flowtrace.bench.ScaleUp", "testdata/tcp/cubic-loss.sender.pcap.gz"], scale),
        "tshark": ("scale-cubic-loss-x40.pcap", ["io.flowtrace.bench.ScaleUp", "testdata/tcp/cubic-loss.sender.pcap.gz"], 40),
        "short": (f"scale-short-conns-x{scale // 4}.pcap", ["io.flowtrace.bench.ScaleUp", "testdata/tcp/short-conns.sender.pcap.gz"], scale // 4),
    }
    made = {}
    for key, (name, cmd, copies) in inputs.items():
        path = os.path.join(WORK, name)
        if not os.path.exists(path):
            run(java + [cmd[0], cmd[1], path, str(copies)])
        made[key] = path
    reps = args.reps
    blocks = []
    rows = []
    for key, label in (("lossy", f"real lossy bulk capture × {scale} (addresses shifted)"),
                       ("short", f"240 short connections with SYN loss × {scale // 4}"),
                       ("tshark", "real lossy bulk capture × 40 (the input tshark is timed on)")):
        packets, tools = measure_tools(made[key], reps, key == "tshark", reps, args.timeout)
        for t in tools:
            rows.append([f"{label}: {packets:,} packets", t.name, t.cell(), t.rate(packets), t.rss(),
                         "-" if t.retx is None else f"{t.retx:,}"])
        if key == "tshark":
            f, tc, ts = (x.median() for x in tools)
            blocks.append(f"On the same {packets:,} packets: flowtrace / tcptrace packets/s = **{tc / f:.2f}×**, "
                          f"flowtrace / tshark = **{ts / f:.0f}×**.")
        elif key == "lossy":
            f, tc = tools[0].median(), tools[1].median()
            blocks.insert(0, f"Multi-million-packet capture: flowtrace / tcptrace packets/s = **{tc / f:.2f}×** (target ≥ 1).")
    peers = table(["input", "tool", "seconds median (min-max, n)", "packets/s", "peak RSS", "retransmissions counted"], rows)

    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    long_rows, plot = [], []
    for one_way in (False, True):
        for n in sizes:
            path = os.path.join(WORK, f"long-flow-{n}{'-oneway' if one_way else ''}.pcap")
            if not os.path.exists(path):
                run(java + ["io.flowtrace.bench.LongFlow", "testdata/tcp/cubic-loss.sender.pcap.gz", path, str(n)]
                    + (["--one-direction"] if one_way else []))
            packets, (f, t) = measure_tools(path, reps, False, 1, args.timeout)
            mode = "data direction only" if one_way else "both directions"
            long_rows.append([f"{packets:,}", mode, f.cell(), t.cell(),
                              f"{t.median() / f.median():.1f}×" if t.seconds else f"> {args.timeout / f.median():.0f}×",
                              f"{f.retx:,} / {'-' if t.retx is None else f'{t.retx:,}'}"])
            for tool in (f, t):
                if tool.seconds:
                    plot.append(f"{tool.name.split()[0]}, {mode}\t{packets}\t{tool.median()}")
                elif tool.timed_out:
                    plot.append(f"{tool.name.split()[0]}, {mode}, > timeout\t{packets}\t{args.timeout}")
    with open(os.path.join(WORK, "long-flow.tsv"), "w") as out:
        out.write("\n".join(plot) + "\n")
    run(["java", "-Djava.awt.headless=true", "-cp", JAR, "io.flowtrace.bench.LogLogPlot", os.path.join(WORK, "long-flow.tsv"),
         PLOT, "One long lossy flow: whole-process time vs packets", "packets in the flow", "seconds (median)"])
    long_table = table(["packets (one flow)", "captured", "flowtrace", "tcptrace", "tcptrace / flowtrace",
                        "retransmissions flowtrace / tcptrace"], long_rows)
    return "\n\n".join([
        f"Inputs: `ScaleUp` copies of committed real captures (addresses shifted, many flows) and `LongFlow` "
        f"(one real lossy connection's data phase repeated with sequence, ACK, SACK, timestamp and IP-id "
        f"offsets until the flow has N packets; sequence numbers wrap past 2^32 mid-flow; `--one-direction` "
        f"keeps the sender's packets only). Whole processes, JVM start included; {reps} runs each unless n says "
        f"otherwise (a run over 60 s is not repeated; timeout {args.timeout} s).",
        peers, "\n".join(f"- {b}" for b in blocks), long_table,
        "![whole-process time vs packets per flow](bench-long-flow.png)"])


def core(args):
    jmh = os.path.join(WORK, "jmh.json")
    opts = ["-wi", "1", "-i", "3", "-w", "1s", "-r", "1s", "-f", "1"] if args.quick else \
        ["-wi", "3", "-i", "5", "-w", "2s", "-r", "2s", "-f", "1"]
    out = run(["java", "-cp", JAR, "io.flowtrace.bench.PerPacketReport"] + opts + ["-prof", "gc", "-rf", "json", "-rff", jmh],
              capture_output=True, text=True).stdout
    packets = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\S+)\s+(\d+)\s+[\d.]+\s+[\d.]+\s+[\d,]+$", out, re.M)}
    rows = []
    per_packet = {}
    for r in json.load(open(jmh)):
        name = r["params"]["input"]
        n = packets[name]
        score, err = r["primaryMetric"]["score"], r["primaryMetric"]["scoreError"]
        alloc = r["secondaryMetrics"].get("gc.alloc.rate.norm") or r["secondaryMetrics"].get("·gc.alloc.rate.norm")
        per_packet[name] = score / n
        rows.append([name, f"{n:,}", f"{score / n:.1f} (±{err / n:.1f})", f"{1e9 * n / score / 1e6:.1f} M",
                     f"{alloc['score']:,.0f} B" if alloc else "-", f"{alloc['score'] / n:.2f} B" if alloc else "-"])
    note = ""
    if "synthetic-lossy-10000" in per_packet and "synthetic-lossy-1000000" in per_packet:
        ratio = per_packet["synthetic-lossy-1000000"] / per_packet["synthetic-lossy-10000"]
        note = f"\n\nFlat cost: ns/packet at 10^6 / at 10^4 packets in one lossy flow = **{ratio:.2f}×** (target ≤ 1.5)."
    return (f"`java -cp bench/target/flowtrace-bench.jar io.flowtrace.bench.PerPacketReport {' '.join(opts)} -prof gc`; "
            "whole input through a fresh flow table and analyser per operation, one thread.\n\n"
            + table(["input", "packets", "ns/packet (±99.9 %)", "packets/s", "allocation per operation", "allocation per packet"], rows)
            + note)


def job(args):
    script = os.path.join(ROOT, "bench", "job-bench.sh")
    if not os.path.exists(script):
        return "bench/job-bench.sh is not there: no job numbers in this run."
    opts = ["--packets", "200000", "--runs", "3", "--latency-runs", "1", "--latency-seconds", "10"] if args.quick else []
    out = run(["bash", script] + opts, capture_output=True, text=True).stdout
    lines = [l[len("JOBBENCH "):] for l in out.splitlines() if l.startswith("JOBBENCH ")]
    return (f"`bash bench/job-bench.sh {' '.join(opts)}` (its result lines; docs/BENCHMARKS.md \"## Job\" explains them):"
            "\n\n```\n" + "\n".join(lines) + "\n```")


def agent_classpath():
    """The agent's test classpath, siblings as their target/classes (no install into ~/.m2)."""
    cp = os.path.join(WORK, "agent-classpath.txt")
    run(["mvn", "-q", "-B", "-ntp", "-pl", "agent", "-am", "test-compile", "dependency:build-classpath",
         "-Dmdep.includeScope=test", f"-Dmdep.outputFile={cp}"])
    return ":".join([os.path.join(ROOT, "agent", "target", "classes"), os.path.join(ROOT, "agent", "target", "test-classes"),
                     open(cp).read().strip()])


def agent(args):
    copies = "2" if args.quick else "10"
    out = run(["java", "-cp", agent_classpath(), "io.flowtrace.agent.bench.AgentThroughput", copies, "none,lz4,zstd"],
              capture_output=True, text=True).stdout
    keep = [l for l in out.splitlines() if re.match(r"^(capture|decode only|stage|linger|publish)", l)]
    return (f"`AgentThroughput {copies} none,lz4,zstd` (agent → in-JVM KRaft broker on the same cores, acks=all, "
            "idempotent; decode = the same file read and decoded without Kafka; each codec with per-flow batches "
            "(the default limits) and with `--batch off`; agent CPU = the capture thread and the producer's I/O "
            "thread, not the broker's; linger lines: batch size and the latency batching adds, no Kafka):"
            "\n\n```\n" + "\n".join(keep) + "\n```")


def regenerate(name, header, body):
    begin, end = f"<!-- BEGIN bench/run.sh {name} -->", f"<!-- END bench/run.sh {name} -->"
    block = f"{begin}\n{header}\n\n{body}\n{end}"
    text = open(DOC).read()
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip() + f"\n\n## Harness: {name}\n\n{block}\n"
    with open(DOC, "w") as f:
        f.write(text)


def main():
    global WORK
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="smaller inputs, 3 runs, short JMH: minutes, not an hour")
    p.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated subset of " + ",".join(SECTIONS))
    p.add_argument("--reps", type=int, help="runs per tool and input (default 5; 3 with --quick)")
    p.add_argument("--timeout", type=int, default=900, help="seconds before one tool run is given up")
    p.add_argument("--no-write", action="store_true", help="print the blocks instead of regenerating docs/BENCHMARKS.md")
    args = p.parse_args()
    args.reps = args.reps or (3 if args.quick else 5)
    WORK = os.environ.get("FLOWTRACE_BENCH_DIR", "/tmp/flowtrace-bench")
    os.makedirs(WORK, exist_ok=True)
    for tool in ("tcptrace", "tshark", "capinfos", "/usr/bin/time"):
        if not shutil.which(tool):
            sys.exit(f"bench/run.sh needs {tool} (apt-get install tcptrace tshark time)")
    run(["mvn", "-q", "-B", "-ntp", "-pl", "bench,agent", "-am", "package", "-DskipTests"])
    for name in args.sections.split(","):
        if name not in SECTIONS:
            sys.exit(f"unknown section {name}; sections: {', '.join(SECTIONS)}")
        started = time.time()
        before = load()
        body = globals()[name](args)
        header = (f"_{'`bench/run.sh --quick`' if args.quick else '`bench/run.sh`'}, section {name}, "
                  f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {machine()}; load average "
                  f"{before} at the start, {load()} at the end; {time.time() - started:.0f} s._")
        if args.no_write:
            print(f"## {name}\n\n{header}\n\n{body}\n")
        else:
            regenerate(name, header, body)
            log(f"docs/BENCHMARKS.md: section {name} regenerated")


if __name__ == "__main__":
    main()
