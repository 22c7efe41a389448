#!/usr/bin/env python3
"""Reference figures from ns-3 for the airtime model (crates/wlansec-wlan/src/airtime).

Offline, not part of `make test`: run by `make ns3-vectors`, which installs the PyPI `ns3`
wheel into .venv. Writes, under tests/vectors/ns3/:

* txtime.json: `WifiPhy::CalculateTxDuration` for PSDU sizes x PHY modes (ERP, OFDM, HT
  MCS 0-31 at 20/40 MHz, VHT MCS 0-9 at 20-160 MHz, long and short guard interval).
* saturation.json: saturation UDP throughput of 1, 2, 5 and 10 stations sending to the access point
  (infrastructure BSS, 1500-byte IP packets, no RTS/CTS, no A-MPDU unless stated) on
  802.11g 54 Mbit/s (non-QoS: DCF) and 802.11n MCS7 40 MHz 5 GHz (QoS: EDCA AC_BE),
  plus 802.11n MCS7 40 MHz with 32-MPDU A-MPDUs (1 and 2 stations).

The Rust tests (crates/wlansec-wlan/tests/ns3_vectors.rs) read these files; ns-3 is not
needed to run them. Every file records the ns-3 version, this script and its parameters.
"""

import argparse
import json
import math
import sys
import time
from importlib.metadata import version
from pathlib import Path

from ns import ns

SCRIPT = "tools/ns3/gen_vectors.py"
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "vectors" / "ns3"

OFDM_RATES = [6, 9, 12, 18, 24, 36, 48, 54]
# PSDU sizes: control frames (ACK 14, BlockAck 32), MPDUs of 1500-byte IP packets under each
# security mode (QoS and not), odd sizes around symbol boundaries, the 2304-byte MSDU limit,
# the 4095-byte non-HT PSDU limit, and A-MPDUs up to HT's 65 535 bytes.
LEGACY_SIZES = [1, 14, 20, 32, 40, 100, 127, 256, 576, 1000, 1500, 1536, 1538, 1544, 1546,
                1550, 1552, 1554, 1558, 2000, 2346, 4095]
HT_SIZES = LEGACY_SIZES + [8000, 12345, 49406, 49918, 65535]


def legacy_mode(family, mbps):
    if family == "g":
        return getattr(ns.ErpOfdmPhy, f"GetErpOfdmRate{mbps}Mbps")()
    return getattr(ns.OfdmPhy, f"GetOfdmRate{mbps}Mbps")()


