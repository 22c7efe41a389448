"""The stage-by-stage split of the README: a build with stages.patch applied (switches in the
XP environment variable skip one stage each), run on the bench's capture, made first with
`wlansec synth -o /dev/shm/dec/big.pcap --frames 300000 --stations 8 --rekey
--fragment-every 0 -e wlansec-bench -p "correct horse battery" --seed 7`.

    python3 stages.py PATCHED_WLANSEC RUNS
"""
import os, resource, subprocess, statistics, sys
W = sys.argv[1]; runs = int(sys.argv[2])
base = [W, "decrypt", "-e", "wlansec-bench", "-p", "correct horse battery", "/dev/shm/dec/big.pcap", "--threads", "1", "-o"]
cases = {
  "full, file on tmpfs": (base + ["/dev/shm/dec/p.pcap"], ""),
  "full, -o - >/dev/null": (base + ["-"], ""),
  "no tally": (base + ["-"], "notally"),
  "no emit (nothing written)": (base + ["-"], "noemit"),
  "no AES (nothing written)": (base + ["-"], "noaes"),
  "no tally, no emit": (base + ["-"], "notally,noemit"),
  "read + capture parse only": (base + ["-"], "parseonly"),
  "cat": (["cat", "/dev/shm/dec/big.pcap"], ""),
}
res = {k: [] for k in cases}
for r in range(runs):
    for k, (cmd, xp) in cases.items():
        try: os.unlink("/dev/shm/dec/p.pcap")
        except FileNotFoundError: pass
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(["taskset", "-c", "0", "chrt", "-f", "10", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, XP=xp))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        res[k].append((after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime))
for k, v in res.items():
    cpu = [a + b for a, b in v]
    print(f"{k:30} cpu median {statistics.median(cpu):.4f} [{min(cpu):.4f}-{max(cpu):.4f}] user {statistics.median([a for a,b in v]):.4f} sys {statistics.median([b for a,b in v]):.4f}")
