package io.flowtrace.core.conntrack;

import java.util.List;

/** Events read from conntrack(8) output, and the lines that failed (reading continues past them). */
public record TextParseResult(List<ConntrackMessage> events, List<ConntrackTextParseException> errors) {
    public TextParseResult {
        events = List.copyOf(events);
        errors = List.copyOf(errors);
    }
}
