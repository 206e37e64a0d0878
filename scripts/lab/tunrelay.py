#!/usr/bin/env python3
"""tunrelay.py - userspace links for link types this kernel cannot build (stdlib only).

The lab kernel has no 8021q, ipip or sit support, but it has TUN/TAP and AF_PACKET. Real kernel
TCP/IP traffic is therefore carried by a relay process in each namespace:

  tun  --dev NAME --addr4 A/P [--addr6 A/P] --local IP:PORT --peer IP:PORT
       creates a TUN device (IFF_TUN|IFF_NO_PI: bare IP packets, libpcap link type RAW) with the
       given addresses, and relays every packet between it and a UDP socket to the peer relay.
  vlan --dev NAME --addr4 A/P --parent IF --tags TPID:VID[,TPID:VID] [--mtu N]
       creates a TAP device with the given address and relays Ethernet frames between it and the
       parent interface IF through an AF_PACKET socket, inserting the tag stack after the MAC
       addresses on the way out (first tag outermost, e.g. 88a8:200,8100:300 = QinQ) and accepting
       from IF only frames that carry exactly that tag stack (which it strips before writing them
       to the TAP). A capture on IF then shows real 802.1Q / 802.1ad tagged frames.
  delay --dev NAME --delay-ms D [--mtu N]
       a delay line inside one namespace (this kernel has no netem): creates a TUN device with no
       address and writes every packet read from it back into it D ms later, in arrival order (a
       timed FIFO). Routes that send forwarded traffic out of NAME (policy routing by input
       interface, see scripts/lab/netns.sh --delay-ms) make the kernel hand each packet to the
       relay; written back, it arrives on NAME and is forwarded on by the main table. On exit (kill)
       it prints the packets carried and the late ones (held > D + 1 ms) on stderr.
The relay runs until killed; it prints "ready" on stderr once the device is up.
"""
import argparse
import collections
import signal
import fcntl
import os
import select
import socket
import struct
import subprocess
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40


def open_tun(name, flags):
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), flags | IFF_NO_PI))
    return fd


def ip(*args):
    subprocess.run(["ip", *args], check=True)


def run_tun(a):
    fd = open_tun(a.dev, IFF_TUN)
    ip("addr", "add", a.addr4, "dev", a.dev)
    if a.addr6:
        ip("addr", "add", a.addr6, "dev", a.dev, "nodad")
    ip("link", "set", a.dev, "mtu", str(a.mtu), "up")
    lh, lp = a.local.rsplit(":", 1)
    ph, pp = a.peer.rsplit(":", 1)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((lh, int(lp)))
    peer = (ph, int(pp))
    print("ready", file=sys.stderr, flush=True)
    while True:
        r, _, _ = select.select([fd, u], [], [])
        if fd in r:
            u.sendto(os.read(fd, 65535), peer)
        if u in r:
            os.write(fd, u.recv(65535))


def run_delay(a):
    fd = open_tun(a.dev, IFF_TUN)
    ip("link", "set", a.dev, "mtu", str(a.mtu), "txqueuelen", "10000", "up")
    os.set_blocking(fd, False)
    hold = a.delay_ms / 1000.0
    queue = collections.deque()  # (due time, packet); a fixed delay keeps it in arrival order
    carried = late = 0
    worst = 0.0

    def report(*_):
        print("delay %s: %d packets, %d late by > 1 ms, worst extra %.3f ms"
              % (a.dev, carried, late, worst * 1e3), file=sys.stderr, flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, report)
    signal.signal(signal.SIGINT, report)
    print("ready", file=sys.stderr, flush=True)
    while True:
        timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else None
        r, _, _ = select.select([fd], [], [], timeout)  # timeval: µs resolution
        now = time.monotonic()
        if r:
            while True:  # drain every packet the device holds, timestamped on arrival
                try:
                    pkt = os.read(fd, 65535)
                except BlockingIOError:
                    break
                queue.append((now + hold, pkt))
        while queue and queue[0][0] <= now:
            due, pkt = queue.popleft()
            os.write(fd, pkt)
            carried += 1
            extra = now - due
            worst = max(worst, extra)
            if extra > 0.001:
                late += 1


def run_vlan(a):
    tags = []
    for t in a.tags.split(","):
        tpid, vid = t.split(":")
        tags.append((int(tpid, 16), int(vid)))
    tagbytes = b"".join(struct.pack("!HH", tpid, vid) for tpid, vid in tags)
    fd = open_tun(a.dev, IFF_TAP)
    if a.mac:
        ip("link", "set", a.dev, "address", a.mac)
    ip("addr", "add", a.addr4, "dev", a.dev)
    ip("link", "set", a.dev, "mtu", str(a.mtu), "up")
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((a.parent, 0))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    print("ready", file=sys.stderr, flush=True)
    n = len(tagbytes)
    while True:
        r, _, _ = select.select([fd, s], [], [])
        if fd in r:
            fr = os.read(fd, 65535)
            s.send(fr[:12] + tagbytes + fr[12:])
        if s in r:
            fr, anc, _, addr = s.recvmsg(65535, socket.CMSG_SPACE(20))
            if addr[2] == PACKET_OUTGOING:
                continue
            # the receive path moves the outer tag into skb metadata before packet taps see the
            # frame; PACKET_AUXDATA hands it back (struct tpacket_auxdata), as libpcap does
            for level, typ, data in anc:
                if level == SOL_PACKET and typ == PACKET_AUXDATA and len(data) >= 20:
                    status, _, _, _, _, tci, tpid = struct.unpack("IIIHHHH", data[:20])
                    if status & TP_STATUS_VLAN_VALID:
                        if not status & TP_STATUS_VLAN_TPID_VALID:
                            tpid = 0x8100
                        fr = fr[:12] + struct.pack("!HH", tpid, tci) + fr[12:]
            if fr[12:12 + n] == tagbytes:
                os.write(fd, fr[:12] + fr[12 + n:])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="mode", required=True)
    t = sub.add_parser("tun")
    t.add_argument("--dev", required=True)
    t.add_argument("--addr4", required=True)
    t.add_argument("--addr6")
    t.add_argument("--local", required=True)
    t.add_argument("--peer", required=True)
    t.add_argument("--mtu", type=int, default=1400)
    d = sub.add_parser("delay")
    d.add_argument("--dev", required=True)
    d.add_argument("--delay-ms", type=float, required=True)
    d.add_argument("--mtu", type=int, default=1500)
    v = sub.add_parser("vlan")
    v.add_argument("--dev", required=True)
    v.add_argument("--addr4", required=True)
    v.add_argument("--parent", required=True)
    v.add_argument("--tags", required=True)
    v.add_argument("--mac")
    v.add_argument("--mtu", type=int, default=1492)
    a = p.parse_args()
    if a.mode == "tun":
        run_tun(a)
    elif a.mode == "delay":
        run_delay(a)
    else:
        run_vlan(a)


if __name__ == "__main__":
    main()
