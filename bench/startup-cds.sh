#!/usr/bin/env bash
# Start-up of `analyze --json` on a 570-packet capture, where all of a run's cost is the fixed cost
# (JVM start, class loading, picocli, the analysis threads, exit): one row per build or JVM set-up,
# N runs of each, interleaved (every round runs each row once, so a change in the machine's load falls
# on all rows alike); wall time and CPU (user + system), median and minimum (docs/BENCHMARKS.md,
# "Start-up").
#   bench/startup-cds.sh [N] [LABEL=DIR ...]     (after a build: mvn -q -DskipTests -pl cli -am package)
# LABEL=DIR adds two rows for another build's cli/target (its flowtrace-cli-*.jar and lib/; agent/target and its
# flowtrace-agent-*.jar for a build from before the cli module), e.g. one
# of main for a before/after comparison: main's launcher set-up (a dynamic archive) and a static archive.
# Rows for this build: main's launcher set-up (ParallelGC, C1, dynamic AppCDS archive), the static
# archive, the launcher's set-up (static archive, -XX:-UsePerfData), then one change each to the
# launcher's: SerialGC, G1 (which can map the archived heap objects), C2 (tiered), the JDK's archive
# only; and ./flowtrace itself (the launcher script with its checks, on this build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work="$(mktemp -d "${TMPDIR:-/tmp}/startup-cds.XXXXXX")"
trap 'rm -rf -- "$work"' EXIT
n=${1:-9}
shift || true
f=testdata/decoding/tcp4-sll.pcap
train=(io.flowtrace.cli.FlowtraceCli analyze --json -f tcp --report "$work"/train.html
    testdata/tcp/cubic-loss.sender.pcap.gz)
base="-XX:+UseParallelGC -XX:TieredStopAtLevel=1 -Xshare:auto"
quiet="-Xlog:cds=off -Xlog:cds+dynamic=off"

# archives DIR NAME: the dynamic archive main's launcher made and the static one it makes now
archives() {
    local jar cp
    jar=$(ls "$1"/flowtrace-cli-*.jar "$1"/flowtrace-agent-*.jar 2>/dev/null | grep -v -- -tests | sed -n 1p)
    cp="$jar:$1/lib/*"
    # shellcheck disable=SC2086
    java $base -XX:ArchiveClassesAtExit="$work/$2.dyn.jsa" $quiet -cp "$cp" "${train[@]}" </dev/null >/dev/null 2>&1 || true
    # shellcheck disable=SC2086
    java $base -XX:DumpLoadedClassList="$work/$2.classlist" -cp "$cp" "${train[@]}" </dev/null >/dev/null 2>&1 || true
    java -Xshare:dump -XX:SharedClassListFile="$work/$2.classlist" -XX:SharedArchiveFile="$work/$2.static.jsa" \
        -Xlog:cds=off -cp "$cp" </dev/null >/dev/null 2>&1
    echo "$cp"
}

rows="$work/rows.tsv"
: >"$rows"
i=0
for spec in "$@"; do
    label="${spec%%=*}" dir="${spec#*=}" i=$((i + 1))
    cp=$(archives "$dir" "build$i")
    printf '%s, main'"'"'s launcher set-up (dynamic archive)\t%s\n' "$label" \
        "java $base -XX:SharedArchiveFile=$work/build$i.dyn.jsa $quiet -cp $cp" >>"$rows"
    printf '%s, static archive\t%s\n' "$label" \
        "java $base -XX:SharedArchiveFile=$work/build$i.static.jsa $quiet -cp $cp" >>"$rows"
done
cp=$(archives cli/target this)
s="-XX:SharedArchiveFile=$work/this.static.jsa $quiet -cp $cp"
{
    printf 'this build, main'"'"'s launcher set-up (dynamic archive)\t%s\n' \
        "java $base -XX:SharedArchiveFile=$work/this.dyn.jsa $quiet -cp $cp"
    printf 'this build, static archive\t%s\n' "java $base $s"
    printf 'this build, the launcher'"'"'s set-up: static archive, -XX:-UsePerfData\t%s\n' "java $base -XX:-UsePerfData $s"
    printf '  the same with SerialGC\t%s\n' "java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto -XX:-UsePerfData $s"
    printf '  the same with G1 (archived heap objects mapped)\t%s\n' \
        "java -XX:+UseG1GC -XX:TieredStopAtLevel=1 -Xshare:auto -XX:-UsePerfData $s"
    printf '  the same with C2 (tiered, no TieredStopAtLevel)\t%s\n' "java -XX:+UseParallelGC -Xshare:auto -XX:-UsePerfData $s"
    printf '  the same with the JDK'"'"'s archive only\t%s\n' \
        "java $base -XX:-UsePerfData $quiet -cp $cp"
    printf './flowtrace (launcher script, its own archive)\t%s\n' "./flowtrace"
} >>"$rows"
./flowtrace --version >/dev/null # makes the launcher's archive now if the build is newer than it

python3 - "$n" "$rows" "$f" <<'EOF'
import resource, shlex, statistics, subprocess, sys, time
n, rows, capture = int(sys.argv[1]), sys.argv[2], sys.argv[3]
variants = [line.rstrip("\n").split("\t") for line in open(rows) if line.strip()]
wall = {label: [] for label, _ in variants}
cpu = {label: [] for label, _ in variants}
loads = []
for _ in range(n):
    for label, command in variants:
        args = shlex.split(command)
        if args[0] == "java":
            args.append("io.flowtrace.cli.FlowtraceCli")
        args += ["analyze", "--json", capture]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        wall[label].append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[label].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    loads.append(float(open("/proc/loadavg").read().split()[0]))
print("| set-up | wall median | wall min | CPU median | CPU min |")
print("| --- | ---: | ---: | ---: | ---: |")
for label, _ in variants:
    w, c = wall[label], cpu[label]
    print("| %s | %.3f s | %.3f s | %.3f s | %.3f s |" % (label, statistics.median(w), min(w), statistics.median(c), min(c)))
print("%d runs each, interleaved; load average (1 min) %.1f-%.1f" % (n, min(loads), max(loads)))
EOF
