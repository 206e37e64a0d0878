#!/usr/bin/env python3
"""Independent reference decoder for recorded ctnetlink messages.

Reads CASE.nl.bin ([u32 LE length][message] records written by ct_listen.py)
and prints one line per message with space-separated key=value fields:

  i=INDEX len=NLMSG_LEN rec=RECORD_LEN kind=NEW|UPDATE|DESTROY family=2|10
  tree=ATTRTREE id=.. proto=.. osrc=.. odst=.. osport=.. odport=..
  rsrc=.. rdst=.. rsport=.. rdport=.. status=.. timeout=.. mark=.. zone=..
  tcpstate=.. cto=PKTS/BYTES ctr=PKTS/BYTES tstart=.. tstop=.. tevent=..

ATTRTREE lists every attribute in wire order as TYPE:PAYLOADLEN for leaves
and TYPE{...} for nests, comma separated (NLA_F_NESTED decides nesting; the
kernel sets it via nla_nest_start). Values are decoded from the bytes here,
with the layouts of include/uapi/linux/netfilter/nfnetlink_conntrack.h, so
the Java tests compare against something that is not their own code.
Fields absent from a message are omitted.
"""
import ipaddress, struct, sys

NLA_F_NESTED = 0x8000
NLA_TYPE_MASK = 0x3fff


def attrs(buf, off, end):
    while off + 4 <= end:
        ln, ty = struct.unpack_from('<HH', buf, off)
        if ln < 4 or off + ln > end:
            raise ValueError('bad nla at %d' % off)
        yield ty, buf[off + 4:off + ln], off
        off += (ln + 3) & ~3


def tree(buf, off, end):
    parts = []
    for ty, payload, aoff in attrs(buf, off, end):
        t = ty & NLA_TYPE_MASK
        if ty & NLA_F_NESTED:
            parts.append('%d{%s}' % (t, tree(buf, aoff + 4, aoff + 4 + len(payload))))
        else:
            parts.append('%d:%d' % (t, len(payload)))
    return ','.join(parts)


def sub(payload):
    return {ty & NLA_TYPE_MASK: p for ty, p, _ in attrs(payload, 0, len(payload))}


def tuple_fields(payload, prefix, out):
    t = sub(payload)
    ip = sub(t.get(1, b''))
    for k, name in ((1, 'src'), (2, 'dst')):
        if k in ip:
            out[prefix + name] = str(ipaddress.IPv4Address(ip[k]))
    for k, name in ((3, 'src'), (4, 'dst')):
        if k in ip:
            out[prefix + name] = str(ipaddress.IPv6Address(ip[k]))
    pr = sub(t.get(2, b''))
    if 1 in pr:
        out['proto'] = pr[1][0]
    if 2 in pr:
        out[prefix + 'sport'] = struct.unpack('>H', pr[2])[0]
    if 3 in pr:
        out[prefix + 'dport'] = struct.unpack('>H', pr[3])[0]
    for k, name in ((4, 'icmpid'), (7, 'icmpid')):
        if k in pr:
            out[prefix + name] = struct.unpack('>H', pr[k])[0]
    for k, name in ((5, 'icmptype'), (8, 'icmptype')):
        if k in pr:
            out[prefix + name] = pr[k][0]
    if 3 in t:
        out[prefix + 'zone'] = struct.unpack('>H', t[3])[0]


def decode(msg, i, rec_len):
    nlen, ntype, nflags, seq, pid = struct.unpack_from('<IHHII', msg, 0)
    family = msg[16]
    kind = {0: 'NEW', 2: 'DESTROY'}[ntype & 0xff]
    if kind == 'NEW' and not (nflags & 0x400):  # NLM_F_CREATE|NLM_F_EXCL only on NEW
        kind = 'UPDATE'
    out = {'i': i, 'len': nlen, 'rec': rec_len, 'kind': kind, 'family': family,
           'flags': nflags, 'tree': tree(msg, 20, nlen)}
    top = sub(msg[20:nlen])
    tuple_fields(top[1], 'o', out)
    tuple_fields(top[2], 'r', out)
    if 12 in top:
        out['id'] = struct.unpack('>I', top[12])[0]
    if 3 in top:
        out['status'] = struct.unpack('>I', top[3])[0]
    if 7 in top:
        out['timeout'] = struct.unpack('>I', top[7])[0]
    if 8 in top:
        out['mark'] = struct.unpack('>I', top[8])[0]
    if 18 in top:
        out['zone'] = struct.unpack('>H', top[18])[0]
    if 4 in top:
        pi = sub(top[4])
        if 1 in pi:
            tcp = sub(pi[1])
            if 1 in tcp:
                out['tcpstate'] = tcp[1][0]
    for k, name in ((9, 'cto'), (10, 'ctr')):
        if k in top:
            c = sub(top[k])
            out[name] = '%d/%d' % (struct.unpack('>Q', c[1])[0], struct.unpack('>Q', c[2])[0])
    if 20 in top:
        ts = sub(top[20])
        if 1 in ts:
            out['tstart'] = struct.unpack('>Q', ts[1])[0]
        if 2 in ts:
            out['tstop'] = struct.unpack('>Q', ts[2])[0]
    if 27 in top:
        out['tevent'] = struct.unpack('>Q', top[27])[0]
    return ' '.join('%s=%s' % kv for kv in out.items())


def main(path):
    data = open(path, 'rb').read()
    off, i = 0, 0
    while off + 4 <= len(data):
        (n,) = struct.unpack_from('<I', data, off)
        msg = data[off + 4:off + 4 + n]
        print(decode(msg, i, n))
        off += 4 + n
        i += 1


if __name__ == '__main__':
    main(sys.argv[1])
