# flowtrace_large_capture ARG...: status 0 when the arguments that are regular files hold 768 MiB or
# more (a .gz file counting four times its size on disk, about what gzip saves on a capture), 1
# otherwise. Sourced by ./flowtrace, which then turns on tiered compilation (C2) instead of C1 only:
# C2 spends about a second of CPU compiling and repays it from 6-7 M packets on, i.e. from about
# 800 MB of a capture of 122-byte records, where the two were equal. 4.67 M packets (570 MB) 1.69 ->
# 1.79 s, 9.3 M 2.99 -> 2.39 s, 46.7 M 14.2 -> 8.5 s (docs/BENCHMARKS.md, "C2 for large captures").
# One stat for all the files, read without a pipeline.
flowtrace_large_capture() {
    local files=() a size bytes=0 i=0
    for a in "$@"; do
        [[ -f "$a" ]] && files+=("$a")
    done
    ((${#files[@]})) || return 1
    while read -r size; do
        [[ "${files[i]}" == *.gz ]] && size=$((size * 4))
        bytes=$((bytes + size))
        i=$((i + 1))
    done < <(stat -L -c %s -- "${files[@]}")
    ((bytes >= 768 << 20))
}
