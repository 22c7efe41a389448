use super::*;
use crate::airtime::{saturation, Exchange, Phy};

fn mpdu(len: usize, group: bool) -> Vec<u8> {
    let mut m = vec![0u8; len];
    m[0] = 0x88;
    m[4] = if group { 0xff } else { 0x02 };
    m
}

/// A QoS data frame of `len` bytes (no FCS) to `receiver` with `tid`, carrying `id`.
fn qos(len: usize, receiver: u8, tid: u8, id: u32) -> Vec<u8> {
    let mut m = mpdu(len, false);
    m[9] = receiver;
    m[24] = tid;
    m[40..44].copy_from_slice(&id.to_le_bytes());
    m
}

fn id(t: &Transmission) -> (u8, u8, u32) {
    (t.mpdu[9], t.mpdu[24], u32::from_le_bytes(t.mpdu[40..44].try_into().unwrap()))
}

const IP_1500: usize = 1538 - FCS_BYTES;

/// The next PPDU's transmissions (everything starting at the next start time).
fn next_ppdu(m: &mut Medium) -> Vec<Transmission> {
    let start = m.next_start().expect("a frame is queued");
    let out = m.advance(start);
    assert!(out.iter().all(|t| t.start_ns == start));
    out
}

/// Saturated senders: throughput of the emulated channel against the analytical model.
fn saturated_throughput(phy: Phy, stations: usize, seconds: f64) -> (f64, MediumCounters) {
    saturated_ampdu_throughput(phy, stations, 1, seconds)
}

/// Saturated senders sending A-MPDUs of up to `ampdu` MPDUs.
fn saturated_ampdu_throughput(phy: Phy, stations: usize, ampdu: usize, seconds: f64) -> (f64, MediumCounters) {
    let ip = 1500;
    let len = crate::airtime::mpdu_bytes(ip, 0, true) - FCS_BYTES;
    let mut m = Medium::new(LinkProfile::clear(phy), stations, 2 * ampdu + 2, 7).with_ampdu(ampdu);
    let end = (seconds * 1e9) as u64;
    let mut now = 0;
    let mut delivered = 0u64;
    while now < end {
        for i in 0..stations {
            while m.queued(i) < ampdu + 1 {
                m.enqueue(i, mpdu(len, false), now);
            }
        }
        let Some(next) = m.next_start() else { break };
        now = next;
        delivered += m.advance(now).iter().filter(|t| t.delivered).count() as u64;
    }
    (delivered as f64 * ip as f64 * 8.0 / seconds, m.counters)
}

#[test]
fn saturation_throughput_follows_the_analytical_model() {
    for phy in ["g54", "n-mcs7-40"] {
        let phy: Phy = phy.parse().unwrap();
        let exchange = Exchange::new(phy, AccessCategory::BestEffort, 0, 1500).unwrap();
        for stations in [1, 2, 5] {
            let (measured, counters) = saturated_throughput(phy, stations, 4.0);
            let model = saturation(&exchange, stations).throughput_bps;
            let ratio = measured / model;
            assert!((0.95..1.05).contains(&ratio), "{phy} {stations}: {measured} vs {model}");
            assert_eq!(counters.collisions > 0, stations > 1, "{phy} {stations}");
        }
    }
}

#[test]
fn aggregated_saturation_follows_the_analytical_model() {
    let phy: Phy = "n-mcs7-40".parse().unwrap();
    let exchange = Exchange::aggregated(phy, AccessCategory::BestEffort, 0, 1500, 32).unwrap();
    for stations in [1, 2, 5] {
        let (measured, counters) = saturated_ampdu_throughput(phy, stations, 32, 2.0);
        let model = saturation(&exchange, stations).throughput_bps;
        assert!((0.95..1.05).contains(&(measured / model)), "{stations}: {measured} vs {model}");
        assert_eq!(counters.ampdu_mpdus, 32 * counters.ampdus, "{stations}: every A-MPDU is full");
    }
}

#[test]
fn an_ampdu_takes_the_airtime_of_exchange_aggregated() {
    for phy in ["n-mcs7-40", "n-mcs7-40-sgi", "ac-mcs9-80"] {
        let phy: Phy = phy.parse().unwrap();
        let mut m = Medium::new(LinkProfile::clear(phy), 1, 64, 2).with_ampdu(32);
        for n in 0..40 {
            m.enqueue(0, qos(IP_1500, 1, 0, n), 0);
        }
        let ppdu = next_ppdu(&mut m);
        assert_eq!(ppdu.len(), 32, "{phy}");
        assert!(ppdu.iter().all(|t| t.delivered));
        assert_eq!(ppdu.iter().map(|t| id(t).2).collect::<Vec<_>>(), (0..32).collect::<Vec<_>>());
        let exchange = Exchange::aggregated(phy, AccessCategory::BestEffort, 0, 1500, 32).unwrap();
        let start = ppdu[0].start_ns;
        // The last subframe ends with the PPDU; the medium is then busy for SIFS + BlockAck.
        assert_eq!(ppdu[31].end_ns - start, exchange.data_time().as_nanos() as u64, "{phy}");
        assert!(ppdu.windows(2).all(|w| w[0].end_ns <= w[1].end_ns));
        assert_eq!(m.counters.busy_ns, exchange.success_time().as_nanos() as u64, "{phy}");
        assert_eq!((m.counters.ampdus, m.counters.ampdu_mpdus), (1, 32));
        let next = m.next_start().unwrap();
        assert!(next >= start + (exchange.success_time() + phy.aifs(AccessCategory::BestEffort)).as_nanos() as u64);
        assert_eq!(next_ppdu(&mut m).len(), 8, "{phy}: the rest");
    }
}

