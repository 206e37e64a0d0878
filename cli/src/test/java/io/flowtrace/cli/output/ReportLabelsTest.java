package io.flowtrace.cli.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import org.junit.jupiter.api.Test;

/** The long text report (-l) names every per-direction field of the metric catalogue in plain words. */
class ReportLabelsTest {

    @Test
    void everyDirectionFieldOfTheCatalogueHasAPlainLabel() {
        for (FlowField f : FlowFields.DIRECTION) {
            assertThat(ReportLabels.labelled(f.path()))
                    .as("%s is in the catalogue but the text report has no label for it (ReportLabels)", f.path())
                    .isTrue();
        }
    }
}
