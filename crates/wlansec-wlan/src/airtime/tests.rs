//! The worked figures of docs/airtime.md, parsing, and the backoff and saturation models'
//! internal consistency. Agreement with ns-3 is in tests/ns3_vectors.rs.

use std::time::Duration;

use super::*;

/// Security overheads per MPDU (`SecurityMode::overhead`): open, and CCMP header 8 + MIC 8.
const OPEN: usize = 0;
const CCMP: usize = 16;

fn phy(name: &str) -> Phy {
    name.parse().unwrap()
}

fn us(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1000.0
}

fn mbps(bps: f64) -> f64 {
    bps / 1e6
}

#[test]
fn names_round_trip_and_every_listed_mode_parses() {
    let all: Vec<Phy> = Phy::all().collect();
    // 8 rates × (g, a) + HT 32 MCS × 2 widths × 2 GI + VHT 40 × 2 GI less MCS 9 at 20 MHz.
    assert_eq!(all.len(), 16 + 128 + 78);
    for p in all {
        assert_eq!(p.to_string().parse::<Phy>(), Ok(p));
    }
    assert_eq!(phy("g54"), Phy::Erp { mbps: 54 });
    assert_eq!(phy("a24"), Phy::Ofdm { mbps: 24 });
    assert_eq!(phy("n-mcs7-40-sgi"), Phy::Ht { mcs: 7, width: Width::Mhz40, short_gi: true });
    assert_eq!(phy("ac-mcs9-80"), Phy::Vht { mcs: 9, width: Width::Mhz80, short_gi: false });
}

#[test]
fn bad_names_give_typed_errors() {
    let err = |s: &str| s.parse::<Phy>().unwrap_err();
    assert_eq!(err("g55"), ParsePhyError::Rate(55));
    assert_eq!(err("n-mcs32-20"), ParsePhyError::Mcs { family: "HT (n)", mcs: 32, max: 31 });
    assert_eq!(err("ac-mcs10-80"), ParsePhyError::Mcs { family: "VHT (ac)", mcs: 10, max: 9 });
    assert_eq!(err("n-mcs7-80"), ParsePhyError::Width { family: "HT (n)", mhz: 80 });
    assert_eq!(err("ac-mcs9-20"), ParsePhyError::Excluded { mcs: 9, mhz: 20 });
    for bad in [
        "",
        "b11",
        "g",
        "g-54",
        "n-mcs7",
        "n-mcs7-40-lgi",
        "n-mcs7-40-sgi-x",
        "ac-mcs-80",
        "g+54",
        "g054",
        "n-mcs07-40",
        "n-mcs7-040",
    ] {
        assert_eq!(err(bad), ParsePhyError::Syntax(bad.to_string()), "{bad}");
    }
    assert!(err("x").to_string().contains("n-mcsM-W[-sgi]"));
}

#[test]
fn timing_constants() {
    let g = phy("g54");
    assert_eq!(g.sifs(), Duration::from_micros(10));
    assert_eq!(g.aifs(AccessCategory::Dcf), Duration::from_micros(28));
    let n = phy("n-mcs7-40");
    assert_eq!(n.sifs(), Duration::from_micros(16));
    assert_eq!(n.aifs(AccessCategory::Dcf), Duration::from_micros(34));
    assert_eq!(n.aifs(AccessCategory::BestEffort), Duration::from_micros(43));
    assert_eq!(n.aifs(AccessCategory::Background), Duration::from_micros(79));
    assert_eq!((n.cw_min(AccessCategory::Voice), n.cw_max(AccessCategory::Voice)), (3, 7));
    assert_eq!((n.cw_min(AccessCategory::Video), n.cw_max(AccessCategory::Video)), (7, 15));
    assert_eq!((g.cw_min(AccessCategory::BestEffort), g.cw_max(AccessCategory::BestEffort)), (15, 1023));
    assert_eq!(mbps(n.data_rate_bps()), 135.0);
    assert_eq!(mbps(phy("n-mcs7-40-sgi").data_rate_bps()), 150.0);
    assert_eq!(mbps(phy("ac-mcs9-80-sgi").data_rate_bps()).round(), 433.0);
    assert_eq!(phy("ac-mcs9-160").encoders(), 2);
    assert_eq!(phy("n-mcs31-40").encoders(), 2);
    assert_eq!(phy("n-mcs15-40-sgi").encoders(), 1);
    assert_eq!(phy("g54").control_response(), phy("g24"));
    assert_eq!(phy("g18").control_response(), phy("g12"));
    assert_eq!(phy("n-mcs0-20").control_response(), phy("a6"));
    assert_eq!(phy("ac-mcs9-80").control_response(), phy("a24"));
}