#[test]
fn only_frames_for_the_same_receiver_and_tid_are_aggregated() {
    let phy: Phy = "n-mcs7-40".parse().unwrap();
    let mut m = Medium::new(LinkProfile::clear(phy), 1, 64, 2).with_ampdu(32);
    // Receiver 1 TID 0 (a), receiver 3 (b), then receiver 1 TID 5 and group frames.
    let queue = [(1, 0), (1, 0), (3, 0), (1, 0), (3, 0), (1, 0), (1, 5), (1, 0), (3, 0)];
    for (n, &(receiver, tid)) in queue.iter().enumerate() {
        m.enqueue(0, qos(IP_1500, receiver, tid, n as u32), 0);
    }
    m.enqueue(0, mpdu(IP_1500, true), 0);
    m.enqueue(0, mpdu(IP_1500, true), 0);
    let ppdus: Vec<Vec<u32>> = (0..6).map(|_| next_ppdu(&mut m).iter().map(|t| id(t).2).collect()).collect();
    // Receiver 1's TID 0 frames up to its TID 5 frame, which keeps its place in that
    // receiver's order; receiver 3's frames after; group frames one by one.
    assert_eq!(ppdus, [vec![0, 1, 3, 5], vec![2, 4, 8], vec![6], vec![7], vec![0], vec![0]]);
    assert_eq!(m.queued(0), 0);
}

#[test]
fn count_byte_and_airtime_limits_hold() {
    let count = |phy: &str, ampdu: usize, len: usize, frames: u32| {
        let profile = LinkProfile::clear(phy.parse().unwrap());
        let mut m = Medium::new(profile, 1, 128, 4).with_ampdu(ampdu);
        (0..frames).for_each(|n| assert!(m.enqueue(0, qos(len, 1, 0, n), 0)));
        (0..3).map(|_| next_ppdu(&mut m).len()).collect::<Vec<_>>()
    };
    assert_eq!(count("n-mcs7-40", 8, IP_1500, 20), [8, 8, 4]);
    // 2290-byte MPDUs: subframes of 2298 bytes padded to 2300; 28 fit 65 535 bytes.
    assert_eq!(crate::airtime::ampdu_bytes([2294; 28]), 27 * 2300 + 2298);
    assert!(crate::airtime::ampdu_bytes([2294; 29]) > 65_535);
    assert_eq!(count("n-mcs7-40", 64, 2290, 64), [28, 28, 8]);
    // MCS 1 (40 MHz, 108 data bits per symbol): 11 subframes of 1544 bytes take 5072 µs,
    // 12 would take 5528 µs, past aPPDUMaxTime (5484 µs).
    let mcs1: Phy = "n-mcs1-40".parse().unwrap();
    assert_eq!(txtime(mcs1, crate::airtime::ampdu_bytes([1538; 11])).as_micros(), 5072);
    assert_eq!(txtime(mcs1, crate::airtime::ampdu_bytes([1538; 12])).as_micros(), 5528);
    assert_eq!(count("n-mcs1-40", 32, IP_1500, 30), [11, 11, 8]);
}

#[test]
fn a_frame_joins_an_ampdu_only_once_its_crypto_is_done() {
    let phy: Phy = "n-mcs7-40".parse().unwrap();
    let mut m = Medium::new(LinkProfile::clear(phy), 1, 64, 2).with_ampdu(32);
    let ready = [0, 0, 10_000_000, 0];
    for (n, &ready_ns) in ready.iter().enumerate() {
        m.enqueue(0, qos(IP_1500, 1, 0, n as u32), ready_ns);
    }
    let first = next_ppdu(&mut m);
    assert_eq!(first.iter().map(|t| id(t).2).collect::<Vec<_>>(), [0, 1]);
    let second = next_ppdu(&mut m);
    assert!(second[0].start_ns > 10_000_000);
    assert_eq!(second.iter().map(|t| id(t).2).collect::<Vec<_>>(), [2, 3]);
}

