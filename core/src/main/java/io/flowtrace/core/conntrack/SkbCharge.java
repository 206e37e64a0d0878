package io.flowtrace.core.conntrack;

/**
 * What one event costs the listener's receive buffer.
 *
 * @param requested     bytes asked of alloc_skb(): nlmsg_total_size(ctnetlink_nlmsg_size())
 * @param headBytes     the kmalloc object actually backing skb->head (size class or small-head cache)
 * @param allocTruesize skb->truesize after alloc_skb()
 * @param trimmed       whether netlink_trim() reallocated the head because over half was unused
 * @param truesize      skb->truesize charged to sk_rmem_alloc on delivery (netlink_broadcast_deliver())
 */
public record SkbCharge(int requested, int headBytes, int allocTruesize, boolean trimmed, int truesize) {}
