package io.flowtrace.core.conntrack;

/** CTA_SEQ_ADJ_ORIG / CTA_SEQ_ADJ_REPLY (dump_ct_seq_adj()): NAT/helper TCP sequence rewriting. */
public record SeqAdjustment(long correctionPos, long offsetBefore, long offsetAfter) {}
