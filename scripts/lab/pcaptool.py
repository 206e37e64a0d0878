#!/usr/bin/env python3
"""pcaptool.py - small, byte-exact pcap/pcapng rewriters for the flowtrace test data (stdlib only).

Subcommands (each reads IN and writes OUT, never modifies IN):
  to-be IN OUT          classic pcap (either byte order, us or ns magic) -> same file with every
                        header field (file header and per-record headers) written big-endian.
                        Packet bytes are copied unchanged. Magic becomes a1 b2 c3 d4 (or a1 b2 3c 4d
                        for nanosecond files) as the first four bytes.
  raw-to-null IN OUT    classic pcap with LINKTYPE_RAW (101) -> LINKTYPE_NULL (0): each packet gets a
                        4-byte address-family header in the file's (little-endian) host byte order:
                        2 (AF_INET) for IPv4, 24 (AF_INET6 as on NetBSD/OpenBSD) for IPv6.
                        Lengths grow by 4; timestamps are unchanged.
  mixres IN OUT IFID RES  pcapng -> pcapng whose interface IFID uses if_tsresol = RES (decimal
                        byte as stored, e.g. 6 = microseconds, 9 = nanoseconds, 0x94 = 2^-20 s): its
                        IDB gets/changes the if_tsresol option and every EPB/ISB timestamp of that
                        interface is rescaled from its old resolution (floor). Other interfaces keep
                        theirs.
  truncate IN OUT       copies IN and cuts it in the middle of a record: keeps the header plus
                        the first 60 % of the records whole, then half of the next record's bytes.
                        Prints the number of whole records kept.
  info IN               prints format, byte order, magic, link type, snaplen, record count.
"""
import os
import struct
import sys

MAGIC_US = 0xA1B2C3D4
MAGIC_NS = 0xA1B23C4D


def read_pcap(path):
    data = open(path, "rb").read()
    m_le = struct.unpack("<I", data[:4])[0]
    if m_le in (MAGIC_US, MAGIC_NS):
        e = "<"
    else:
        m_be = struct.unpack(">I", data[:4])[0]
        if m_be not in (MAGIC_US, MAGIC_NS):
            raise SystemExit(f"{path}: not a classic pcap file")
        e = ">"
    magic, vmaj, vmin, thiszone, sigfigs, snaplen, linktype = struct.unpack(e + "IHHiIII", data[:24])
    recs = []
    off = 24
    while off + 16 <= len(data):
        ts_s, ts_f, incl, orig = struct.unpack(e + "IIII", data[off:off + 16])
        if off + 16 + incl > len(data):
            break
        recs.append((ts_s, ts_f, incl, orig, data[off + 16:off + 16 + incl]))
        off += 16 + incl
    hdr = dict(magic=magic, vmaj=vmaj, vmin=vmin, thiszone=thiszone, sigfigs=sigfigs,
               snaplen=snaplen, linktype=linktype, endian=e, trailing=len(data) - off)
    return hdr, recs


def write_pcap(path, hdr, recs, e):
    with open(path, "wb") as f:
        f.write(struct.pack(e + "IHHiIII", hdr["magic"], hdr["vmaj"], hdr["vmin"], hdr["thiszone"],
                            hdr["sigfigs"], hdr["snaplen"], hdr["linktype"]))
        for ts_s, ts_f, incl, orig, pkt in recs:
            f.write(struct.pack(e + "IIII", ts_s, ts_f, incl, orig))
            f.write(pkt)


def cmd_to_be(src, dst):
    hdr, recs = read_pcap(src)
    write_pcap(dst, hdr, recs, ">")
    print(f"{dst}: {len(recs)} records, big-endian, linktype {hdr['linktype']}")


def cmd_raw_to_null(src, dst):
    hdr, recs = read_pcap(src)
    if hdr["linktype"] != 101:
        raise SystemExit(f"{src}: linktype {hdr['linktype']} is not LINKTYPE_RAW (101)")
    out = []
    e = hdr["endian"]
    for ts_s, ts_f, incl, orig, pkt in recs:
        ver = pkt[0] >> 4 if pkt else 4
        fam = 2 if ver == 4 else 24
        pre = struct.pack(e + "I", fam)
        out.append((ts_s, ts_f, incl + 4, orig + 4, pre + pkt))
    hdr = dict(hdr, linktype=0, snaplen=hdr["snaplen"] + 4)
    write_pcap(dst, hdr, out, e)
    print(f"{dst}: {len(out)} records, LINKTYPE_NULL")


