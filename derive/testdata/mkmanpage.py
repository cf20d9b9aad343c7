#!/usr/bin/python3
"""Write the archive testdata/manpage3 with the real PCP import library.

It holds the metrics of the examples in pmRegisterDerived(3), with the
types the man page's worked example gives them, so that the real pminfo
can derive their metadata:

    cd testdata && /usr/bin/python3 mkmanpage.py
"""
from pcp import pmapi, pmi
import cpmapi as c_api

log = pmi.pmiLogImport("manpage3")
log.pmiSetHostname("manpage")
log.pmiSetTimezone("UTC")

def units(ds, dt, dc, ss, st, sc):
    return log.pmiUnits(ds, dt, dc, ss, st, sc)

NET = log.pmiInDom(60, 3)
DISK = log.pmiInDom(60, 1)
metrics = [
    ("network.interface.speed", (60, 3, 22), c_api.PM_TYPE_FLOAT, NET, c_api.PM_SEM_INSTANT,
     units(1, -1, 0, c_api.PM_SPACE_MBYTE, c_api.PM_TIME_SEC, 0)),
    ("network.interface.in.bytes", (60, 3, 0), c_api.PM_TYPE_U64, NET, c_api.PM_SEM_COUNTER,
     units(1, 0, 0, c_api.PM_SPACE_BYTE, 0, 0)),
    ("network.interface.total.bytes", (60, 3, 16), c_api.PM_TYPE_U64, NET, c_api.PM_SEM_COUNTER,
     units(1, 0, 0, c_api.PM_SPACE_BYTE, 0, 0)),
    ("sample.milliseconds", (29, 0, 3), c_api.PM_TYPE_DOUBLE, c_api.PM_INDOM_NULL, c_api.PM_SEM_COUNTER,
     units(0, 1, 0, 0, c_api.PM_TIME_MSEC, 0)),
    ("disk.dev.total", (60, 0, 28), c_api.PM_TYPE_U64, DISK, c_api.PM_SEM_COUNTER,
     units(0, 0, 1, 0, 0, c_api.PM_COUNT_ONE)),
    ("disk.dev.total_bytes", (60, 0, 40), c_api.PM_TYPE_U64, DISK, c_api.PM_SEM_COUNTER,
     units(1, 0, 0, c_api.PM_SPACE_KBYTE, 0, 0)),
    ("mem.util.free", (58, 0, 2), c_api.PM_TYPE_U64, c_api.PM_INDOM_NULL, c_api.PM_SEM_INSTANT,
     units(1, 0, 0, c_api.PM_SPACE_KBYTE, 0, 0)),
]
for name, (d, c, i), typ, indom, sem, u in metrics:
    log.pmiAddMetric(name, log.pmiID(d, c, i), typ, indom, sem, u)
for inst, iname in [(0, "eth0"), (1, "lo")]:
    log.pmiAddInstance(NET, iname, inst)
log.pmiAddInstance(DISK, "sda", 0)

for t in (0, 10):
    for iname in ("eth0", "lo"):
        log.pmiPutValue("network.interface.speed", iname, "1000")
        log.pmiPutValue("network.interface.in.bytes", iname, str(1000000 + 4096 * t))
        log.pmiPutValue("network.interface.total.bytes", iname, str(2000000 + 8192 * t))
    log.pmiPutValue("sample.milliseconds", None, str(1000.0 * t))
    log.pmiPutValue("disk.dev.total", "sda", str(100 + 7 * t))
    log.pmiPutValue("disk.dev.total_bytes", "sda", str(5000 + 64 * t))
    log.pmiPutValue("mem.util.free", None, str(8000000))
    log.pmiWrite(1700000000 + t, 0)
log.pmiEnd()
