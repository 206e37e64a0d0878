# flowtrace_runtime_dir: prints this user's private directory for the launcher's and the demo's files
# (build log, demo lock and log, PostgreSQL binary cache), creating it with mode 0700; refuses, with one
# line on stderr and status 1, a directory that is a symbolic link, belongs to another user or is open to
# others. The same rule as the demo's RuntimeDir (demo/src/main/java/io/flowtrace/demo/RuntimeDir.java).
# Sourced by ./flowtrace.
flowtrace_runtime_dir() {
    local dir="${TMPDIR:-/tmp}/flowtrace-$(id -u)"
    # mkdir fails (and creates nothing) when the name exists, whatever it is: a link is never followed
    mkdir -m 700 "$dir" 2>/dev/null || true
    local why=""
    if [[ -L "$dir" ]]; then
        why="is a symbolic link"
    elif [[ ! -d "$dir" ]]; then
        why="is not a directory"
    elif [[ "$(stat -c %u "$dir")" != "$(id -u)" ]]; then
        why="belongs to uid $(stat -c %u "$dir"), not to you (uid $(id -u))"
    elif [[ "$(stat -c %a "$dir")" != "700" ]]; then
        why="has mode $(stat -c %a "$dir"), not 700"
    fi
    if [[ -n "$why" ]]; then
        echo "flowtrace: the private directory $dir $why; another local user could swap its files. Remove it and run again." >&2
        return 1
    fi
    printf '%s\n' "$dir"
}