def _opts(body, e):
    """parse pcapng options -> list of (code, value bytes)"""
    out = []
    off = 0
    while off + 4 <= len(body):
        code, ln = struct.unpack(e + "HH", body[off:off + 4])
        if code == 0:
            break
        out.append((code, body[off + 4:off + 4 + ln]))
        off += 4 + ((ln + 3) & ~3)
    return out


def _pack_opts(opts, e):
    b = b""
    for code, val in opts:
        b += struct.pack(e + "HH", code, len(val)) + val + b"\0" * ((4 - len(val) % 4) % 4)
    if opts:
        b += struct.pack(e + "HH", 0, 0)
    return b


def _block(btype, body, e):
    total = 12 + len(body)
    return struct.pack(e + "II", btype, total) + body + struct.pack(e + "I", total)


def _res_units(tsresol):
    """units per second for an if_tsresol byte"""
    if tsresol & 0x80:
        return 2 ** (tsresol & 0x7F)
    return 10 ** tsresol


def cmd_mixres(src, dst, ifid, res):
    data = open(src, "rb").read()
    out = bytearray()
    off = 0
    e = "<"
    idb_index = -1
    scale = {}
    while off < len(data):
        btype = struct.unpack("<I", data[off:off + 4])[0]
        if btype == 0x0A0D0D0A:
            bom = data[off + 8:off + 12]
            e = "<" if bom == b"\x4d\x3c\x2b\x1a" else ">"
            idb_index = -1
        total = struct.unpack(e + "I", data[off + 4:off + 8])[0]
        body = data[off + 8:off + total - 4]
        if btype == 1:  # IDB
            idb_index += 1
            linktype, reserved, snaplen = struct.unpack(e + "HHI", body[:8])
            opts = _opts(body[8:], e)
            old = 6
            for code, val in opts:
                if code == 9:
                    old = val[0]
            if idb_index == ifid:
                opts = [(c, v) for c, v in opts if c != 9] + [(9, bytes([res]))]
                num, den = _res_units(res), _res_units(old)
                scale[idb_index] = (num, den)
                body = struct.pack(e + "HHI", linktype, reserved, snaplen) + _pack_opts(opts, e)
            out += _block(1, body, e)
        elif btype in (6, 5):  # EPB, ISB: interface id then 64-bit timestamp (high, low)
            iid, hi, lo = struct.unpack(e + "III", body[:12])
            if iid in scale:
                num, den = scale[iid]
                ts = ((hi << 32) | lo) * num // den
                rest = body[12:]
                if btype == 5:  # ISB options 2/3 are starttime/endtime in the same units
                    opts = []
                    for code, val in _opts(rest, e):
                        if code in (2, 3) and len(val) == 8:
                            h, l = struct.unpack(e + "II", val)
                            t = ((h << 32) | l) * num // den
                            val = struct.pack(e + "II", t >> 32, t & 0xFFFFFFFF)
                        opts.append((code, val))
                    rest = _pack_opts(opts, e)
                body = struct.pack(e + "III", iid, ts >> 32, ts & 0xFFFFFFFF) + rest
            out += _block(btype, body, e)
        else:
            out += data[off:off + total]
        off += total
    open(dst, "wb").write(out)
    print(f"{dst}: interface {ifid} rewritten to if_tsresol={res:#x}")


def cmd_truncate(src, dst):
    hdr, recs = read_pcap(src)
    keep = max(1, int(len(recs) * 0.6))
    e = hdr["endian"]
    data = open(src, "rb").read()
    off = 24
    for r in recs[:keep]:
        off += 16 + r[2]
    nxt = recs[keep]
    cut = off + (16 + nxt[2]) // 2
    open(dst, "wb").write(data[:cut])
    print(f"{os.path.basename(dst)}: {keep} whole records, then {cut - off} of {16 + nxt[2]} bytes of record {keep + 1}")
    return keep


def cmd_info(src):
    data = open(src, "rb").read(4)
    if struct.unpack("<I", data)[0] == 0x0A0D0D0A:
        print(f"{src}: pcapng")
        return
    hdr, recs = read_pcap(src)
    print(f"{src}: pcap magic={hdr['magic']:#x} endian={'little' if hdr['endian'] == '<' else 'big'} "
          f"linktype={hdr['linktype']} snaplen={hdr['snaplen']} records={len(recs)} "
          f"trailing_bytes={hdr['trailing']}")


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd = argv[1]
    if cmd == "to-be":
        cmd_to_be(argv[2], argv[3])
    elif cmd == "raw-to-null":
        cmd_raw_to_null(argv[2], argv[3])
    elif cmd == "mixres":
        cmd_mixres(argv[2], argv[3], int(argv[4]), int(argv[5], 0))
    elif cmd == "truncate":
        cmd_truncate(argv[2], argv[3])
    elif cmd == "info":
        cmd_info(argv[2])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
