//! What the engine tests share: random data frames of several stations, and the golden
//! model's output for them.

use wlansec_core::gen::{self, ChaCha8Rng, Shapes};
use wlansec_core::suite::{FrameSuite, Transmitter};

/// `count` data MPDUs with bodies of 0 to 1599 octets, each from one of `stations`.
pub fn random_frames(rng: &mut ChaCha8Rng, stations: u32, count: usize) -> Vec<(u32, Vec<u8>)> {
    (0..count)
        .map(|_| {
            let station = gen::below(rng, u64::from(stations)) as u32;
            let mut mpdu = Vec::new();
            let body = gen::below(rng, 1600) as usize;
            gen::random_mpdu(rng, Shapes { management: false }, body, &mut mpdu);
            (station, mpdu)
        })
        .collect()
}

/// Each frame protected by its station's sequential transmitter: what the engine must give.
pub fn golden_protected<S: FrameSuite>(transmitters: &mut [Transmitter<S>], frames: &[(u32, Vec<u8>)]) -> Vec<Vec<u8>> {
    frames
        .iter()
        .map(|(station, mpdu)| {
            let mut buf = mpdu.clone();
            buf.resize(mpdu.len() + 16, 0);
            let len = transmitters[*station as usize].protect(&mut buf, mpdu.len()).unwrap();
            buf.truncate(len);
            buf
        })
        .collect()
}
