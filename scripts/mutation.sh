#!/usr/bin/env bash
# scripts/mutation.sh - mutation testing (PIT) of core's detectors (docs/metrics.md, "Mutation
# scores"). Every mutant runs against core's tests and the report module's capture-truth tests
# (report/pom.xml, profile "mutation"; PIT stops at the first test that kills it). One run covers
# every group below; the score of each group is computed from PIT's mutations.xml and a group under
# its floor fails the script (PIT itself fails the build under the profile's overall floor). Not in
# CI: on two shared cores the coverage pass alone takes minutes and the whole run most of an hour.
#
# Usage: scripts/mutation.sh [GROUP...]     GROUPs default to all:
#        openvpn conntrack-sizes tcp-slowstart tcp-retransmissions tcp-rtt-flight
# Reports: report/target/pit-reports/ (index.html, mutations.xml, mutations.csv), the Maven log in
# report/target/pit-reports.log, and one line per group on stdout: killed/total, score, floor.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

declare -A CLASSES FLOOR
T=io.flowtrace.core.tcp
CLASSES[openvpn]="io.flowtrace.core.openvpn.OpenVpnDirectionStats*,io.flowtrace.core.openvpn.RetransmitCause*,io.flowtrace.core.openvpn.OpenVpnSessionTracker*"
FLOOR[openvpn]=50
CLASSES[conntrack-sizes]="io.flowtrace.core.conntrack.NetlinkSizer*,io.flowtrace.core.conntrack.EventSizeBudget*,io.flowtrace.core.conntrack.SkbAllocator*,io.flowtrace.core.conntrack.ReceiveQueueModel*,io.flowtrace.core.conntrack.SlidingPeak*,io.flowtrace.core.conntrack.SizeHistogram*"
FLOOR[conntrack-sizes]=50
CLASSES[tcp-slowstart]="$T.RoundTracker*,$T.HyStartReplay*,$T.CwndStuckRule*,$T.AckClock*"
FLOOR[tcp-slowstart]=50
CLASSES[tcp-retransmissions]="$T.RetransmissionClassifier*,$T.SegmentQueue*,$T.AckProcessor*"
FLOOR[tcp-retransmissions]=50
CLASSES[tcp-rtt-flight]="$T.SenderState*,$T.TimestampRtt*,$T.RunningStats*,$T.HandshakeTracker*,$T.AdvertisedWindow*"
FLOOR[tcp-rtt-flight]=50
ORDER=(openvpn conntrack-sizes tcp-slowstart tcp-retransmissions tcp-rtt-flight)

RUN=("$@")
[ ${#RUN[@]} -gt 0 ] || RUN=("${ORDER[@]}")
targets=""
spec=""
for g in "${RUN[@]}"; do
    [ -n "${CLASSES[$g]:-}" ] || { echo "mutation.sh: unknown group $g (groups: ${ORDER[*]})" >&2; exit 2; }
    targets="${targets:+$targets,}${CLASSES[$g]}"
    spec="$spec $g=${FLOOR[$g]}=${CLASSES[$g]}"
done
out="$PWD/report/target/pit-reports"
rm -rf "$out"
mkdir -p "$out"
status=0
# compile core and report and skip the ordinary test runs: PIT runs the tests itself
mvn -B -ntp -o -pl core,report -Pmutation verify -Dtest=NoTestByName -Dsurefire.failIfNoSpecifiedTests=false \
    -DskipITs -Dpit.targetClasses="$targets" -Dpit.reportsDirectory="$out" > "$out.log" 2>&1 || status=1
python3 - "$out/mutations.xml" $spec <<'PY' || status=1
import fnmatch, sys, xml.etree.ElementTree as ET
path, groups = sys.argv[1], [a.split("=", 2) for a in sys.argv[2:]]
try:
    mutations = list(ET.parse(path).getroot())
except (OSError, ET.ParseError):
    print(f"no PIT report ({path}): see {path.rsplit('/', 2)[0]}/pit-reports.log")
    sys.exit(1)
failed = False
for name, floor, patterns in groups:
    pats = patterns.split(",")
    mine = [m for m in mutations if any(fnmatch.fnmatchcase(m.findtext("mutatedClass"), p) for p in pats)]
    killed = sum(1 for m in mine if m.get("detected") == "true")
    score = 100 * killed // max(len(mine), 1)
    ok = len(mine) > 0 and score >= int(floor)
    failed |= not ok
    print(f"{name}: {killed}/{len(mine)} killed, score {score} % (floor {floor} %){'' if ok else '  BELOW FLOOR'}")
sys.exit(1 if failed else 0)
PY
exit $status
