"""The card model's arithmetic (lab/wlansec_lab/cardmodel.py) against cases worked by hand from
the 802.11 airtime note (/work/shared/notes/airtime.md: its table's TXTIMEs), a two-unit
engine's chain (B0, two AAD blocks and the body at 10 cycles a block) and the study's Table 2,
never against the model's own output."""

import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab"))

from wlansec_lab import cardmodel as cm  # noqa: E402

AIR_ONLY = cm.CardModel(driver_us=0.0, cycles_per_block=0.0)


def test_txtime_matches_the_airtime_notes_table():
    # airtime.md: 1500-octet IP packet, DATA 254 µs open and 258 µs with CCMP on 802.11g 54
    # (24-octet header + LLC 8 + 1500 + FCS 4 = 1536 octets), 128 µs on n-mcs7-40 (QoS, 1538).
    assert cm.ERP_54.txtime_us(1536) == 254
    assert cm.ERP_54.txtime_us(1536 + 16) == 258
    assert cm.HT_MCS7_40.txtime_us(1538) == 128


def test_zero_engine_latency_leaves_only_the_airtime():
    # 1508-octet body (LLC + 1500-octet IP) → 1538-octet MPDU: 23 symbols open, 24 with CCMP's
    # 16 octets (8·1554 + 22 = 12 454 bits > 23·540): +4 µs per hop, four hops per round trip.
    assert AIR_ONLY.air_us(1538) == 4
    assert AIR_ONLY.rtt_cost_us(1508) == 16
    # 218-octet MPDU: 1766 and 1894 bits both fit 4 symbols, so the 16 octets cost nothing.
    assert AIR_ONLY.rtt_cost_us(188) == 0
    # Inside an A-MPDU the 128 bits go at 540 bits per 4 µs.
    assert AIR_ONLY.air_us(1538, aggregated=True) == pytest.approx(128 * 4 / 540)


def test_engine_latency_is_the_cbc_mac_chain_at_the_clock():
    # A two-unit engine: B0 + 2 AAD + 94 body blocks = 97 blocks × 10 cycles = 970 cycles per 1500-octet body.
    engine = cm.CardModel(cycles_per_block=10, clock_mhz=88)
    assert engine.engine_us(1500) == pytest.approx(970 / 88)
    assert engine.engine_us(1) == pytest.approx(40 / 88)  # a partial block is a whole one
    # A round trip: 8 operations; with no driver and a size whose 16 octets spill no symbol (188).
    assert replace_air_free(engine).rtt_cost_us(188) == pytest.approx(8 * (3 + 12) * 10 / 88)


def replace_air_free(model: cm.CardModel) -> cm.CardModel:
    return cm.CardModel(driver_us=model.driver_us, cycles_per_block=model.cycles_per_block, clock_mhz=model.clock_mhz)


def test_the_driver_counts_four_times_per_round_trip():
    assert cm.CardModel(driver_us=25.0, cycles_per_block=0.0).rtt_cost_us(188) == 100


def test_calibration_reproduces_its_point_with_the_hand_derived_driver_overhead():
    # Windows 7, IPv6, 896 octets: body 8 + 40 + 20 + 896 = 964 → 3 + 61 = 64 blocks, 640 cycles
    # at 88 MHz per operation, 8 operations; MPDU 994 octets: 15 symbols open, 16 with CCMP
    # (8·1010 + 22 = 8102 > 15·540): 4 µs on each of 4 hops. 190 µs − 8·640/88 − 16 = 4 drivers.
    assert cm.tcp_body(896, 6, "windows") == 964
    model = cm.calibrated_model()
    assert model.driver_us == pytest.approx((190 - 8 * 640 / 88 - 16) / 4)
    assert model.rtt_cost_us(964) == pytest.approx(190)


def test_bulk_throughput_pays_only_the_air_when_the_pipeline_keeps_up():
    # 45 Mbit/s of 1448-octet segments: 257.4 µs of medium per segment, plus 16 octets on both
    # hops' data MPDUs and on half an ACK per hop, at 540 bits per 4 µs.
    per_segment = 8 * 1448 / 45
    expected = 8 * 1448 / (per_segment + 3 * 128 * 4 / 540)
    assert AIR_ONLY.bulk_throughput(45, 1448, 1508, 60) == pytest.approx(expected)
    # A driver slower than the air per segment sets the pace: 1.5 frames of 400 µs per segment.
    slow = cm.CardModel(driver_us=400.0, cycles_per_block=0.0)
    assert slow.bulk_throughput(45, 1448, 1508, 60) == pytest.approx(8 * 1448 / 600)
    # With no overlap the stages add up: the sender's driver (1.5 frames of 10 µs) and the AP's
    # engine, two operations on the 1508-octet body (3 + 95 blocks) and on half a 60-octet ACK
    # body (3 + 4 blocks), 10 cycles each at 88 MHz.
    some = cm.CardModel(driver_us=10.0, cycles_per_block=10, clock_mhz=88)
    engine = 2 * (98 + 0.5 * 7) * 10 / 88
    assert some.bulk_throughput(45, 1448, 1508, 60, pipelined=False) == pytest.approx(
        8 * 1448 / (per_segment + 3 * 128 * 4 / 540 + engine + 15))


def test_published_interval_from_table_2():
    # Fedora 12, IPv4, 1408 B: open σ 0.02, WPA2 σ 0.04 ms over 40 runs each.
    assert cm.published_std("rtt", "fedora", "open", 4, 1408) == 0.02
    assert cm.published_std("rtt", "fedora", "ccmp", 4, 1408) == 0.04
    assert cm.published_interval("rtt", "fedora", 4, 1408) == pytest.approx(1.96 * math.sqrt((0.02 ** 2 + 0.04 ** 2) / 40) + 0.005)


def test_verdicts():
    assert cm.Prediction("x", 0.20, 0.21, "ms", tolerance=0.02).verdict().startswith("**holds**")
    assert cm.Prediction("x", 0.20, 0.25, "ms", tolerance=0.02, spread=0.06).verdict().startswith("holds only within")
    assert "off by +0.1 ms" in cm.Prediction("x", 0.20, 0.30, "ms", tolerance=0.02, spread=0.06).verdict()


def test_the_calibration_point_is_not_among_the_predictions():
    c = cm.CALIBRATION
    what = [p.what for p in cm.rtt_predictions(cm.calibrated_model())]
    assert not any(f"{cm.OS_LABEL[c['os']]}, IPv{c['ip']}, {c['size']} B" in w for w in what)
    assert any("Fedora 12, IPv4, 1408 B" in w for w in what)
