#!/usr/bin/env python3
"""Raw ctnetlink listener for flowtrace's conntrack tests (docs/conntrack.md).

Opens a NETLINK_NETFILTER (12) socket bound to the conntrack event groups
NFNLGRP_CONNTRACK_NEW|UPDATE|DESTROY (1..3, bitmask 0x7), and writes every
datagram it receives as a record: [u32 little-endian length][message bytes].
One recv() returns exactly one skb = one ctnetlink message for these
broadcasts (nfnetlink_send -> netlink_broadcast), so the record length is the
real wire size of the event.

ENOBUFS (errno 105) from recv() is counted, not fatal: it is the kernel's
netlink_overrun() telling us that messages were dropped.

--pause-file: do not read until this file exists (simulates a listener that is
busy for a while; used by the ENOBUFS experiment). Before draining, the
socket's Rmem and Drops are read from /proc/net/netlink (same namespace), so
the facts file holds the real truesize charged for the queued messages.
"""
import argparse, errno, json, os, select, signal, socket, struct, sys, time

SOL_NETLINK = 270
SO_RCVBUFFORCE = 33


def proc_netlink_row(inode):
    with open('/proc/net/netlink') as f:
        next(f)
        for line in f:
            p = line.split()
            # sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
            if int(p[9]) == inode:
                return {'rmem': int(p[4]), 'drops': int(p[8])}
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--rcvbuf', type=int, default=8 << 20, help='value passed to SO_RCVBUFFORCE (kernel doubles it)')
    ap.add_argument('--groups', type=lambda s: int(s, 0), default=0x7)
    ap.add_argument('--ready-file')
    ap.add_argument('--pause-file')
    ap.add_argument('--stats')
    a = ap.parse_args()

    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, a.rcvbuf)
    s.bind((0, a.groups))
    inode = os.fstat(s.fileno()).st_ino
    stats = {'rcvbuf_requested': a.rcvbuf,
             'rcvbuf_effective': s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
             'messages': 0, 'bytes': 0, 'enobufs': 0}
    stop = {'flag': False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(flag=True))
    signal.signal(signal.SIGINT, lambda *_: stop.update(flag=True))
    out = open(a.out, 'wb')
    if a.ready_file:
        open(a.ready_file, 'w').close()

    if a.pause_file:
        while not os.path.exists(a.pause_file) and not stop['flag']:
            time.sleep(0.01)
        stats['before_drain'] = proc_netlink_row(inode)

    s.setblocking(False)
    idle_after_stop = 0
    while True:
        r, _, _ = select.select([s], [], [], 0.1)
        if not r:
            if stop['flag']:
                idle_after_stop += 1
                if idle_after_stop >= 3:
                    break
            continue
        try:
            data = s.recv(1 << 16)
        except BlockingIOError:
            continue
        except OSError as e:
            if e.errno == errno.ENOBUFS:
                stats['enobufs'] += 1
                continue
            raise
        out.write(struct.pack('<I', len(data)))
        out.write(data)
        stats['messages'] += 1
        stats['bytes'] += len(data)
    stats['at_exit'] = proc_netlink_row(inode)
    out.close()
    if a.stats:
        with open(a.stats, 'w') as f:
            json.dump(stats, f, indent=1, sort_keys=True)
            f.write('\n')


if __name__ == '__main__':
    main()
