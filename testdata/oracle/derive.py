#!/usr/bin/python3
# derive.py: drive the real libpcp (PCP 6.0.3, through its python bindings)
# to evaluate derived metrics over an archive in the replay modes, and print
# what it returns in a canonical form that pcpkit's derived-metric tests
# (replay/derived_oracle_test.go) reproduce with the Go API and compare line
# by line.
#
# Usage:
#   TZ=UTC PCP_DERIVED_CONFIG= LC_ALL=C /usr/bin/python3 derive.py ARCHIVE CONFIG NAMES < OPS
#
# ARCHIVE is what pmNewContext(PM_CONTEXT_ARCHIVE) takes. CONFIG is a
# derived metric configuration file, loaded with pmLoadDerivedConfig before
# the context is created ("-" for none). NAMES is a comma-separated list of
# metric names to fetch (derived or not), all in one pmFetch.
#
# OPS, one per line on standard input (blank lines and "#" lines ignored):
#   mode forw|back|interp SEC NSEC DSEC DNSEC
#         pmSetModeHighRes(mode, {SEC,NSEC}, {DSEC,DNSEC}); DSEC and DNSEC
#         carry the same sign.
#   fetch N     N calls of pmFetchHighRes(NAMES)
#
# Output, one line per item:
#   load <rc>                           pmLoadDerivedConfig's return
#   name <name> <pmid>|err <code>       pmLookupName of each name
#   desc <pmid> <type> <indom> <sem> <units>|err <code>
#   mode <rc or error code>
#   F <sec>.<nsec> <numpmid>            a result from fetch
#    <pmid> <numval> <valfmt>           each value set in result order
#     <inst> <value>                    each value in result order
#   F err <code>                        a failed call
#
# Values are printed by the metric's type: 32, U32, 64 and U64 as decimal
# integers, FLOAT and DOUBLE as %.17g of the value (as a double) followed
# by "/" and the hex of its bits, STRING as "s:" and the hex of the bytes,
# anything else as "b<vtype>:" and the hex of the payload.

import ctypes
import os
import struct
import sys

from pcp import pmapi
import cpmapi as c_api


def pmid_str(p):
    return "%d.%d.%d" % (p >> 22 & 0x1ff, p >> 10 & 0xfff, p & 0x3ff)


def block_bytes(vp):
    blk = vp.contents
    n = blk.vlen - 4
    if n < 0:
        n = 0
    return blk.vtype, ctypes.string_at(ctypes.addressof(blk) + 4, n)


def fmt_value(mtype, valfmt, val):
    if valfmt == c_api.PM_VAL_INSITU:
        lval = val.value.lval
        if mtype == c_api.PM_TYPE_U32:
            return "%d" % (lval & 0xffffffff)
        if mtype == c_api.PM_TYPE_FLOAT:
            b = struct.pack("<i", lval)
            f = struct.unpack("<f", b)[0]
            return "%.17g/%s" % (f, b[::-1].hex())
        return "%d" % lval
    vtype, b = block_bytes(val.value.pval)
    t = mtype
    if t in (c_api.PM_TYPE_64, c_api.PM_TYPE_U64, c_api.PM_TYPE_DOUBLE):
        if len(b) != 8:
            return "?%d:%s" % (vtype, b.hex())
        if t == c_api.PM_TYPE_64:
            return "%d" % struct.unpack("<q", b)[0]
        if t == c_api.PM_TYPE_U64:
            return "%d" % struct.unpack("<Q", b)[0]
        return "%.17g/%s" % (struct.unpack("<d", b)[0], b[::-1].hex())
    if t == c_api.PM_TYPE_FLOAT:
        if len(b) != 4:
            return "?%d:%s" % (vtype, b.hex())
        return "%.17g/%s" % (struct.unpack("<f", b)[0], b[::-1].hex())
    if t == c_api.PM_TYPE_STRING:
        return "s:%s" % b.hex()
    return "b%d:%s" % (vtype, b.hex())


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: derive.py ARCHIVE CONFIG NAMES < OPS\n")
        sys.exit(2)
    archive, config, names = sys.argv[1], sys.argv[2], sys.argv[3]
    out = sys.stdout
    if config != "-":
        out.write("load %d\n" % pmapi.LIBPCP.pmLoadDerivedConfig(config.encode()))
    try:
        ctx = pmapi.pmContext(c_api.PM_CONTEXT_ARCHIVE, archive)
    except pmapi.pmErr as e:
        out.write("open err %d\n" % e.code)
        return
    pmids = []
    types = {}
    for n in names.split(","):
        try:
            p = ctx.pmLookupName(n)[0]
        except pmapi.pmErr as e:
            out.write("name %s err %d\n" % (n, e.code))
            continue
        out.write("name %s %s\n" % (n, pmid_str(p)))
        pmids.append(p)
        try:
            d = ctx.pmLookupDescs([p])[0].contents
            types[p] = d.type
            u = d.units
            out.write("desc %s %d %d %d %d,%d,%d,%d,%d,%d\n" % (
                pmid_str(p), d.type, d.indom & 0xffffffff, d.sem,
                u.dimSpace, u.dimTime, u.dimCount, u.scaleSpace, u.scaleTime, u.scaleCount))
        except pmapi.pmErr as e:
            out.write("desc %s err %d\n" % (pmid_str(p), e.code))
    plist = (pmapi.pmID * len(pmids))(*pmids)
    modes = {"forw": c_api.PM_MODE_FORW, "back": c_api.PM_MODE_BACK,
             "interp": c_api.PM_MODE_INTERP}

    def show(rp):
        r = rp.contents
        lines = ["F %d.%09d %d" % (r.timestamp.tv_sec, r.timestamp.tv_nsec, r.numpmid)]
        for i in range(r.numpmid):
            vs = r.get_vset(i).contents
            lines.append(" %s %d %d" % (pmid_str(vs.pmid), vs.numval,
                                         vs.valfmt if vs.numval > 0 else 0))
            if vs.numval <= 0:
                continue
            t = types.get(vs.pmid)
            vl = ctypes.cast(ctypes.addressof(vs) + pmapi.pmValueSet.vlist.offset,
                             ctypes.POINTER(pmapi.pmValue))
            for j in range(vs.numval):
                v = vl[j]
                lines.append("  %d %s" % (v.inst, fmt_value(t, vs.valfmt, v)))
        out.write("\n".join(lines) + "\n")
        out.flush()

    for line in sys.stdin:
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "mode":
            origin = pmapi.timespec(int(f[2]), int(f[3]))
            delta = pmapi.timespec(int(f[4]), int(f[5]))
            try:
                out.write("mode %d\n" % ctx.pmSetModeHighRes(modes[f[1]], origin, delta))
            except pmapi.pmErr as e:
                out.write("mode %d\n" % e.code)
        elif f[0] == "fetch":
            for _ in range(int(f[1])):
                try:
                    rp = ctx.pmFetchHighRes(plist)
                except pmapi.pmErr as e:
                    out.write("F err %d\n" % e.code)
                    continue
                show(rp)
        else:
            sys.stderr.write("derive.py: unknown op %r\n" % f[0])
            sys.exit(2)
        out.flush()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    # libpcp 6.0.3 can corrupt its heap in interpolation; leave without
    # destroying the context (see replay.py)
    os._exit(0)
