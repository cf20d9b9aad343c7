#!/usr/bin/python3
# replay.py: drive the real libpcp (PCP 6.0.3, through its python bindings)
# in archive replay modes and print what it returns in a canonical form that
# pcpkit's replay tests reproduce with the Go replay package and compare.
#
# Usage:
#   TZ=UTC PCP_DERIVED_CONFIG= LC_ALL=C /usr/bin/python3 replay.py ARCHIVE METRICS < OPS
#
# ARCHIVE is anything pmNewContext(PM_CONTEXT_ARCHIVE) takes (a base name, a
# file of the archive, a directory, a comma-separated list). METRICS is a
# comma-separated list of metric names, or "pmid:D.C.I" for a PMID given by
# number (one that need not be in the archive); "-" is none.
#
# OPS, one per line on standard input (blank lines and "#" lines ignored):
#   mode forw|back|interp SEC NSEC DSEC DNSEC
#         pmSetModeHighRes(mode, {SEC,NSEC}, {DSEC,DNSEC}); the delta is
#         given as a signed total that this script splits: DSEC and DNSEC
#         carry the same sign.
#   modems forw|back|interp SEC USEC DELTA_MS
#         pmSetMode(mode | PM_XTB_SET(PM_TIME_MSEC), {SEC,USEC}, DELTA_MS),
#         as pmval does.
#   fetch N     N calls of pmFetchHighRes(METRICS)
#   archive N   N calls of pmFetchHighResArchive()
#   label       the label start (pmGetHighResArchiveLabel)
#   end         pmGetHighResArchiveEnd
#   profile D.C.I INST,...
#               pmDelProfile(indom of PMID D.C.I, all) then
#               pmAddProfile(indom, INST,...): only those instances of
#               that instance domain are returned ("-" for none)
#
# PCP_COUNTER_WRAP in the environment turns libpcp's counter wrap
# handling on, as for any libpcp client.
#
# Output, one line per item:
#   mode <rc or error code>
#   F <sec>.<nsec> <numpmid>            a result from fetch (A for archive)
#    <pmid> <numval>                    each value set in result order
#     <inst> <value>                    each value in result order
#   F err <code>                        a failed call
#   label <sec>.<nsec>, end <sec>.<nsec>
#
# Values are printed by the metric's type (from pmLookupDesc; type of the
# value block when the PMID has no descriptor): 32 and U32 insitu as
# integers, 64 and U64 blocks as integers, FLOAT and DOUBLE as %.17g of
# the value as a double, STRING and AGGREGATE as "b<vtype>:" and the hex of
# the payload, event arrays as "e<vtype>:<payload length>", a block of a
# numeric type with the wrong size as "?<vtype>:" and hex.
#
# libpcp 6.0.3's interpolation uses value blocks after freeing them, and
# with PCP_COUNTER_WRAP reads just past a block: it may then return
# garbage or abort. The Go tests preload nofree.c (beside this script),
# which stops both. Should it crash all the same, each result is written
# (and flushed) in one piece, so what was printed before the crash is
# whole; the exit status then tells of the crash.

import ctypes
import os
import struct
import sys

from pcp import pmapi
import cpmapi as c_api


def die(msg):
    sys.stderr.write("replay.py: %s\n" % msg)
    sys.exit(2)


def pmid_from(s):
    d, c, i = (int(x) for x in s.split("."))
    return (d & 0x1ff) << 22 | (c & 0xfff) << 10 | (i & 0x3ff)


def pmid_str(p):
    return "%d.%d.%d" % (p >> 22 & 0x1ff, p >> 10 & 0xfff, p & 0x3ff)


def block_bytes(vp):
    """payload of a pmValueBlock (header excluded) and its vtype"""
    blk = vp.contents
    vlen = blk.vlen
    vtype = blk.vtype
    addr = ctypes.addressof(blk) + 4
    n = vlen - 4
    if n < 0:
        n = 0
    return vtype, ctypes.string_at(addr, n)


def fmt_value(mtype, valfmt, val):
    if valfmt == c_api.PM_VAL_INSITU:
        lval = val.value.lval
        if mtype == c_api.PM_TYPE_U32:
            return "%d" % (lval & 0xffffffff)
        if mtype == c_api.PM_TYPE_FLOAT:
            f = struct.unpack("<f", struct.pack("<i", lval))[0]
            return "%.17g" % f
        return "%d" % lval
    vtype, b = block_bytes(val.value.pval)
    t = mtype if mtype is not None else vtype
    if t in (c_api.PM_TYPE_64, c_api.PM_TYPE_U64, c_api.PM_TYPE_DOUBLE):
        if len(b) != 8:
            return "?%d:%s" % (vtype, b.hex())
        if t == c_api.PM_TYPE_64:
            return "%d" % struct.unpack("<q", b)[0]
        if t == c_api.PM_TYPE_U64:
            return "%d" % struct.unpack("<Q", b)[0]
        return "%.17g" % struct.unpack("<d", b)[0]
    if t == c_api.PM_TYPE_FLOAT:
        if len(b) != 4:
            return "?%d:%s" % (vtype, b.hex())
        return "%.17g" % struct.unpack("<f", b)[0]
    if t in (c_api.PM_TYPE_32, c_api.PM_TYPE_U32):
        return "?%d:%s" % (vtype, b.hex())
    if t in (c_api.PM_TYPE_EVENT, c_api.PM_TYPE_HIGHRES_EVENT):
        return "e%d:%d" % (vtype, len(b))
    return "b%d:%s" % (vtype, b.hex())


