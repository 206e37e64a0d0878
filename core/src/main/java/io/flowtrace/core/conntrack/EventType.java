package io.flowtrace.core.conntrack;

/**
 * Which conntrack event a message reports. ctnetlink_conntrack_event() (nf_conntrack_netlink.c)
 * sends IPCTNL_MSG_CT_DELETE to NFNLGRP_CONNTRACK_DESTROY, IPCTNL_MSG_CT_NEW with
 * NLM_F_CREATE|NLM_F_EXCL to NFNLGRP_CONNTRACK_NEW, and IPCTNL_MSG_CT_NEW without flags to
 * NFNLGRP_CONNTRACK_UPDATE: NEW and UPDATE share a message type and differ only in nlmsg_flags.
 */
public enum EventType {
    NEW,
    UPDATE,
    DESTROY
}
