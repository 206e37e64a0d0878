#!/usr/bin/env python3
"""Measure what each queued ctnetlink event costs a listener's receive buffer.

Used by scripts/capture-ct-alloc.sh. Opens a NETLINK_NETFILTER (12) socket bound to
NFNLGRP_CONNTRACK_NEW|UPDATE|DESTROY (0x7) with SO_RCVBUFFORCE, and does NOT read until
--go-file exists, so every event of the case is queued. Then:

  rmem_before_drain  SO_MEMINFO[SK_MEMINFO_RMEM_ALLOC] (= sk_rmem_alloc), and the socket's
                     Rmem and Drops columns in /proc/net/netlink (same namespace)
  per message        recv() length (nlmsg_len: one broadcast skb = one message) and the drop
                     of sk_rmem_alloc across that recv(): netlink_recvmsg() frees the skb before
                     returning (skb_free_datagram() -> sock_rfree()), so the drop is exactly the
                     truesize netlink_broadcast_deliver() charged for that message.

Writes JSON: kernel, case, rcvbuf, rmem_before_drain, proc_rmem, drops, and the messages as
[type, family, proto, nlmsg_len, rmem_delta], and the raw bytes (hex) of the first message of
each type and length as 'samples' ("TYPE/LEN": hex). type is NEW / UPDATE / DESTROY (IPCTNL_MSG_CT_NEW
with NLM_F_CREATE|NLM_F_EXCL = NEW, without = UPDATE; IPCTNL_MSG_CT_DELETE = DESTROY).
These are kernel values: no flowtrace code is involved.
"""
import argparse, errno, json, os, platform, socket, struct, time

SO_RCVBUFFORCE = 33
SO_MEMINFO = 55
SK_MEMINFO_VARS = 9
NLM_F_CREATE, NLM_F_EXCL = 0x400, 0x200
CTA_TUPLE_ORIG, CTA_TUPLE_PROTO, CTA_PROTO_NUM = 1, 2, 1
NLA_TYPE_MASK = 0x3fff


def rmem(s):
    return struct.unpack('%dI' % SK_MEMINFO_VARS, s.getsockopt(socket.SOL_SOCKET, SO_MEMINFO, 4 * SK_MEMINFO_VARS))[0]


def proc_netlink_row(inode):
    with open('/proc/net/netlink') as f:
        next(f)
        for line in f:
            p = line.split()
            if int(p[9]) == inode:   # sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
                return int(p[4]), int(p[8])
    return None, None


def attrs(buf, off, end):
    while off + 4 <= end:
        ln, ty = struct.unpack_from('<HH', buf, off)
        if ln < 4:
            return
        yield ty & NLA_TYPE_MASK, off + 4, off + ln
        off += (ln + 3) & ~3


def l4proto(m):
    for ty, a, b in attrs(m, 20, len(m)):
        if ty == CTA_TUPLE_ORIG:
            for ty2, a2, b2 in attrs(m, a, b):
                if ty2 == CTA_TUPLE_PROTO:
                    for ty3, a3, _ in attrs(m, a2, b2):
                        if ty3 == CTA_PROTO_NUM:
                            return m[a3]
    return None


def describe(m):
    _, nltype, flags = struct.unpack_from('<IHH', m, 0)
    msg = nltype & 0xff
    if msg == 0:
        kind = 'NEW' if flags & (NLM_F_CREATE | NLM_F_EXCL) else 'UPDATE'
    elif msg == 2:
        kind = 'DESTROY'
    else:
        kind = 'MSG%d' % msg
    family = {2: 'ipv4', 10: 'ipv6'}.get(m[16], str(m[16]))
    proto = {6: 'tcp', 17: 'udp', 1: 'icmp', 58: 'icmpv6'}.get(l4proto(m), 'other')
    return kind, family, proto


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--case', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--rcvbuf', type=int, default=32 << 20)
    ap.add_argument('--ready-file', required=True)
    ap.add_argument('--go-file', required=True)
    ap.add_argument('--timeout', type=float, default=120)
    a = ap.parse_args()

    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, a.rcvbuf)
    s.bind((0, 0x7))
    inode = os.fstat(s.fileno()).st_ino
    open(a.ready_file, 'w').close()
    deadline = time.time() + a.timeout
    while not os.path.exists(a.go_file):
        if time.time() > deadline:
            raise SystemExit('ct_alloc: no go file after %.0f s' % a.timeout)
        time.sleep(0.02)

    before = rmem(s)
    proc_rmem, drops = proc_netlink_row(inode)
    msgs, samples, enobufs, prev = [], {}, 0, before
    while True:
        try:
            m = s.recv(1 << 16, socket.MSG_DONTWAIT)
        except BlockingIOError:
            break
        except OSError as e:
            if e.errno == errno.ENOBUFS:
                enobufs += 1
                continue
            raise
        cur = rmem(s)
        msgs.append(list(describe(m)) + [len(m), prev - cur])
        samples.setdefault('%s/%d' % (msgs[-1][0], len(m)), m.hex())
        prev = cur
    res = {'kernel': platform.release(), 'case': a.case,
           'rcvbuf_effective': s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
           'rmem_before_drain': before, 'proc_rmem_before_drain': proc_rmem, 'drops': drops,
           'enobufs': enobufs, 'rmem_after_drain': prev, 'messages': msgs, 'samples': samples}
    with open(a.out, 'w') as f:
        json.dump(res, f)
        f.write('\n')


if __name__ == '__main__':
    main()
