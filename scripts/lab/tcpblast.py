#!/usr/bin/env python3
"""tcpblast.py - tiny TCP traffic generator for the flowtrace lab (stdlib only).

server:  tcpblast.py server --bind ADDR --port P [--cc cubic] [--rcvbuf BYTES] [--count N]
                            [--read-rate BYTES_PER_SEC] [--reply-every BYTES] [--stall SEC]
         Accepts connections (sequentially, each in a thread), reads until EOF, closes.
         Exits after N connections (default: run until killed). --cc sets TCP_CONGESTION on
         the listener (inherited by accepted sockets); --rcvbuf sets SO_RCVBUF on the listener
         before listen() so the advertised window is clamped from the SYN on; --read-rate makes
         the application read slowly (recv 8 KB, then sleep) so the receive window fills.
         --reply-every N sends one byte back after every N bytes read (a request/response
         exchange: the client waits for it, so its socket stays ESTABLISHED while the ACKs of its
         data arrive and tcp_probe records them). --stall SEC reads nothing for SEC seconds after
         accept (the receive buffer fills, the window goes to zero, the sender probes it).
         --response BYTES makes each reply BYTES long instead of one byte (an HTTP-like
         request/response: the server is the data sender of the response).
client:  tcpblast.py client --addr ADDR --port P --bytes N [--conns K] [--gap SEC] [--cc cubic]
         [--ipopts HEX] [--parallel J] [--await-reply]
         K connections one after another (or J at a time): connect, send N bytes, shutdown(WR),
         wait for the server's FIN, close. --await-reply: after sending, wait for the server's
         one-byte reply (server --reply-every N) before shutdown(WR); --response BYTES waits for
         that many reply bytes instead (server --response BYTES).
         --ipopts sets IP_OPTIONS (IPv4 header options) on
         the socket, e.g. 01010101 (four NOPs) or a timestamp option.
Prints one line per connection to stderr: local port, bytes, seconds, status.
"""
import argparse
import socket
import sys
import threading
import time

TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)


def family_of(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def serve(a):
    ls = socket.socket(family_of(a.bind), socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if a.cc:
        ls.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, a.cc.encode())
    if a.rcvbuf:
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, a.rcvbuf)
    ls.bind((a.bind, a.port))
    ls.listen(1024)
    print(f"listening {a.bind}:{a.port}", file=sys.stderr, flush=True)
    n = 0

    def handle(s):
        got = 0
        try:
            if a.stall:
                time.sleep(a.stall)
            while True:
                b = s.recv(8192 if a.read_rate else 1 << 16)
                if not b:
                    break
                if a.read_rate:
                    time.sleep(len(b) / a.read_rate)
                if a.reply_every:
                    before = got // a.reply_every
                    got += len(b)
                    if got // a.reply_every > before:
                        s.sendall(b"k" * max(1, a.response))
        except OSError:
            pass
        finally:
            s.close()

    threads = []
    while a.count == 0 or n < a.count:
        s, _ = ls.accept()
        t = threading.Thread(target=handle, args=(s,), daemon=True)
        t.start()
        threads.append(t)
        n += 1
    for t in threads:
        t.join(30)


def one_conn(a, buf, results):
    t0 = time.time()
    s = socket.socket(family_of(a.addr), socket.SOCK_STREAM)
    port = 0
    status = "ok"
    try:
        if a.cc:
            s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, a.cc.encode())
        if a.ipopts:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_OPTIONS, bytes.fromhex(a.ipopts))
        s.settimeout(a.timeout)
        s.connect((a.addr, a.port))
        port = s.getsockname()[1]
        left = a.bytes
        while left > 0:
            left -= s.send(buf[: min(left, len(buf))])
        want = max(1, a.response) if a.await_reply else 0
        while want > 0:
            b = s.recv(min(want, 1 << 16))
            if not b:
                status = "error:no-reply"
                break
            want -= len(b)
        s.shutdown(socket.SHUT_WR)
        while s.recv(4096):
            pass
    except OSError as e:
        status = f"error:{e.__class__.__name__}:{e}"
    finally:
        s.close()
    results.append((port, a.bytes, time.time() - t0, status))
    print(f"conn port={port} bytes={a.bytes} secs={time.time() - t0:.3f} {status}",
          file=sys.stderr, flush=True)


def client(a):
    buf = b"x" * 65536
    results = []
    active = []
    for i in range(a.conns):
        t = threading.Thread(target=one_conn, args=(a, buf, results))
        t.start()
        active.append(t)
        if len(active) >= a.parallel:
            active.pop(0).join()
        if a.gap:
            time.sleep(a.gap)
    for t in active:
        t.join()
    bad = [r for r in results if r[3] != "ok"]
    print(f"done conns={len(results)} errors={len(bad)}", file=sys.stderr, flush=True)
    return 1 if bad and len(bad) == len(results) else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("server")
    s.add_argument("--bind", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--cc")
    s.add_argument("--rcvbuf", type=int)
    s.add_argument("--count", type=int, default=0)
    s.add_argument("--read-rate", type=float, default=0.0)
    s.add_argument("--reply-every", type=int, default=0)
    s.add_argument("--stall", type=float, default=0.0)
    s.add_argument("--response", type=int, default=0)
    c = sub.add_parser("client")
    c.add_argument("--addr", required=True)
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--bytes", type=int, required=True)
    c.add_argument("--conns", type=int, default=1)
    c.add_argument("--parallel", type=int, default=1)
    c.add_argument("--gap", type=float, default=0.0)
    c.add_argument("--cc")
    c.add_argument("--ipopts")
    c.add_argument("--timeout", type=float, default=60.0)
    c.add_argument("--await-reply", action="store_true")
    c.add_argument("--response", type=int, default=0)
    a = p.parse_args()
    if a.mode == "server":
        serve(a)
        return 0
    return client(a)


if __name__ == "__main__":
    sys.exit(main())
