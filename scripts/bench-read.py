#!/usr/bin/python3
"""bench-read.py: pcpkit's read path against the real PCP 6.0.3 tools on the
benchmark archive, plain and compressed as PCP hosts keep archives, in
paired runs (docs/benchmarks.md, "The read path", has the results).

Usage: scripts/bench-read.py [-r ROUNDS] [-p 1,2] [-v plain,xz,...] [-c NAME,...]

Steps:
  1. CGO_ENABLED=0 go build -trimpath -o bin/ ./cmd/TOOL... (static, as
     `make build` builds them: with cgo the net package links the C
     library, and a pminfo -f run took 1.24 times the CPU)
  2. make BENCH_DIR/b-v3 with ../shared/tools/pcp-bench-gen.py if absent
     (--samples 20000 --metrics 100 --version 3, about 108 MB), then its
     compressed copies, each in a directory of its own (the .index stays
     plain, as pmlogger_daily leaves it):
       xz     xz -0 --block-size=10MiB  on b-v3.0 and b-v3.meta (what
              pmlogger_daily does)
       xz1k   xz -0 --block-size=1KiB   (small blocks)
       xz9    xz -9                      (one block, 64 MiB dictionary)
       gz     gzip -6
       zst    zstd -3 (pcpkit only: PCP 6.0.3 reads no .zst; its row
              compares with the real tool on the xz copy)
  3. for each variant, command and GOMAXPROCS value, ROUNDS rounds (default
     7); in each round the real tool and pcpkit run one after the other,
     the order alternating between rounds, so that both see the same
     machine. Wall time, CPU time (user + system) and peak RSS come from
     wait4(2). stdout of the two must be the same bytes (checked in the
     first round; a difference is reported and makes the script exit 1).
  4. a table: the median wall time of each, the median of the per-round
     ratios pcpkit/real (below 1: pcpkit is faster), the same for CPU
     time, and the peak RSS of each. (The zst rows' outputs are not
     compared: pmval prints the archive's name.)

The commands (ARCH is the variant's archive):
  summary  pmlogsummary -a ARCH
  dumpall  pmdumplog -a ARCH
  pmval    pmval -t 10sec -a ARCH disk.dev.read_bytes
  window   pmval -t 10sec -S @'Jan 1 05:00:00 2024' -T +10min -a ARCH disk.dev.read_bytes
  reverse  pmdumplog -r ARCH disk.dev.read_bytes
  pminfo   pminfo -a ARCH -f
  pmprobe  pmprobe -a ARCH -v

Environment: BENCH_DIR (/tmp/pcpkit-bench), BENCH_GEN, GO (go). Both tools
run with TZ=UTC LC_ALL=C PCP_DERIVED_CONFIG= (empty).
"""

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_DIR = os.environ.get("BENCH_DIR", "/tmp/pcpkit-bench")
GEN = os.environ.get("BENCH_GEN", os.path.join(ROOT, "..", "shared", "tools", "pcp-bench-gen.py"))
GO = os.environ.get("GO", shutil.which("go") or "/usr/local/go/bin/go")

COMMANDS = {
    "summary": ("pmlogsummary", ["-a", "{a}"]),
    "dumpall": ("pmdumplog", ["-a", "{a}"]),
    "pmval": ("pmval", ["-t", "10sec", "-a", "{a}", "disk.dev.read_bytes"]),
    "window": ("pmval", ["-t", "10sec", "-S", "@Jan 1 05:00:00 2024", "-T", "+10min", "-a", "{a}", "disk.dev.read_bytes"]),
    "reverse": ("pmdumplog", ["-r", "{a}", "disk.dev.read_bytes"]),
    "pminfo": ("pminfo", ["-a", "{a}", "-f"]),
    "pmprobe": ("pmprobe", ["-a", "{a}", "-v"]),
}

# variant -> (compress command for a file, suffix); None: plain
VARIANTS = {
    "plain": None,
    "xz": (["xz", "-0", "--block-size=10MiB"], ".xz"),
    "xz1k": (["xz", "-0", "--block-size=1KiB"], ".xz"),
    "xz9": (["xz", "-9"], ".xz"),
    "gz": (["gzip", "-6"], ".gz"),
    "zst": (["zstd", "-3", "-q", "--rm"], ".zst"),
}


