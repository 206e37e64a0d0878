package io.flowtrace.jobs.conntrack;

import io.flowtrace.avro.ConntrackBudget;

/**
 * One window's conntrack budget as the window function emits it: the Avro contract (Kafka) plus what
 * the contract has no field for and the PostgreSQL row keeps (core's predicted ENOBUFS count and
 * drops, the risk class, sk_rcvbuf). A Flink POJO (public fields, no-arg constructor).
 */
public final class BudgetWindow {
    public ConntrackBudget record;
    public long predictedEnobufs;
    public long predictedDrops;
    /** NONE, TIGHT or OVERFLOW (core's BudgetReport.EnobufsRisk). */
    public String risk;
    /** sk_rcvbuf the kernel sets for the configured request (twice it). */
    public long effectiveRcvbuf;

    public BudgetWindow() {}

    public BudgetWindow(
            ConntrackBudget record, long predictedEnobufs, long predictedDrops, String risk, long effectiveRcvbuf) {
        this.record = record;
        this.predictedEnobufs = predictedEnobufs;
        this.predictedDrops = predictedDrops;
        this.risk = risk;
        this.effectiveRcvbuf = effectiveRcvbuf;
    }

    @Override
    public String toString() {
        return record + " predicted enobufs " + predictedEnobufs + " drops " + predictedDrops + " risk " + risk;
    }
}
