#!/usr/bin/env python3
"""Benchmarks of the emulated WLAN (root; not a test): prints tables and writes JSON.

1. Saturation throughput per security mode and PHY: UDP (1472-byte datagrams, 1500-byte IP
   packets) from STA1 to the access point's host at an offered load above capacity, beside
   the analytical saturation throughput of the airtime model (`wlansec wlan model`) for one
   saturated sender. One hop, so the model applies directly.
2. The emulator's release-time error (actual − intended release, median and p99) at 10, 50
   and 100 Mbit/s offered UDP load STA1 -> STA2 through the access point (two hops) on
   n-mcs7-40, with the delay and jitter iperf3 measured beside it.

Every row records the security mode, PHY and the crypto models that produced it.

    sudo scripts/wlan-bench.py [--quick] [--json out/wlan-bench.json]
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WLANSEC = os.environ.get("WLANSEC", str(ROOT / "target" / "release" / "wlansec"))
NAME = "wlbench"


def sh(*args, check=True, timeout=120):
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        sys.exit(f"{' '.join(args)}: {r.stderr.strip()}")
    return r


def up(*args):
    sh(WLANSEC, "wlan", "down", "--name", NAME, check=False)
    sh(WLANSEC, "wlan", "up", "--name", NAME, *args)
    return json.loads(sh(WLANSEC, "wlan", "status", "--name", NAME, "--json").stdout)


def down():
    sh(WLANSEC, "wlan", "down", "--name", NAME)


def udp(src_ns, dst_ns, addr, rate, seconds):
    server = subprocess.Popen(["ip", "netns", "exec", dst_ns, "iperf3", "-s", "-1", "-p", "5401"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            r = sh("ip", "netns", "exec", src_ns, "iperf3", "-c", addr, "-p", "5401", "-u", "-b", rate, "-l", "1472", "-t", str(seconds), "-J", check=False)
            out = json.loads(r.stdout or "{}")
            if r.returncode == 0 and "error" not in out:
                return out["end"]["sum"]
            time.sleep(0.1)
        sys.exit(f"iperf3 failed: {r.stdout[-300:]}")
    finally:
        server.wait(timeout=30)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1-second runs, fewer modes")
    ap.add_argument("--json", default=str(ROOT / "out" / "wlan-bench.json"))
    args = ap.parse_args()
    seconds = 1 if args.quick else 3
    modes = ["open", "ccmp", "enhanced"] if args.quick else ["open", "wep", "tkip", "ccmp", "enhanced", "enhanced:4"]
    phys = ["g54", "n-mcs7-40"]
    results = {"saturation": [], "release_error": []}

    print(f"{'mode':<11} {'phy+A-MPDU':<14} {'measured Mbit/s':>15} {'model Mbit/s':>13} {'ratio':>6} {'rel.err median/p99 µs':>22}  crypto")
    for phy in phys:
        for mode in modes:
            passphrase = "abcdefghijklm" if mode == "wep" else "wlansec-bench"
            s = up("--security", mode, "--phy", phy, "--stations", "1", "--passphrase", passphrase)
            nodes = {n["role"]: n for n in s["nodes"]}
            got = udp(nodes["sta1"]["namespace"], nodes["ap"]["namespace"], nodes["ap"]["ipv4"].split("/")[0], "400M", seconds)
            st = json.loads(sh(WLANSEC, "wlan", "status", "--name", NAME, "--json").stdout)
            down()
            # The model with the A-MPDU size the WLAN ran with (`--ampdu`, 32 on HT/VHT by default).
            model = json.loads(sh(WLANSEC, "wlan", "model", "--security", mode, "--phy", phy, "--ip-bytes", "1500", "--ampdu", str(st["ampdu"])).stdout)
            # Delivered datagram payload rate -> IP packet bits (1472 + 8 UDP + 20 IP).
            measured = got["bits_per_second"] * (1 - got["lost_percent"] / 100) * 1500 / 1472
            row = {"security": mode, "phy": phy, "ampdu": st["ampdu"], "measured_bps": measured, "model_bps": model["throughput_bps"], "ratio": measured / model["throughput_bps"], "release_error": st["release_error"], "crypto": {n["role"]: n["crypto"] for n in st["nodes"]}, "medium": st["medium"]}
            results["saturation"].append(row)
            crypto = ",".join(f"{k}={v['model']}" for k, v in row["crypto"].items())
            print(f"{mode:<11} {phy + ('+A' + str(st['ampdu']) if st['ampdu'] > 1 else ''):<14} {measured / 1e6:>15.2f} {model['throughput_bps'] / 1e6:>13.2f} {row['ratio']:>6.3f} {st['release_error']['median_us']:>10.1f}/{st['release_error']['p99_us']:<10.1f}  {crypto}")

    print()
    # Two hops share one medium: STA1 -> STA2 carries at most half the one-hop saturation.
    # (`wlan up` aggregates 32 MPDUs per A-MPDU on n-mcs7-40 by default.)
    two_hop = json.loads(sh(WLANSEC, "wlan", "model", "--security", "ccmp", "--phy", "n-mcs7-40", "--ip-bytes", "1500", "--ampdu", "32").stdout)["throughput_bps"] / 2
    print(f"two-hop capacity (half the one-hop model): {two_hop / 1e6:.2f} Mbit/s")
    print(f"{'offered':>8} {'mode':<6} {'phy':<10} {'sent Mbit/s':>11} {'delivered':>9} {'jitter ms':>9} {'lost %':>7} {'rel.err median µs':>17} {'p99 µs':>8} {'frames':>7}")
    for rate in ["10M", "50M", "100M"]:
        s = up("--security", "ccmp", "--phy", "n-mcs7-40", "--stations", "2", "--passphrase", "wlansec-bench")
        nodes = {n["role"]: n for n in s["nodes"]}
        got = udp(nodes["sta1"]["namespace"], nodes["sta2"]["namespace"], nodes["sta2"]["ipv4"].split("/")[0], rate, seconds)
        st = json.loads(sh(WLANSEC, "wlan", "status", "--name", NAME, "--json").stdout)
        down()
        e = st["release_error"]
        delivered = got["bits_per_second"] * (1 - got["lost_percent"] / 100)
        results["release_error"].append({"offered": rate, "security": "ccmp", "phy": "n-mcs7-40", "iperf3": got, "delivered_bps": delivered, "two_hop_capacity_bps": two_hop, "release_error": e, "medium": st["medium"]})
        print(f"{rate:>8} {'ccmp':<6} {'n-mcs7-40':<10} {got['bits_per_second'] / 1e6:>11.2f} {delivered / 1e6:>9.2f} {got['jitter_ms']:>9.3f} {got['lost_percent']:>7.2f} {e['median_us']:>17.1f} {e['p99_us']:>8.1f} {e['frames']:>7}")

    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(results, indent=1))
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
