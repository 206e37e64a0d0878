package io.flowtrace.cli.report;

import java.util.List;

/**
 * A part of a report page: a heading (none for a page of one part), a note saying where its data
 * comes from (HTML written by flowtrace itself, never from the data), the flows' graphs, then charts.
 */
public record Section(String heading, String noteHtml, List<FlowGraph> flows, List<Chart> charts) {
    public static Section ofFlows(List<FlowGraph> flows) {
        return new Section(null, null, flows, List.of());
    }
}
