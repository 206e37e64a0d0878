# flowtrace_runtime_dir: prints this user's private directory for the launcher's and the demo's files
# (build log, demo lock and log, PostgreSQL binary cache), creating it with mode 0700; refuses, with one
# line on stderr and status 1, a directory that is a symbolic link, belongs to another user or is open to
# others. The same rule as the demo's RuntimeDir (demo/src/main/java/io/flowtrace/demo/RuntimeDir.java).
# When ${TMPDIR:-/tmp}/flowtrace-<uid> was taken by another user first (their directory or link, which
# this user cannot remove), it falls back to ${XDG_RUNTIME_DIR}/flowtrace, else ~/.cache/flowtrace-run,
# checked by the same rule, and says so on stderr (docs/reliability.md "Security").
# Sourced by ./flowtrace (bash: $EUID is the effective uid `id -u` prints, without a process per use).

# flowtrace_private_dir_problem DIR: creates DIR (0700) if absent; prints why it is unsafe, nothing if safe.
flowtrace_private_dir_problem() {
    local dir="$1" owner="" mode=""
    # mkdir fails (and creates nothing) when the name exists, whatever it is: a link is never followed
    mkdir -m 700 "$dir" 2>/dev/null || true
    if [[ -L "$dir" ]]; then
        echo "is a symbolic link"
    elif [[ ! -d "$dir" ]]; then
        echo "is not a directory"
    else
        read -r owner mode < <(stat -c '%u %a' "$dir")
        if [[ "$owner" != "$EUID" ]]; then
            echo "belongs to uid $owner, not to you (uid $EUID)"
        elif [[ "$mode" != "700" ]]; then
            echo "has mode $mode, not 700"
        fi
    fi
}

flowtrace_runtime_dir() {
    local dir="${TMPDIR:-/tmp}/flowtrace-$EUID"
    local why fallback
    why="$(flowtrace_private_dir_problem "$dir")"
    if [[ -n "$why" ]] && [[ -e "$dir" || -L "$dir" ]] && [[ "$(stat -c '%u' "$dir")" != "$EUID" ]]; then
        # another user's name in the shared directory: not ours to remove, so use a directory of our own
        if [[ -n "${XDG_RUNTIME_DIR:-}" && -d "$XDG_RUNTIME_DIR" && ! -L "$XDG_RUNTIME_DIR" \
            && "$(stat -c '%u' "$XDG_RUNTIME_DIR")" == "$EUID" ]]; then
            fallback="$XDG_RUNTIME_DIR/flowtrace"
        else
            mkdir -p -m 700 "$HOME/.cache" 2>/dev/null || true
            fallback="$HOME/.cache/flowtrace-run"
        fi
        echo "flowtrace: $dir $why (another local user made it); using $fallback instead." >&2
        dir="$fallback"
        why="$(flowtrace_private_dir_problem "$dir")"
    fi
    if [[ -n "$why" ]]; then
        echo "flowtrace: the private directory $dir $why; another local user could swap its files. Remove it and run again." >&2
        return 1
    fi
    printf '%s\n' "$dir"
}
