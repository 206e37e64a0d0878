# flowtrace_runtime_dir: prints this user's private directory for the launcher's and the demo's files
# (build log, demo lock and log, PostgreSQL binary cache), creating it with mode 0700; refuses, with one
# line on stderr and status 1, a directory that is a symbolic link, belongs to another user or is open to
# others. The same rule as the demo's RuntimeDir (demo/src/main/java/io/flowtrace/demo/RuntimeDir.java).
# Sourced by ./flowtrace (bash: $EUID is the effective uid `id -u` prints, without a process per use).
flowtrace_runtime_dir() {
    local dir="${TMPDIR:-/tmp}/flowtrace-$EUID"
    # mkdir fails (and creates nothing) when the name exists, whatever it is: a link is never followed
    mkdir -m 700 "$dir" 2>/dev/null || true
    local why="" owner="" mode=""
    if [[ -L "$dir" ]]; then
        why="is a symbolic link"
    elif [[ ! -d "$dir" ]]; then
        why="is not a directory"
    else
        read -r owner mode < <(stat -c '%u %a' "$dir")
        if [[ "$owner" != "$EUID" ]]; then
            why="belongs to uid $owner, not to you (uid $EUID)"
        elif [[ "$mode" != "700" ]]; then
            why="has mode $mode, not 700"
        fi
    fi
    if [[ -n "$why" ]]; then
        echo "flowtrace: the private directory $dir $why; another local user could swap its files. Remove it and run again." >&2
        return 1
    fi
    printf '%s\n' "$dir"
}
