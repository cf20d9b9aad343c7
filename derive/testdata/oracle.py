#!/usr/bin/python3
"""Ask the real libpcp about derived metric registration.

Reads JSON lines from stdin, one request each, and answers each with one
JSON line, in one process (so libpcp's global state, such as registered
names and the lexer's in_matchinst flag, carries over as it does in libpcp):

  {"op": "reg",  "name": N, "expr": E}  -> pmRegisterDerived(N, E):
        {"ok": true} or {"ok": false, "pos": offset, "msg": pmDerivedErrStr() or null}
  {"op": "regm", "name": N, "expr": E}  -> pmRegisterDerivedMetric(N, E, &errmsg):
        {"ok": true} or {"ok": false, "errmsg": errmsg}
  {"op": "ctx", "name": "", "expr": ARCHIVE} -> pmNewContext(PM_CONTEXT_ARCHIVE, ARCHIVE):
        {"ok": true} or {"ok": false, "pos": error code}
  {"op": "add", "name": N, "expr": E}  -> pmAddDerivedMetric(N, E, &errmsg) in that context:
        {"ok": true} or {"ok": false, "pos": return code, "errmsg": errmsg}
  {"op": "regexec", "name": SUBJECT, "expr": RE} -> glibc regcomp(RE, REG_EXTENDED|REG_NOSUB)
        and regexec(SUBJECT) as libpcp's matchinst() uses them: {"ok": matched,
        "pos": regcomp's return code, "msg": regerror() text or null}
  {"op": "load", "name": "", "expr": PATH} -> pmLoadDerivedConfig(PATH): {"ok": sts >= 0,
        "pos": sts}; its messages go to stderr
  {"op": "pmid", "name": N, "expr": ""} -> pmLookupName(N): {"ok": true, "pos": PMID as
        an unsigned 32-bit number} or {"ok": false, "pos": error code}
  {"op": "desc", "name": N, "expr": ""} -> pmLookupName(N) and pmLookupDesc in the
        current context: {"ok": true, "msg": "TYPE INDOM SEM SPACE,TIME,COUNT,SCALESPACE,
        SCALETIME,SCALECOUNT" (decimal numbers, the indom unsigned)} or {"ok": false, "pos":
        error code}

Every answer also has "stderr": what libpcp wrote to the standard error while
it was answered (semantic errors of derived metrics are printed there).

Strings are passed as latin-1 so that any byte can be sent. Only libpcp is
used (through ctypes), not the pcp python module.
"""
import ctypes
import json
import sys

lib = ctypes.CDLL("libpcp.so.3")
lib.pmRegisterDerived.restype = ctypes.c_void_p
lib.pmRegisterDerived.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
lib.pmRegisterDerivedMetric.restype = ctypes.c_int
lib.pmRegisterDerivedMetric.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
lib.pmDerivedErrStr.restype = ctypes.c_char_p
lib.pmNewContext.argtypes = [ctypes.c_int, ctypes.c_char_p]
lib.pmAddDerivedMetric.restype = ctypes.c_int
lib.pmAddDerivedMetric.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
lib.pmLoadDerivedConfig.restype = ctypes.c_int
lib.pmLoadDerivedConfig.argtypes = [ctypes.c_char_p]
lib.pmLookupName.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_uint)]
PM_CONTEXT_ARCHIVE = 2


class pmUnits(ctypes.LittleEndianStructure):
    # pmUnits on a little-endian host: the bit-fields from the low end
    _fields_ = [("pad", ctypes.c_uint, 8), ("scaleCount", ctypes.c_int, 4),
                ("scaleTime", ctypes.c_uint, 4), ("scaleSpace", ctypes.c_uint, 4),
                ("dimCount", ctypes.c_int, 4), ("dimTime", ctypes.c_int, 4),
                ("dimSpace", ctypes.c_int, 4)]


class pmDesc(ctypes.Structure):
    _fields_ = [("pmid", ctypes.c_uint), ("type", ctypes.c_int), ("indom", ctypes.c_uint),
                ("sem", ctypes.c_int), ("units", pmUnits)]


