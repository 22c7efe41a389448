//! Ethernet traffic for the generator to carry when no capture gives it.

use crate::gen::{below, random_mac, ChaCha8Rng, Rng, SeedableRng};
use crate::wire::llc::EthernetRepr;
use crate::wire::MacAddr;

/// Random Ethernet frames between the stations, hosts behind the AP, and group addresses.
pub fn generated_traffic(count: usize, stations: &[MacAddr], seed: u64) -> Vec<Vec<u8>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7261_6666_6963);
    let hosts: Vec<MacAddr> = (0..4).map(|_| random_mac(&mut rng)).collect();
    let groups = [MacAddr::BROADCAST, MacAddr([0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb])];
    (0..count)
        .map(|_| {
            let sta = stations[below(&mut rng, stations.len() as u64) as usize];
            let host = hosts[below(&mut rng, hosts.len() as u64) as usize];
            let (dst, src) = match below(&mut rng, 10) {
                0..=3 => (host, sta),
                4..=6 => (sta, host),
                7 => (groups[below(&mut rng, 2) as usize], host),
                8 => (groups[below(&mut rng, 2) as usize], sta),
                _ => (
                    hosts[(below(&mut rng, 3) as usize + 1 + hosts.iter().position(|h| *h == host).unwrap_or(0))
                        % hosts.len()],
                    host,
                ),
            };
            let len = 28 + below(&mut rng, 1472) as usize;
            let ethertype = if below(&mut rng, 8) == 0 { 0x86dd } else { 0x0800 };
            let mut frame = vec![0u8; 14 + len];
            EthernetRepr { dst, src, ethertype }.emit(&mut frame).expect("frame is longer than its header");
            rng.fill_bytes(&mut frame[14..]);
            frame
        })
        .collect()
}

/// Make every fifth frame one between the stations `a` and `b` (alternating directions), as
/// a TDLS direct link carries: the frames keep their length, EtherType and payload.
pub fn with_direct_link(frames: &mut [Vec<u8>], a: MacAddr, b: MacAddr) {
    for (n, frame) in frames.iter_mut().enumerate().skip(2).step_by(5) {
        let (dst, src) = if n % 2 == 0 { (b, a) } else { (a, b) };
        if let Some(addresses) = frame.get_mut(..12) {
            addresses.copy_from_slice(&[dst.0, src.0].concat());
        }
    }
}