#[test]
fn txtime_worked_figures() {
    // docs/airtime.md: ACK at 24 Mbit/s 34 µs in 2.4 GHz (signal extension), 28 µs in 5 GHz;
    // BlockAck 32 µs.
    assert_eq!(txtime(phy("g24"), ACK_BYTES), Duration::from_micros(34));
    assert_eq!(txtime(phy("a24"), ACK_BYTES), Duration::from_micros(28));
    assert_eq!(txtime(phy("a24"), BLOCK_ACK_BYTES), Duration::from_micros(32));
    assert_eq!(ack_time(phy("g54")), Duration::from_micros(34));
    assert_eq!(ack_time(phy("n-mcs7-40")), Duration::from_micros(28));
    assert_eq!(block_ack_time(phy("n-mcs7-40-sgi")), Duration::from_micros(32));
    // MCS 0's reference rate is 6 Mbit/s: 20 + 4 · ⌈134 / 24⌉ = 44 µs.
    assert_eq!(ack_time(phy("n-mcs0-20")), Duration::from_micros(44));
    // The note's short-GI example: 1538-B PSDU at HT MCS7 40 MHz SGI: 33 symbols,
    // 118.8 µs of symbols, TXTIME rounded to 120 µs.
    let sgi = phy("n-mcs7-40-sgi");
    assert_eq!(data_symbols(sgi, 1538), 23);
    assert_eq!(ppdu_duration(sgi, 1538), Duration::from_nanos(36_000 + 23 * 3_600));
    assert_eq!(txtime(sgi, 1538), Duration::from_micros(36 + 84));
    for len in 0..3000 {
        let (standard, symbols) = (txtime(sgi, len), ppdu_duration(sgi, len));
        assert!(standard >= symbols && standard - symbols < Duration::from_micros(4), "{len}");
        let lgi = phy("n-mcs7-40");
        assert_eq!(txtime(lgi, len), ppdu_duration(lgi, len));
    }
}

#[test]
fn exchange_worked_figures_g54() {
    let open = Exchange::new(phy("g54"), AccessCategory::Dcf, OPEN, 1500).unwrap();
    assert_eq!(open.mpdu_bytes(), 1536);
    assert_eq!(open.data_time(), Duration::from_micros(254));
    assert_eq!(open.response_time(), Duration::from_micros(34));
    assert_eq!(us(open.cycle_time()), 393.5);
    assert_eq!(format!("{:.1}", mbps(single_station_throughput_bps(&open))), "30.5");

    let ccmp = Exchange::new(phy("g54"), AccessCategory::Dcf, CCMP, 1500).unwrap();
    assert_eq!(ccmp.data_time(), Duration::from_micros(258));
    assert_eq!(format!("{:.1}", mbps(single_station_throughput_bps(&ccmp))), "30.2");
}

