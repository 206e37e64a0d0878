#!/usr/bin/env bash
# The heavy hostile-input runs of docs/reliability.md (-Pfuzz-heavy): 10^6 seeded mutations per parser
# (pcap/pcapng reader+decoder, ctnetlink, conntrack -E text/XML) and the 10^6-flow SYN flood through
# the job on a MiniCluster. Not part of CI; expect tens of minutes on 2 cores.
#   bench/hostile-heavy.sh            (all)      bench/hostile-heavy.sh fuzz | flood
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
what="${1:-all}"
tests='NONE'
its='NONE'
[[ "$what" == all || "$what" == fuzz ]] && tests='CaptureFuzzTest,CtnetlinkParserFuzzTest,ConntrackTextFuzzTest'
[[ "$what" == all || "$what" == flood ]] && its='SynFloodITCase'
mvn -B -ntp -Pfuzz-heavy -pl core,jobs -am verify -Dtest="$tests" -Dit.test="$its" \
    -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false
