#!/usr/bin/python3
"""bench-pair.py: short commands (a few milliseconds: start-up dominates)
against each other in alternating runs, on a machine shared with other work
(docs/benchmarks.md, "pminfo and pmprobe", has the results).

Usage: scripts/bench-pair.py [-r ROUNDS] [--perf] 'CMD1' 'CMD2' ...

In each round every command runs once, stdout and stderr to /dev/null, the
order rotated from round to round (and reversed every other pass), so that
all see the same machine. Without --perf a run is posix_spawn(3) and
wait4(2): wall time from the spawn to the reaping, CPU time (user +
system) from wait4's rusage. With --perf each run is under `perf stat -e
task-clock,page-faults` instead: the CPU time of the process and its
threads, counted by the kernel from the exec on, and its page faults
(what shared machines measure best; the wall time is then perf's too and
is not reported).

It prints the load average, then for each command the medians, and the
median of the per-round ratios to the first command (below 1: faster).
The commands run with TZ=UTC LC_ALL=C PCP_DERIVED_CONFIG= (empty), as the
real PCP tools are compared.
"""

import argparse
import os
import shlex
import statistics
import subprocess
import time


def spawn(argv, env, devnull):
    """Runs argv; returns (wall ms, CPU ms)."""
    t0 = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, env, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, _, ru = os.wait4(pid, 0)
    return (time.perf_counter() - t0) * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3


def perf(argv, env):
    """Runs argv under perf stat; returns (task-clock ms, page faults)."""
    p = subprocess.run(["perf", "stat", "-x,", "-e", "task-clock,page-faults", "-o", "/dev/stderr", "--"] + argv,
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    v = {}
    for line in p.stderr.splitlines():
        f = line.split(",")
        if len(f) > 3 and f[0][:1].isdigit():
            v[f[2]] = float(f[0])
    return v["task-clock"], v["page-faults"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-r", "--rounds", type=int, default=100)
    ap.add_argument("--perf", action="store_true", help="CPU time and page faults from perf stat")
    ap.add_argument("commands", nargs="+")
    args = ap.parse_args()
    cmds = [shlex.split(c) for c in args.commands]
    env = dict(os.environ, TZ="UTC", LC_ALL="C", PCP_DERIVED_CONFIG="")
    devnull = os.open("/dev/null", os.O_WRONLY)
    res = [[] for _ in cmds]
    n = len(cmds)
    for r in range(args.rounds):
        order = list(range(n))
        order = order[r % n:] + order[:r % n]
        if (r // n) % 2:
            order.reverse()
        for i in order:
            res[i].append(perf(cmds[i], env) if args.perf else spawn(cmds[i], env, devnull))
    print("load average", " ".join(open("/proc/loadavg").read().split()[:3]), f"({args.rounds} rounds)")
    names = ("cpu (task-clock) ms", "page faults") if args.perf else ("wall ms", "cpu ms")
    for i, c in enumerate(args.commands):
        a = statistics.median(x[0] for x in res[i])
        b = statistics.median(x[1] for x in res[i])
        ra = statistics.median(x[0] / y[0] for x, y in zip(res[i], res[0]))
        rb = statistics.median(x[1] / max(y[1], 1e-6) for x, y in zip(res[i], res[0]))
        print(f"{names[0]} {a:6.3f} (ratio {ra:4.2f})  {names[1]} {b:7.3f} (ratio {rb:4.2f})  {c}")


if __name__ == "__main__":
    main()