lib.pmLookupDesc.argtypes = [ctypes.c_uint, ctypes.POINTER(pmDesc)]

libc = ctypes.CDLL("libc.so.6")
libc.regcomp.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
libc.regexec.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_int]
libc.regerror.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
libc.regfree.argtypes = [ctypes.c_void_p]
REG_EXTENDED, REG_NOSUB = 1, 8

import os
import tempfile

errfile = tempfile.TemporaryFile()
stderr_fd = os.dup(2)

for line in sys.stdin:
    req = json.loads(line)
    sys.stderr.flush()
    errfile.seek(0)
    errfile.truncate()
    os.dup2(errfile.fileno(), 2)
    name = req["name"].encode("latin1")
    expr = req["expr"].encode("latin1")
    if req["op"] == "reg":
        buf = ctypes.create_string_buffer(expr)
        p = lib.pmRegisterDerived(name, buf)
        if p is None:
            out = {"ok": True}
        else:
            msg = lib.pmDerivedErrStr()
            out = {"ok": False, "pos": p - ctypes.addressof(buf),
                   "msg": None if msg is None else msg.decode("latin1")}
    elif req["op"] == "regm":
        em = ctypes.c_char_p()
        r = lib.pmRegisterDerivedMetric(name, expr, ctypes.byref(em))
        out = {"ok": True} if r == 0 else {"ok": False, "errmsg": em.value.decode("latin1")}
    elif req["op"] == "ctx":
        r = lib.pmNewContext(PM_CONTEXT_ARCHIVE, expr)
        out = {"ok": True} if r >= 0 else {"ok": False, "pos": r}
    elif req["op"] == "add":
        em = ctypes.c_char_p()
        r = lib.pmAddDerivedMetric(name, expr, ctypes.byref(em))
        out = {"ok": True} if r == 0 else {"ok": False, "pos": r, "errmsg": em.value.decode("latin1")}
    elif req["op"] == "regexec":
        re = ctypes.create_string_buffer(256)  # larger than regex_t
        rc = libc.regcomp(re, expr, REG_EXTENDED | REG_NOSUB)
        if rc != 0:
            buf = ctypes.create_string_buffer(256)
            libc.regerror(rc, re, buf, 256)
            out = {"ok": False, "pos": rc, "msg": buf.value.decode("latin1")}
        else:
            out = {"ok": libc.regexec(re, name, 0, None, 0) == 0, "pos": 0, "msg": None}
            libc.regfree(re)
    elif req["op"] == "load":
        r = lib.pmLoadDerivedConfig(expr)
        sys.stderr.flush()
        out = {"ok": r >= 0, "pos": r}
    elif req["op"] == "pmid":
        names = (ctypes.c_char_p * 1)(name)
        pmid = ctypes.c_uint()
        r = lib.pmLookupName(1, names, ctypes.byref(pmid))
        out = {"ok": True, "pos": pmid.value} if r == 1 else {"ok": False, "pos": r}
    elif req["op"] == "desc":
        names = (ctypes.c_char_p * 1)(name)
        pmid = ctypes.c_uint()
        r = lib.pmLookupName(1, names, ctypes.byref(pmid))
        if r != 1:
            out = {"ok": False, "pos": r}
        else:
            d = pmDesc()
            r = lib.pmLookupDesc(pmid.value, ctypes.byref(d))
            if r < 0:
                out = {"ok": False, "pos": r}
            else:
                u = d.units
                out = {"ok": True, "msg": "%d %d %d %d,%d,%d,%d,%d,%d" % (
                    d.type, d.indom, d.sem, u.dimSpace, u.dimTime, u.dimCount,
                    u.scaleSpace, u.scaleTime, u.scaleCount)}
    else:
        raise SystemExit("oracle: unknown op " + req["op"])
    sys.stderr.flush()
    os.dup2(stderr_fd, 2)
    errfile.seek(0)
    out["stderr"] = errfile.read().decode("latin1")
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
