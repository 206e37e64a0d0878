#!/usr/bin/env bash
# Start-up cost of `analyze --json` on a 570-packet capture, median of N runs (wall and CPU = user +
# system), with three class-data-sharing set-ups: the JDK's base archive only ("none"), an AppCDS
# archive written by an `analyze -q` run ("old": what the launcher kept when the first command after a
# build was the benchmark's warm-up), and one written by the launcher's training run ("new").
#   bench/startup-cds.sh [N]          (after a build: mvn -q -DskipTests -pl agent -am package)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work="$(mktemp -d "${TMPDIR:-/tmp}/startup-cds.XXXXXX")"
trap 'rm -rf -- "$work"' EXIT
jar=$(ls agent/target/flowtrace-agent-*.jar | grep -v tests | sed -n 1p)
cp="$jar:agent/target/lib/*"
opts="-XX:+UseParallelGC -XX:TieredStopAtLevel=1 -Xshare:auto -Xlog:cds=off -Xlog:cds+dynamic=off"
f=testdata/decoding/tcp4-sll.pcap
n=${1:-7}
java $opts -XX:ArchiveClassesAtExit="$work"/old.jsa -cp "$cp" io.flowtrace.cli.FlowtraceCli analyze -q --json testdata/tcp/cubic-loss.sender.pcap.gz >/dev/null 2>&1
java $opts -XX:ArchiveClassesAtExit="$work"/new.jsa -cp "$cp" io.flowtrace.cli.FlowtraceCli analyze --json -f tcp --report "$work"/train.html testdata/tcp/cubic-loss.sender.pcap.gz </dev/null >/dev/null 2>&1
for variant in none old new; do
  case $variant in none) a="-Xshare:auto";; old) a="-XX:SharedArchiveFile="$work"/old.jsa";; new) a="-XX:SharedArchiveFile="$work"/new.jsa";; esac
  for ((i=0;i<n;i++)); do
    /usr/bin/time -f "%e %U %S" -o "$work"/st.time java $opts $a -cp "$cp" io.flowtrace.cli.FlowtraceCli analyze --json $f >/dev/null 2>&1
    cat "$work"/st.time
  done | python3 -c '
import sys, statistics
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
w = [r[0] for r in rows]; c = [r[1] + r[2] for r in rows]
print("%-5s wall %.2f s  cpu %.2f s (median of %d; cpu min %.2f max %.2f)" % (sys.argv[1], statistics.median(w), statistics.median(c), len(c), min(c), max(c)))' $variant
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
