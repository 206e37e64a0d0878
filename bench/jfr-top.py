#!/usr/bin/env python3
"""bench/jfr-top.py - summarise a Java Flight Recording's execution samples of the Flink task threads.

Usage: bench/jfr-top.py RECORDING.jfr [--threads REGEX] [--top N]

Reads `jfr print --json --stack-depth 64 --events jdk.ExecutionSample` (the JDK's own `jfr` tool) and
prints three Markdown tables: samples per thread, the top frames (self time) and the flowtrace methods
on the stack (inclusive: a sample counts once for every io.flowtrace method in its stack), each as a
share of the selected threads' samples. Default threads: Flink task threads, whose names end in
"(i/n)#attempt". Used for docs/BENCHMARKS.md's smoke profiles; record with
JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=filename=/tmp/x.jfr,settings=profile bench/job-bench.sh ...
"""
import argparse
import collections
import json
import re
import subprocess
import sys


def frame_name(frame):
    method = frame["method"]
    owner = re.sub(r"\$\$Lambda\$.*", "$$Lambda", method["type"]["name"].replace("/", "."))
    return "%s.%s" % (owner, method["name"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("recording")
    parser.add_argument("--threads", default=r"\(\d+/\d+\)#\d+$")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    text = subprocess.run(
        ["jfr", "print", "--json", "--stack-depth", "64", "--events", "jdk.ExecutionSample", args.recording],
        check=True, capture_output=True, text=True).stdout
    events = json.loads(text)["recording"]["events"]
    wanted = re.compile(args.threads)
    threads = collections.Counter()
    top = collections.Counter()
    inclusive = collections.Counter()
    for event in events:
        values = event["values"]
        thread = (values.get("sampledThread") or {}).get("javaName") or ""
        stack = (values.get("stackTrace") or {}).get("frames") or []
        if not wanted.search(thread) or not stack:
            continue
        threads[re.sub(r"\s*\(\d+/\d+\)#\d+$", "", thread)[:90]] += 1
        top[frame_name(stack[0])] += 1
        for name in {frame_name(f) for f in stack if frame_name(f).startswith("io.flowtrace.")}:
            inclusive[name] += 1
    total = sum(threads.values())
    if total == 0:
        sys.exit("no execution samples on threads matching " + args.threads)
    print("%d samples on the selected threads\n" % total)
    for title, counter in (("thread (all subtasks)", threads), ("top frame (self)", top),
                           ("flowtrace method on the stack (inclusive)", inclusive)):
        print("| %s | samples | share |\n| --- | ---: | ---: |" % title)
        for name, count in counter.most_common(args.top):
            print("| `%s` | %d | %.1f %% |" % (name, count, 100.0 * count / total))
        print()


if __name__ == "__main__":
    main()
