#!/usr/bin/env bash
# The advertised-window truth of every committed TCP capture, from tshark (docs/metrics.md, window.*):
# one line per capture file and sending side, over the packets that side sent except resets:
#   capture  src  dst  packets  window_min  window_max  scale
# window_min/max: tshark's tcp.window_size (the header field times the scale factor the handshake
# agreed; the field itself when tshark saw no handshake); scale: log2 of tshark's
# tcp.window_size_scalefactor on that side's first non-SYN packet, 0 for tshark's -2 (no scaling
# used), -1 for tshark's -1 (handshake not seen).
#   scripts/lab/window_truth.sh [DIR] > DIR/windows.tshark.tsv   (DIR: testdata/tcp)
set -euo pipefail
dir="${1:-testdata/tcp}"
printf 'capture\tsrc\tdst\tpackets\twindow_min\twindow_max\tscale\n'
for f in "$dir"/*.pcap.gz; do
    name="$(basename "$f" .pcap.gz)"
    tshark -r "$f" -n -Y 'tcp && tcp.flags.reset == 0' -T fields -E separator=/t \
        -e ip.src -e ipv6.src -e tcp.srcport -e ip.dst -e ipv6.dst -e tcp.dstport \
        -e tcp.flags.syn -e tcp.window_size -e tcp.window_size_scalefactor 2>/dev/null |
        awk -F'\t' -v OFS='\t' -v capture="$name" '
            function ep(v4, v6, port) { return (v4 != "" ? v4 : "[" v6 "]") ":" port }
            {
                k = ep($1, $2, $3) "\t" ep($4, $5, $6)
                w = $8 + 0
                if (!(k in n)) { order[++keys] = k; lo[k] = w; hi[k] = w }
                n[k]++
                if (w < lo[k]) lo[k] = w
                if (w > hi[k]) hi[k] = w
                if ($7 != "1" && !(k in scale)) {
                    f = $9 + 0
                    if (f == -1) scale[k] = -1
                    else if (f == -2) scale[k] = 0
                    else { s = 0; while (f > 1) { f /= 2; s++ } scale[k] = s }
                }
            }
            END { for (i = 1; i <= keys; i++) { k = order[i]; print capture, k, n[k], lo[k], hi[k], (k in scale ? scale[k] : -1) } }'
done
