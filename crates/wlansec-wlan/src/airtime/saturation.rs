//! Saturation throughput: every station always has a frame queued (Bianchi, "Performance
//! analysis of the IEEE 802.11 distributed coordination function", IEEE JSAC 18(3), 2000),
//! the closed form for one uncontended station, and a slot-by-slot simulation of the
//! stations' backoff counters that needs neither Bianchi's decoupling approximation nor his
//! DCF-only slot rules.

use super::backoff::Backoff;
use super::exchange::Exchange;

/// The fixed point of Bianchi's model for `stations` saturated senders.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Saturation {
    pub stations: usize,
    /// τ: probability that a station transmits in a given backoff slot.
    pub transmit_probability: f64,
    /// p: probability that a transmission collides.
    pub collision_probability: f64,
    /// IP bits per second delivered by all stations together.
    pub throughput_bps: f64,
}

/// Bianchi's τ(p) for window W = CWmin + 1 and m backoff stages (eq. (7)).
fn transmit_probability(p: f64, w: f64, m: i32) -> f64 {
    let numerator = 2.0 * (1.0 - 2.0 * p);
    let denominator = (1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(m));
    if denominator.abs() < 1e-12 {
        // p = 1/2 is a removable singularity: with x = 1 − 2p → 0 both sides are O(x).
        return 2.0 / (w + 1.0 + w * f64::from(m) / 2.0);
    }
    numerator / denominator
}

/// Saturation throughput of `stations` senders (≥ 1) repeating `exchange`, none hearing the
/// others' frames as errors: solve p = 1 − (1 − τ(p))^(n−1) by bisection, then
/// S = P_s·P_tr·payload / ((1 − P_tr)·σ + P_tr·P_s·T_s + P_tr·(1 − P_s)·T_c) with
/// T_s = DATA + SIFS + ACK + AIFS and T_c = DATA + ACK timeout + AIFS.
pub fn saturation(exchange: &Exchange, stations: usize) -> Saturation {
    assert!(stations >= 1, "saturation needs at least one station");
    let phy = exchange.phy();
    let access = exchange.access();
    let cw_min = phy.cw_min(access);
    let w = f64::from(cw_min + 1);
    let m = ((phy.cw_max(access) + 1) / (cw_min + 1)).ilog2() as i32;
    let n = stations as i32;

    let p = if stations == 1 {
        0.0
    } else {
        let (mut low, mut high) = (0.0f64, 1.0f64);
        for _ in 0..200 {
            let mid = 0.5 * (low + high);
            let tau = transmit_probability(mid, w, m);
            if mid - (1.0 - (1.0 - tau).powi(n - 1)) < 0.0 {
                low = mid;
            } else {
                high = mid;
            }
        }
        0.5 * (low + high)
    };
    let tau = transmit_probability(p, w, m);
    let busy = 1.0 - (1.0 - tau).powi(n);
    let success = f64::from(n) * tau * (1.0 - tau).powi(n - 1) / busy;

    let slot = phy.slot().as_secs_f64();
    let aifs = phy.aifs(access).as_secs_f64();
    let t_success = exchange.success_time().as_secs_f64() + aifs;
    let t_collision = exchange.collision_time().as_secs_f64();
    let payload_bits = 8.0 * exchange.payload_bytes() as f64;
    let mean_slot = (1.0 - busy) * slot + busy * success * t_success + busy * (1.0 - success) * t_collision;
    Saturation {
        stations,
        transmit_probability: tau,
        collision_probability: p,
        throughput_bps: busy * success * payload_bits / mean_slot,
    }
}

/// One station alone: payload / (AIFS + CWmin/2·slot + DATA + SIFS + ACK).
pub fn single_station_throughput_bps(exchange: &Exchange) -> f64 {
    8.0 * exchange.payload_bytes() as f64 / exchange.cycle_time().as_secs_f64()
}

/// Saturation throughput from a seeded slot-by-slot simulation of `stations` senders, each
/// with its own [`Backoff`] (CW doubling, retry limit), until `successes` exchanges succeeded.
///
/// The slot rules are the standard's: a sender transmits at the slot boundary where its
/// counter is zero; two or more at once collide (T_c) and the others freeze. Under EDCA a
/// frozen counter also loses the decrement of the boundary the other sender transmitted at
/// (10.23.2.4: each boundary after AIFS decrements *or* transmits), which DCF does not have
/// (10.3.4.3: decrement at the end of each idle slot); ns-3's `ChannelAccessManager` does the
/// same. This one rule is worth ~1.5 % with two AC_BE senders.
pub fn simulated_saturation(exchange: &Exchange, stations: usize, successes: u64, seed: u64) -> Saturation {
    assert!(stations >= 1, "saturation needs at least one station");
    let phy = exchange.phy();
    let access = exchange.access();
    let edca = access.is_qos();
    let slot = phy.slot().as_nanos();
    let aifs = phy.aifs(access).as_nanos();
    let t_success = exchange.success_time().as_nanos() + aifs;
    let t_collision = exchange.collision_time().as_nanos();

    let mut backoffs: Vec<Backoff> =
        (0..stations).map(|i| Backoff::new(phy, access, seed.wrapping_add(i as u64))).collect();
    let mut counters: Vec<u32> = backoffs.iter_mut().map(Backoff::draw).collect();
    let (mut elapsed_ns, mut generic_slots, mut attempts, mut failed, mut delivered) = (0u128, 0u64, 0u64, 0u64, 0u64);
    let mut senders = Vec::with_capacity(stations);
    while delivered < successes {
        let idle = *counters.iter().min().expect("at least one station");
        elapsed_ns += u128::from(idle) * slot;
        generic_slots += u64::from(idle) + 1;
        senders.clear();
        for (i, counter) in counters.iter_mut().enumerate() {
            if *counter == idle {
                senders.push(i);
            } else {
                *counter = counter.saturating_sub(idle + u32::from(edca));
            }
        }
        attempts += senders.len() as u64;
        if let [winner] = senders[..] {
            elapsed_ns += t_success;
            delivered += 1;
            backoffs[winner].on_success();
            counters[winner] = backoffs[winner].draw();
        } else {
            elapsed_ns += t_collision;
            failed += senders.len() as u64;
            for &i in &senders {
                // Retry or drop alike: a dropped frame's place is taken by the next one queued.
                backoffs[i].on_failure();
                counters[i] = backoffs[i].draw();
            }
        }
    }
    Saturation {
        stations,
        transmit_probability: attempts as f64 / (stations as f64 * generic_slots as f64),
        collision_probability: failed as f64 / attempts as f64,
        throughput_bps: delivered as f64 * 8.0 * exchange.payload_bytes() as f64 / (elapsed_ns as f64 * 1e-9),
    }
}