#[test]
fn per_mpdu_loss_resends_only_the_lost_ones_and_keeps_each_flows_order() {
    let phy: Phy = "n-mcs7-40".parse().unwrap();
    let mut m = Medium::new(LinkProfile { phy, frame_error_rate: 0.3 }, 1, 512, 9).with_ampdu(16);
    let frames = 400u32;
    for n in 0..frames {
        m.enqueue(0, qos(IP_1500, 1 + (n % 3 == 0) as u8 * 2, 0, n), 0);
    }
    let (mut released, mut failed) = (Vec::new(), std::collections::HashSet::new());
    while let Some(start) = m.next_start() {
        for t in m.advance(start) {
            if t.delivered {
                released.push(t);
            } else {
                failed.insert(id(&t));
            }
        }
    }
    let c = m.counters;
    assert!(c.ampdus > 20 && c.frame_errors > 100, "{c:?}");
    // Every MPDU is sent once, and again only after it was lost.
    assert_eq!(c.transmissions, released.len() as u64 + c.frame_errors);
    assert_eq!(c.retries, c.frame_errors - c.dropped_retry_limit);
    assert_eq!(released.len() as u64 + c.dropped_retry_limit, u64::from(frames));
    for t in &released {
        let retried = t.mpdu[1] & RETRY_BIT != 0;
        assert_eq!(retried, failed.contains(&id(t)), "{:?}", id(t));
    }
    // The receiver gets each receiver's frames once, in order (released by end time, the
    // emulator's order; ties keep the medium's order).
    let mut by_release: Vec<&Transmission> = released.iter().collect();
    by_release.sort_by_key(|t| t.end_ns);
    for receiver in [1, 3] {
        let ids: Vec<u32> = by_release.iter().map(|t| id(t)).filter(|i| i.0 == receiver).map(|i| i.2).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "receiver {receiver}: {ids:?}");
    }
    assert!(released.iter().any(|t| t.end_ns > t.start_ns + 2_000_000), "some waited for a retry");
}

#[test]
fn one_frame_per_exchange_without_ampdu_or_ht() {
    for (phy, ampdu) in [("n-mcs7-40", 1), ("g54", 32), ("a54", 64)] {
        let phy: Phy = phy.parse().unwrap();
        let run = |medium: Medium| {
            let mut m = medium;
            for n in 0..50 {
                m.enqueue(n as usize % 2, qos(IP_1500, 1, 0, n), 0);
            }
            let mut out = Vec::new();
            while let Some(start) = m.next_start() {
                out.extend(m.advance(start).into_iter().map(|t| (t.from, t.start_ns, t.end_ns, t.delivered, id(&t))));
            }
            (out, m.counters.ampdus, m.max_ampdu())
        };
        let profile = LinkProfile::poor_signal(phy);
        let (plain, _, _) = run(Medium::new(profile, 2, 64, 5));
        let (out, ampdus, max) = run(Medium::new(profile, 2, 64, 5).with_ampdu(ampdu));
        assert_eq!((ampdus, max), (0, 1), "{phy}");
        assert_eq!(out, plain, "{phy}");
        let single = txtime(profile.phy, IP_1500 + FCS_BYTES).as_nanos() as u64;
        assert!(out.iter().all(|t| t.2 - t.1 == single), "{phy}");
    }
}

#[test]
fn a_lone_frame_waits_aifs_and_its_backoff_then_takes_txtime() {
    let phy: Phy = "g54".parse().unwrap();
    let mut m = Medium::new(LinkProfile::clear(phy), 2, 4, 1);
    assert!(m.next_start().is_none());
    m.enqueue(1, mpdu(100, true), 1_000_000);
    let start = m.next_start().unwrap();
    let aifs = phy.aifs(AccessCategory::BestEffort).as_nanos() as u64;
    let slot = phy.slot().as_nanos() as u64;
    assert!(start >= 1_000_000 + aifs && (start - 1_000_000 - aifs).is_multiple_of(slot));
    assert!(m.advance(start - 1).is_empty());
    let t = m.advance(start);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].end_ns - t[0].start_ns, txtime(phy, 104).as_nanos() as u64);
    assert!(t[0].delivered);
}

#[test]
fn full_queues_and_poor_signal_are_counted() {
    let phy: Phy = "g54".parse().unwrap();
    let mut m = Medium::new(LinkProfile::poor_signal(phy), 1, 2, 3);
    assert!(m.enqueue(0, mpdu(500, false), 0));
    assert!(m.enqueue(0, mpdu(500, false), 0));
    assert!(!m.enqueue(0, mpdu(500, false), 0));
    assert_eq!(m.counters.dropped_queue_full, 1);
    let mut delivered = 0;
    for _ in 0..2000 {
        while m.queued(0) < 2 {
            m.enqueue(0, mpdu(500, false), 0);
        }
        let t = m.next_start().unwrap();
        delivered += m.advance(t).iter().filter(|t| t.delivered).count();
    }
    let errors = m.counters.frame_errors as f64 / m.counters.transmissions as f64;
    assert!((0.07..0.13).contains(&errors), "{errors}");
    assert_eq!(m.counters.retries, m.counters.frame_errors - m.counters.dropped_retry_limit);
    assert!(delivered > 1500);
}
