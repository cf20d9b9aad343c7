#!/usr/bin/python3
"""bench-pmlogger-steady.py: steady-state CPU per sample of pmlogger builds.

scripts/bench-pmlogger.sh times whole recordings (wait4) and subtracts a
separately timed start-up; its runs vary with the machine's load. This
script measures only the middle of each recording: it starts each tool
on the benchmark's configuration (the one bench-pmlogger.sh writes),
reads the CPU time of all its threads from /proc/PID/task/*/schedstat
(nanoseconds) after WARM seconds and again after WARM+WINDOW seconds,
stops it (SIGTERM), and divides by the number of records pmcd stamped
inside that window (pmdumplog -z). The tools run one after the other,
RUNS rounds, and the median, least and most of each are printed, with
the median's ratio to the first tool's.

Usage:
  scripts/bench-pmlogger-steady.py [-i INTERVAL] [-r RUNS] [-w WARM] [-W WINDOW]
      [-V VERSION] NAME=PATH ...

  e.g. scripts/bench-pmlogger-steady.py -i "10 msec" -r 5 \\
           real=/usr/bin/pmlogger pcpkit=bin/pmlogger

A PATH may be a script that execs the tool (the process keeps its pid).
Needs a local pmcd and the real pmdumplog; run with /usr/bin/python3.
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

SPECS = """kernel.all.load kernel.all.cpu kernel.percpu.cpu.user kernel.percpu.cpu.sys
kernel.percpu.cpu.idle kernel.all.nprocs kernel.all.pswitch kernel.all.intr mem.util
mem.physmem swap disk.dev.read disk.dev.write disk.dev.read_bytes disk.dev.write_bytes
disk.all network.interface.in.bytes network.interface.out.bytes
network.interface.in.packets network.interface.out.packets filesys.capacity filesys.used
filesys.free hinv.ncpu hinv.ndisk pmcd.pdu_in.total pmcd.pdu_out.total""".split()


def cpu_ns(pid):
    total = 0
    for f in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(f) as fh:
                total += int(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total


def stamps(archive, env):
    """The records' times (seconds of the day, UTC) as pmdumplog -z prints them."""
    out = subprocess.run(["pmdumplog", "-z", archive], capture_output=True, text=True, env=env).stdout
    for line in out.splitlines():
        if len(line) > 15 and line[2] == ":" and line[5] == ":" and " metric" in line:
            hh, mm, ss = line[:15].split(":")
            yield int(hh) * 3600 + int(mm) * 60 + float(ss)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-i", "--interval", default="10 msec")
    ap.add_argument("-r", "--runs", type=int, default=5)
    ap.add_argument("-w", "--warm", type=float, default=2.0)
    ap.add_argument("-W", "--window", type=float, default=6.0)
    ap.add_argument("-V", "--version", default="3")
    ap.add_argument("tools", nargs="+", metavar="NAME=PATH")
    a = ap.parse_args()
    tools = [t.split("=", 1) for t in a.tools]
    d = tempfile.mkdtemp(prefix="pmlogger-steady.")
    conf = os.path.join(d, "bench.config")
    with open(conf, "w") as f:
        f.write("log mandatory on %s {\n    %s\n}\n" % (a.interval, "\n    ".join(SPECS)))
    env = dict(os.environ, TZ="UTC", PCP_DERIVED_CONFIG="", LC_ALL="C")
    res = {name: [] for name, _ in tools}
    for k in range(a.runs):
        for name, path in tools:
            base = os.path.join(d, "%s-%d" % (name, k))
            p = subprocess.Popen([path, "-V", a.version, "-c", conf, "-s", "10000000", "-l", base + ".log", base],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(a.warm)
            c0, t0 = cpu_ns(p.pid), time.time()
            time.sleep(a.window)
            c1, t1 = cpu_ns(p.pid), time.time()
            p.terminate()
            p.wait()
            day0 = t0 - (t0 % 86400)
            n = sum(1 for s in stamps(base, env) if t0 <= day0 + s <= t1)
            if n == 0:
                sys.exit("%s: no record in the window (see %s.log)" % (name, base))
            res[name].append((c1 - c0) / 1e3 / n)
            print("%-8s run %d: %6.1f us/sample over %d samples" % (name, k + 1, res[name][-1], n), flush=True)
    print()
    print("pmlogger steady state: every %s, archive version %s, %d runs, %.0f s window after %.0f s; %s"
          % (a.interval, a.version, a.runs, a.window, a.warm, d))
    print()
    print("| tool | median µs/sample | least | most | median vs %s |" % tools[0][0])
    print("|---|---:|---:|---:|---:|")
    ref = statistics.median(res[tools[0][0]])
    for name, _ in tools:
        v = res[name]
        print("| %s | %.1f | %.1f | %.1f | %.2fx |" % (name, statistics.median(v), min(v), max(v), statistics.median(v) / ref))


if __name__ == "__main__":
    main()
