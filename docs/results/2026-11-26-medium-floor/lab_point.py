"""The lab's own TCP point procedure (wlansec_lab.experiments._tcp: iperf3 for 5 s, then qperf
tcp_bw + tcp_lat for 5 s), open, n-mcs7-40, 896 B, IPv4, 8 times on one WLAN with the timer
release and the CPUs idling as the kernel chooses (the published run's conditions), plus a
2 s tcp_lat alone after each. Run from lab/ as root:
    WLANSEC=../target/release/wlansec ../.venv/bin/python ../docs/results/2026-11-26-medium-floor/lab_point.py
"""
import os
import statistics

from wlansec_lab import traffic
from wlansec_lab.testbed import WlanTestbed

tb = WlanTestbed(os.environ.get("WLANSEC", "target/release/wlansec"), name="lpt", release_spin_us=0, polling_idle=False)
tb.ensure({"security": "open", "phy": "n-mcs7-40"})
rtts, lat_only = [], []
try:
    for i in range(8):
        traffic.iperf3_tcp(tb, 4, 896, 5)
        q = traffic.qperf(tb, 4, 896, 5)
        rtts.append(q["rtt_ms"])
        lat_only.append(traffic.qperf(tb, 4, 896, 2, bandwidth=False)["rtt_ms"])
        print(i, q, lat_only[-1], os.getloadavg()[0], flush=True)
finally:
    tb.down()
print("lab procedure (iperf3 5 s, qperf tcp_bw+tcp_lat 5 s): mean %.3f std %.3f" % (statistics.mean(rtts), statistics.stdev(rtts)))
print("tcp_lat alone 2 s right after: mean %.3f std %.3f" % (statistics.mean(lat_only), statistics.stdev(lat_only)))