def phy_settings():
    """(name as our Phy parses it, WifiTxVector, band) for every mode in the table."""
    for family, band in (("g", ns.WIFI_PHY_BAND_2_4GHZ), ("a", ns.WIFI_PHY_BAND_5GHZ)):
        for mbps in OFDM_RATES:
            txv = ns.WifiTxVector()
            txv.SetMode(legacy_mode(family, mbps))
            txv.SetPreambleType(ns.WIFI_PREAMBLE_LONG)
            txv.SetChannelWidth(20)
            yield f"{family}{mbps}", txv, band, LEGACY_SIZES
    for mcs in range(32):
        for width in (20, 40):
            for sgi in (False, True):
                txv = ns.WifiTxVector()
                txv.SetMode(ns.HtPhy.GetHtMcs(mcs))
                txv.SetPreambleType(ns.WIFI_PREAMBLE_HT_MF)
                txv.SetChannelWidth(width)
                txv.SetNss(mcs // 8 + 1)
                txv.SetGuardInterval(ns.NanoSeconds(400 if sgi else 800))
                name = f"n-mcs{mcs}-{width}" + ("-sgi" if sgi else "")
                yield name, txv, ns.WIFI_PHY_BAND_5GHZ, HT_SIZES
    for mcs in range(10):
        for width in (20, 40, 80, 160):
            if mcs == 9 and width == 20:
                continue  # not a valid VHT mode with one spatial stream
            for sgi in (False, True):
                txv = ns.WifiTxVector()
                txv.SetMode(ns.VhtPhy.GetVhtMcs(mcs))
                txv.SetPreambleType(ns.WIFI_PREAMBLE_VHT_SU)
                txv.SetChannelWidth(width)
                txv.SetNss(1)
                txv.SetGuardInterval(ns.NanoSeconds(400 if sgi else 800))
                name = f"ac-mcs{mcs}-{width}" + ("-sgi" if sgi else "")
                yield name, txv, ns.WIFI_PHY_BAND_5GHZ, HT_SIZES


def txtime_vectors():
    rows = []
    for name, txv, band, sizes in phy_settings():
        for size in sizes:
            ns_ = ns.WifiPhy.CalculateTxDuration(size, txv, band).GetNanoSeconds()
            rows.append([name, size, int(ns_)])
    return rows


def saturation_run(phy, stations, seconds, warmup, ampdu_mpdus, run):
    """Uplink UDP saturation throughput of `stations` stations into the access point."""
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(run)
    udp_payload = 1500 - 20 - 8

    nodes_ap = ns.NodeContainer()
    nodes_ap.Create(1)
    nodes_sta = ns.NodeContainer()
    nodes_sta.Create(stations)

    channel = ns.YansWifiChannelHelper.Default()
    phy_helper = ns.YansWifiPhyHelper()
    phy_helper.SetChannel(channel.Create())
    wifi = ns.WifiHelper()
    mac = ns.WifiMacHelper()
    ssid = ns.Ssid("wlansec")
    if phy == "g54":
        wifi.SetStandard(ns.WIFI_STANDARD_80211g)
        data_mode, control_mode = "ErpOfdmRate54Mbps", "ErpOfdmRate24Mbps"
        qos = False
    elif phy == "n-mcs7-40":
        wifi.SetStandard(ns.WIFI_STANDARD_80211n)
        phy_helper.Set("ChannelSettings", ns.StringValue("{38, 40, BAND_5GHZ, 0}"))
        data_mode, control_mode = "HtMcs7", "OfdmRate24Mbps"
        qos = True
    else:
        raise ValueError(phy)
    wifi.SetRemoteStationManager(
        "ns3::ConstantRateWifiManager",
        "DataMode", ns.StringValue(data_mode),
        "ControlMode", ns.StringValue(control_mode),
        "RtsCtsThreshold", ns.UintegerValue(4692480),  # its maximum: never RTS/CTS
        "FragmentationThreshold", ns.UintegerValue(65535),
    )
    ampdu_bytes = 0 if ampdu_mpdus == 1 else ampdu_mpdus * 1544 - 2
    mac.SetType("ns3::StaWifiMac", "Ssid", ns.SsidValue(ssid), "QosSupported", ns.BooleanValue(qos),
                "BE_MaxAmpduSize", ns.UintegerValue(ampdu_bytes), "BE_MaxAmsduSize", ns.UintegerValue(0))
    sta_devices = wifi.Install(phy_helper, mac, nodes_sta)
    mac.SetType("ns3::ApWifiMac", "Ssid", ns.SsidValue(ssid), "QosSupported", ns.BooleanValue(qos),
                "BE_MaxAmpduSize", ns.UintegerValue(ampdu_bytes), "BE_MaxAmsduSize", ns.UintegerValue(0))
    ap_devices = wifi.Install(phy_helper, mac, nodes_ap)

    mobility = ns.MobilityHelper()
    positions = ns.ListPositionAllocator()
    positions.Add(ns.Vector(0.0, 0.0, 0.0))
    # On a circle around the AP: every station arrives at the same power, so a collision is
    # lost for all (no capture of the nearest station's frame, which the model does not have).
    for i in range(stations):
        angle = 2 * math.pi * i / stations
        positions.Add(ns.Vector(math.cos(angle), math.sin(angle), 0.0))
    mobility.SetPositionAllocator(positions)
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel")
    mobility.Install(nodes_ap)
    mobility.Install(nodes_sta)

    stack = ns.InternetStackHelper()
    stack.Install(nodes_ap)
    stack.Install(nodes_sta)
    address = ns.Ipv4AddressHelper()
    address.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
    ap_if = address.Assign(ap_devices)
    address.Assign(sta_devices)

    port = 9
    sink_helper = ns.PacketSinkHelper("ns3::UdpSocketFactory",
                                      ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sink_app = sink_helper.Install(nodes_ap.Get(0))
    sink_app.Start(ns.Seconds(0.0))
    client = ns.OnOffHelper("ns3::UdpSocketFactory",
                            ns.InetSocketAddress(ap_if.GetAddress(0), port).ConvertTo())
    client.SetConstantRate(ns.DataRate("400Mbps"), udp_payload)
    clients = client.Install(nodes_sta)
    clients.Start(ns.Seconds(0.5))

    sink = sink_app.Get(0).GetObject[ns.PacketSink]()
    ns.Simulator.Stop(ns.Seconds(0.5 + warmup))
    ns.Simulator.Run()
    start = sink.GetTotalRx()
    ns.Simulator.Stop(ns.Seconds(seconds))
    ns.Simulator.Run()
    received = sink.GetTotalRx() - start
    devices = [c.Get(i) for c in (sta_devices, ap_devices) for i in range(c.GetN())]
    slot_us = {int(d.GetObject[ns.WifiNetDevice]().GetPhy().GetSlot().GetMicroSeconds()) for d in devices}
    ns.Simulator.Destroy()
    packets = received // udp_payload
    return {
        "udp_payload_bytes": udp_payload,
        "ip_bytes": 1500,
        "packets": packets,
        "seconds": seconds,
        "ip_throughput_bps": packets * 1500 * 8 / seconds,
        "slot_us": sorted(slot_us),
    }


def saturation_vectors(seconds, warmup):
    cases = [("g54", "dcf", 1, (1, 2, 5, 10)), ("n-mcs7-40", "best_effort", 1, (1, 2, 5, 10)),
             ("n-mcs7-40", "best_effort", 32, (1, 2))]
    rows = []
    for phy, access, mpdus, station_counts in cases:
        for stations in station_counts:
            t0 = time.time()
            # An A-MPDU exchange lasts ~3 ms: run 3x longer for as many exchanges as the rest.
            length = seconds * (3 if mpdus > 1 else 1)
            result = saturation_run(phy, stations, length, warmup, mpdus, run=1)
            rows.append({"phy": phy, "access": access, "ampdu_mpdus": mpdus, "stations": stations, **result})
            print(f"  {phy:10} {access:11} A-MPDU {mpdus:2}  {stations} STA: "
                  f"{result['ip_throughput_bps'] / 1e6:7.2f} Mbit/s IP  ({time.time() - t0:.0f} s)",
                  file=sys.stderr, flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured simulated time per run")
    parser.add_argument("--warmup", type=float, default=1.0, help="simulated time before measuring")
    parser.add_argument("--skip-saturation", action="store_true")
    parser.add_argument("--out", type=Path, default=OUT, help="output directory (default tests/vectors/ns3)")
    args = parser.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    meta = {"generator": SCRIPT, "ns3_version": version("ns3"),
            "ns3_function": "ns3::WifiPhy::CalculateTxDuration(size, txVector, band)"}

    print("TXTIME table ...", file=sys.stderr, flush=True)
    rows = txtime_vectors()
    txtime_doc = {**meta, "notes": "ERP (g*) in 2.4 GHz, everything else 5 GHz; HT-mixed and VHT SU "
                  "preambles; HT MCS 8k+i uses k+1 spatial streams; VHT one stream.",
                  "columns": ["phy", "psdu_bytes", "ns3_duration_ns"], "rows": rows}
    body = ",\n".join(json.dumps(r) for r in rows)
    head = json.dumps({**txtime_doc, "rows": None}, indent=1).replace('"rows": null', '"rows": [\n' + body + "\n ]")
    (out / "txtime.json").write_text(head + "\n")
    print(f"  {len(rows)} rows -> {out / 'txtime.json'}", file=sys.stderr)

    if not args.skip_saturation:
        print("saturation runs ...", file=sys.stderr, flush=True)
        sat = {
            "generator": SCRIPT, "ns3_version": version("ns3"),
            "scenario": "infrastructure BSS, N stations on a 1 m circle around the AP (equal power: no capture), each an OnOff UDP source at "
                        "400 Mbit/s of 1472-byte payloads (1500-byte IP packets) to a PacketSink on the "
                        "AP; YansWifiChannel defaults; ConstantRateWifiManager; RTS/CTS threshold 4692480 "
                        "bytes (no RTS/CTS); no fragmentation, no A-MSDU; A-MPDU off "
                        "unless ampdu_mpdus > 1 (then BE_MaxAmpduSize = 32 subframes of 1544 bytes - 2). "
                        "g54: 802.11g, non-QoS (DCF), ACK at ERP 24 Mbit/s. n-mcs7-40: 802.11n 5 GHz "
                        "channel 38 (40 MHz), long GI, QoS AC_BE, ACK at OFDM 24 Mbit/s.",
            "warmup_seconds": args.warmup, "rng_seed": 1, "rng_run": 1,
            "rows": saturation_vectors(args.seconds, args.warmup),
        }
        (out / "saturation.json").write_text(json.dumps(sat, indent=1) + "\n")
        print(f"  -> {out / 'saturation.json'}", file=sys.stderr)


if __name__ == "__main__":
    main()