def main():
    if len(sys.argv) != 3:
        die("usage: replay.py ARCHIVE METRICS < OPS")
    archive, metrics = sys.argv[1], sys.argv[2]
    try:
        ctx = pmapi.pmContext(c_api.PM_CONTEXT_ARCHIVE, archive)
    except pmapi.pmErr as e:
        print("open err %d" % e.code)
        return
    pmids = []
    if metrics != "-":
        for m in metrics.split(","):
            if m.startswith("pmid:"):
                pmids.append(pmid_from(m[5:]))
            else:
                try:
                    pmids.append(ctx.pmLookupName(m)[0])
                except pmapi.pmErr as e:
                    die("%s: %s" % (m, e))
    types = {}

    def mtype(p):
        if p not in types:
            try:
                d = ctx.pmLookupDescs([p])
                types[p] = d[0].contents.type
            except pmapi.pmErr:
                types[p] = None
        return types[p]

    for p in pmids:
        mtype(p)
    plist = (pmapi.pmID * len(pmids))(*pmids)
    modes = {"forw": c_api.PM_MODE_FORW, "back": c_api.PM_MODE_BACK,
             "interp": c_api.PM_MODE_INTERP}
    out = sys.stdout
    out.reconfigure(line_buffering=True)

    def show(tag, rp):
        r = rp.contents
        lines = ["%s %d.%09d %d" % (tag, r.timestamp.tv_sec, r.timestamp.tv_nsec, r.numpmid)]
        for i in range(r.numpmid):
            vs = r.get_vset(i).contents
            lines.append(" %s %d" % (pmid_str(vs.pmid), vs.numval))
            if vs.numval <= 0:
                continue
            t = mtype(vs.pmid)
            vl = ctypes.cast(ctypes.addressof(vs) + pmapi.pmValueSet.vlist.offset,
                             ctypes.POINTER(pmapi.pmValue))
            for j in range(vs.numval):
                v = vl[j]
                lines.append("  %d %s" % (v.inst, fmt_value(t, vs.valfmt, v)))
        # one write per result, so that a crash in libpcp leaves whole
        # results behind
        out.write("\n".join(lines) + "\n")
        out.flush()
        ctx.pmFreeHighResResult(rp)

    for line in sys.stdin:
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        op = f[0]
        if op == "mode":
            mode = modes[f[1]]
            origin = pmapi.timespec(int(f[2]), int(f[3]))
            delta = pmapi.timespec(int(f[4]), int(f[5]))
            try:
                out.write("mode %d\n" % ctx.pmSetModeHighRes(mode, origin, delta))
            except pmapi.pmErr as e:
                out.write("mode %d\n" % e.code)
        elif op == "modems":
            mode = modes[f[1]] | c_api.PM_XTB_SET(c_api.PM_TIME_MSEC)
            origin = pmapi.timeval(int(f[2]), int(f[3]))
            try:
                out.write("mode %d\n" % ctx.pmSetMode(mode, origin, int(f[4])))
            except pmapi.pmErr as e:
                out.write("mode %d\n" % e.code)
        elif op in ("fetch", "archive"):
            tag = "F" if op == "fetch" else "A"
            for _ in range(int(f[1])):
                try:
                    if op == "fetch":
                        rp = ctx.pmFetchHighRes(plist)
                    else:
                        rp = ctx.pmFetchHighResArchive()
                except pmapi.pmErr as e:
                    out.write("%s err %d\n" % (tag, e.code))
                    continue
                show(tag, rp)
        elif op == "profile":
            p = pmid_from(f[1])
            desc = ctx.pmLookupDescs([p])[0]
            ctx.pmDelProfile(desc, None)
            insts = [] if f[2] == "-" else [int(x) for x in f[2].split(",")]
            if insts:
                ctx.pmAddProfile(desc, insts)
            out.write("profile\n")
        elif op == "label":
            lab = ctx.pmGetHighResArchiveLabel()
            out.write("label %d.%09d\n" % (lab.start.tv_sec, lab.start.tv_nsec))
        elif op == "end":
            try:
                e = ctx.pmGetHighResArchiveEnd()
                out.write("end %d.%09d\n" % (e.tv_sec, e.tv_nsec))
            except pmapi.pmErr as e:
                out.write("end err %d\n" % e.code)
        else:
            die("unknown op %r" % op)
        out.flush()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    # Leave without destroying the context: libpcp 6.0.3 can corrupt its
    # heap in interpolation (see notes in the Go tests) and then crash when
    # the context is freed, after every answer has been printed.
    os._exit(0)