def make_archives(variants):
    base = os.path.join(BENCH_DIR, "b-v3")
    os.makedirs(BENCH_DIR, exist_ok=True)
    if not os.path.exists(base + ".ok"):
        print(f"making {base} with {GEN}", flush=True)
        subprocess.run(["/usr/bin/python3", GEN, "-o", base, "--samples", "20000", "--metrics", "100", "--version", "3"], check=True)
        open(base + ".ok", "w").close()
    out = {}
    for v in variants:
        if VARIANTS[v] is None:
            out[v] = base
            continue
        d = os.path.join(BENCH_DIR, "read-" + v)
        a = os.path.join(d, "b-v3")
        if not os.path.exists(a + ".ok"):
            print(f"making {d}", flush=True)
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            for ext in (".0", ".meta", ".index"):
                shutil.copyfile(base + ext, a + ext)
            cmd, _ = VARIANTS[v]
            for ext in (".0", ".meta"):
                subprocess.run(cmd + [a + ext], check=True)
                if os.path.exists(a + ext):
                    os.remove(a + ext)
            open(a + ".ok", "w").close()
        out[v] = a
    return out


def run(argv, env):
    """Runs argv, returns (wall s, cpu s, peak RSS KiB, sha256 of stdout)."""
    h = hashlib.sha256()
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    for chunk in iter(lambda: p.stdout.read(1 << 16), b""):
        h.update(chunk)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, h.hexdigest(), p.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-r", "--rounds", type=int, default=7)
    ap.add_argument("-p", "--procs", default="1,2", help="GOMAXPROCS values for pcpkit")
    ap.add_argument("-v", "--variants", default="plain,xz,xz1k,xz9,gz,zst")
    ap.add_argument("-c", "--commands", default=",".join(COMMANDS))
    args = ap.parse_args()
    variants = args.variants.split(",")
    commands = args.commands.split(",")
    procs = [int(p) for p in args.procs.split(",")]

    tools = sorted({COMMANDS[c][0] for c in commands})
    subprocess.run([GO, "build", "-trimpath", "-o", os.path.join(ROOT, "bin") + "/"] + ["./cmd/" + t for t in tools],
                   cwd=ROOT, check=True, env=dict(os.environ, CGO_ENABLED="0"))
    archives = make_archives(variants + (["xz"] if "zst" in variants and "xz" not in variants else []))

    env = dict(os.environ, TZ="UTC", LC_ALL="C", PCP_DERIVED_CONFIG="", PATH="/usr/bin:" + os.environ.get("PATH", ""))
    print(f"\n{os.uname().nodename}: {os.cpu_count()} CPUs, {args.rounds} rounds, pcpkit at {ROOT}\n")
    print("| archive | command | GOMAXPROCS | real s | pcpkit s | wall ratio | cpu ratio | real RSS MB | pcpkit RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    bad = 0
    for v in variants:
        for c in commands:
            tool, targs = COMMANDS[c]
            ours_argv = [os.path.join(ROOT, "bin", tool)] + [a.format(a=archives[v]) for a in targs]
            # PCP 6.0.3 reads no .zst: its row is against the real tool on the xz copy.
            real_arch = archives["xz"] if v == "zst" else archives[v]
            real_argv = ["/usr/bin/" + tool] + [a.format(a=real_arch) for a in targs]
            for gmp in procs:
                oenv = dict(env, GOMAXPROCS=str(gmp))
                rw, ow, rc, oc, rr, orss = [], [], [], [], [], []
                for k in range(args.rounds):
                    order = [("real", real_argv, env), ("ours", ours_argv, oenv)]
                    if k % 2:
                        order.reverse()
                    res = {}
                    for name, argv, e in order:
                        res[name] = run(argv, e)
                    if k == 0 and v != "zst" and (res["real"][3] != res["ours"][3] or res["real"][4] != res["ours"][4]):
                        print(f"DIFFERENT OUTPUT: {' '.join(ours_argv)} (exit {res['ours'][4]}) vs {' '.join(real_argv)} (exit {res['real'][4]})", file=sys.stderr)
                        bad += 1
                    rw.append(res["real"][0]); ow.append(res["ours"][0])
                    rc.append(res["real"][1]); oc.append(res["ours"][1])
                    rr.append(res["real"][2]); orss.append(res["ours"][2])
                wr = statistics.median(o / r for o, r in zip(ow, rw))
                cr = statistics.median(o / max(r, 1e-3) for o, r in zip(oc, rc))
                print(f"| {v} | {c} | {gmp} | {statistics.median(rw):.3f} | {statistics.median(ow):.3f} | {wr:.2f} | {cr:.2f} | {max(rr)/1024:.0f} | {max(orss)/1024:.0f} |", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
