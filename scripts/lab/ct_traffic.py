#!/usr/bin/env python3
"""Traffic for the conntrack capture cases (docs/conntrack.md).

server mode (run in the server namespace): TCP echo on PORT, UDP echo on PORT.
client mode (run in the client namespace): N TCP connections (connect, send,
read echo, close), N UDP exchanges, each from a fresh source port, so every
one is a new conntrack entry; --burst-udp N sends N one-way UDP datagrams from
N source ports as fast as possible (a burst of NEW events).
"""
import argparse, socket, socketserver, threading, time


class Tcp(socketserver.BaseRequestHandler):
    def handle(self):
        d = self.request.recv(4096)
        if d:
            self.request.sendall(d)


class Udp(socketserver.BaseRequestHandler):
    def handle(self):
        data, sock = self.request
        sock.sendto(data, self.client_address)


def server(a):
    for fam, host in ((socket.AF_INET, '0.0.0.0'), (socket.AF_INET6, '::')):
        class T(socketserver.ThreadingTCPServer):
            address_family = fam
            allow_reuse_address = True
            daemon_threads = True

        class U(socketserver.UDPServer):
            address_family = fam
            allow_reuse_address = True
        for srv in (T((host, a.port), Tcp, bind_and_activate=False),
                    U((host, a.port), Udp, bind_and_activate=False)):
            if fam == socket.AF_INET6:
                srv.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            srv.server_bind()
            srv.server_activate()
            threading.Thread(target=srv.serve_forever, daemon=True).start()
    while True:
        time.sleep(3600)


def client(a):
    fam = socket.AF_INET6 if ':' in a.dst else socket.AF_INET
    for _ in range(a.tcp):
        with socket.socket(fam, socket.SOCK_STREAM) as s:
            s.settimeout(2)
            s.connect((a.dst, a.port))
            s.sendall(b'flowtrace-conntrack')
            s.recv(100)
        time.sleep(a.gap)
    for _ in range(a.udp):
        with socket.socket(fam, socket.SOCK_DGRAM) as s:
            s.settimeout(2)
            s.sendto(b'flowtrace-udp', (a.dst, a.port))
            try:
                s.recv(100)
            except socket.timeout:
                pass
        time.sleep(a.gap)
    socks = []
    for _ in range(a.burst_udp):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.sendto(b'b', (a.dst, a.port + 1))
        socks.append(s)
    for s in socks:
        s.close()


if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('mode', choices=['server', 'client'])
    ap.add_argument('--dst')
    ap.add_argument('--port', type=int, default=7777)
    ap.add_argument('--tcp', type=int, default=0)
    ap.add_argument('--udp', type=int, default=0)
    ap.add_argument('--burst-udp', type=int, default=0)
    ap.add_argument('--gap', type=float, default=0.02)
    a = ap.parse_args()
    server(a) if a.mode == 'server' else client(a)