#[test]
fn exchange_worked_figures_ht40() {
    let n = phy("n-mcs7-40");
    let be = AccessCategory::BestEffort;
    let open = Exchange::new(n, be, OPEN, 1500).unwrap();
    assert_eq!(open.mpdu_bytes(), 1538);
    assert_eq!(open.data_time(), Duration::from_micros(128));
    assert_eq!(us(open.cycle_time()), 282.5);
    assert_eq!(format!("{:.1}", mbps(single_station_throughput_bps(&open))), "42.5");

    let ampdu = Exchange::aggregated(n, be, OPEN, 1500, 32).unwrap();
    assert_eq!(ampdu.psdu_bytes(), 31 * 1544 + 1542);
    assert_eq!(ampdu.response_time(), Duration::from_micros(32));
    assert_eq!(us(ampdu.cycle_time()), 3122.5);
    assert_eq!(format!("{:.0}", mbps(single_station_throughput_bps(&ampdu))), "123");
    let sgi = Exchange::aggregated(phy("n-mcs7-40-sgi"), be, OPEN, 1500, 32).unwrap();
    assert_eq!(format!("{:.1}", mbps(single_station_throughput_bps(&sgi))), "135.7");

    // CCMP: the note says 42.0 without aggregation, but 1554 B need 24 symbols (132 µs), so the
    // cycle is 286.5 µs and 12 000 bit / 286.5 µs = 41.9 Mbit/s.
    let ccmp = Exchange::new(n, be, CCMP, 1500).unwrap();
    assert_eq!(ccmp.data_time(), Duration::from_micros(132));
    assert_eq!(format!("{:.1}", mbps(single_station_throughput_bps(&ccmp))), "41.9");
    let ccmp32 = Exchange::aggregated(n, be, CCMP, 1500, 32).unwrap();
    assert_eq!(format!("{:.1}", mbps(single_station_throughput_bps(&ccmp32))), "121.7");
}

#[test]
fn mpdu_sizes() {
    // Open, WEP, TKIP, CCMP/Enhanced, QoS data.
    let sizes: Vec<usize> = [0, 8, 20, 16].iter().map(|&o| mpdu_bytes(1500, o, true)).collect();
    assert_eq!(sizes, [1538, 1546, 1558, 1554]);
    assert_eq!(mpdu_bytes(1500, OPEN, false), 1536);
    // VHT sends a single MPDU as an S-MPDU behind a delimiter.
    let vht = Exchange::new(phy("ac-mcs9-80"), AccessCategory::BestEffort, OPEN, 1500).unwrap();
    assert_eq!(vht.psdu_bytes(), 1542);
}

#[test]
fn exchange_rejects_impossible_frames() {
    let be = AccessCategory::BestEffort;
    assert!(Exchange::new(phy("g54"), be, OPEN, 2297).is_err());
    assert!(Exchange::new(phy("g54"), be, OPEN, 2296).is_ok());
    assert!(Exchange::aggregated(phy("g54"), be, OPEN, 1500, 2).is_err());
    assert!(Exchange::aggregated(phy("n-mcs7-40"), AccessCategory::Dcf, OPEN, 1500, 2).is_err());
    assert!(Exchange::aggregated(phy("n-mcs7-40"), be, OPEN, 1500, 0).is_err());
    assert!(Exchange::aggregated(phy("n-mcs7-40"), be, OPEN, 1500, 65).is_err());
    // 64 × 1544 B exceeds HT's 65 535-byte A-MPDU but not VHT's.
    assert!(Exchange::aggregated(phy("n-mcs7-40"), be, OPEN, 1500, 64).is_err());
    assert!(Exchange::aggregated(phy("ac-mcs9-80"), be, OPEN, 1500, 64).is_ok());
}

#[test]
fn backoff_doubles_resets_and_is_reproducible() {
    let mut b = Backoff::new(phy("g54"), AccessCategory::BestEffort, 7);
    assert_eq!(b.cw(), 15);
    let windows: Vec<u32> = (0..6).map(|_| (b.on_failure(), b.cw()).1).collect();
    assert_eq!(windows, [31, 63, 127, 255, 511, 1023]);
    assert_eq!(b.on_failure(), AfterFailure::Drop);
    assert_eq!(b.cw(), 15);
    b.on_failure();
    b.on_success();
    assert_eq!(b.cw(), 15);

    let draws = |seed| {
        let mut b = Backoff::new(phy("g54"), AccessCategory::BestEffort, seed);
        (0..4000).map(|_| b.draw()).collect::<Vec<_>>()
    };
    assert_eq!(draws(1), draws(1));
    assert_ne!(draws(1), draws(2));
    let d = draws(3);
    assert!(d.iter().all(|&x| x <= 15));
    assert!((0..=15).all(|v| d.contains(&v)));
    let mean = d.iter().map(|&x| f64::from(x)).sum::<f64>() / d.len() as f64;
    assert!((mean - 7.5).abs() < 0.3, "{mean}");
}

#[test]
fn bianchi_reduces_to_the_closed_form_for_one_station() {
    for name in ["g54", "n-mcs7-40", "ac-mcs9-80-sgi"] {
        let ex = Exchange::new(phy(name), AccessCategory::BestEffort, CCMP, 1500).unwrap();
        let one = saturation(&ex, 1);
        assert_eq!(one.collision_probability, 0.0);
        let closed = single_station_throughput_bps(&ex);
        assert!((one.throughput_bps / closed - 1.0).abs() < 1e-12, "{name}");
    }
}

#[test]
fn bianchi_collision_probability_grows_with_stations() {
    let ex = Exchange::new(phy("g54"), AccessCategory::Dcf, OPEN, 1500).unwrap();
    let runs: Vec<Saturation> = (1..=50).map(|n| saturation(&ex, n)).collect();
    for pair in runs.windows(2) {
        assert!(pair[1].collision_probability > pair[0].collision_probability);
        // The fixed point holds.
        let n = pair[1].stations as i32;
        let tau = pair[1].transmit_probability;
        assert!((pair[1].collision_probability - (1.0 - (1.0 - tau).powi(n - 1))).abs() < 1e-9);
    }
}

/// Bianchi's fixed point against the slot-by-slot simulation of the stations' own seeded
/// backoff counters (DCF, where Bianchi's slot rules hold).
#[test]
fn bianchi_matches_simulated_backoff() {
    let ex = Exchange::new(phy("g54"), AccessCategory::Dcf, OPEN, 1500).unwrap();
    for stations in [1usize, 2, 5, 10] {
        let model = saturation(&ex, stations);
        let simulated = simulated_saturation(&ex, stations, 100_000, 7);
        let p = (model.collision_probability, simulated.collision_probability);
        assert!((p.0 - p.1).abs() < 0.01 + 0.05 * p.1, "{stations}: p {p:?}");
        // Bianchi's decoupling overestimates a few stations' throughput by up to ~2 %.
        let s = (model.throughput_bps, simulated.throughput_bps);
        assert!((s.0 / s.1 - 1.0).abs() < 0.025, "{stations}: S {s:?}");
    }
}

#[test]
fn simulation_is_seeded_and_one_station_meets_the_closed_form() {
    let ex = Exchange::new(phy("n-mcs7-40"), AccessCategory::BestEffort, CCMP, 1500).unwrap();
    assert_eq!(simulated_saturation(&ex, 3, 10_000, 1), simulated_saturation(&ex, 3, 10_000, 1));
    assert_ne!(simulated_saturation(&ex, 3, 10_000, 1), simulated_saturation(&ex, 3, 10_000, 2));
    let one = simulated_saturation(&ex, 1, 200_000, 3);
    assert_eq!(one.collision_probability, 0.0);
    assert!((one.throughput_bps / single_station_throughput_bps(&ex) - 1.0).abs() < 0.003);
}

#[test]
fn poor_signal_profile() {
    let poor = LinkProfile::poor_signal(phy("n-mcs7-40-sgi"));
    assert_eq!(poor.phy, phy("n-mcs1-40-sgi"));
    assert_eq!(poor.frame_error_rate, 0.1);
    assert_eq!(LinkProfile::poor_signal(phy("g54")).phy, phy("g12"));
    assert_eq!(LinkProfile::clear(phy("g54")).frame_error_rate, 0.0);
}
