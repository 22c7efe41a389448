//! Michael (IEEE 802.11-2016 12.5.2.3), TKIP's 64-bit MSDU integrity code, and the MIC
//! failure bookkeeping that drives TKIP countermeasures (12.5.2.4).

use crate::wire::MacAddr;

/// Octets of a Michael key and of its MIC.
pub const MICHAEL_LEN: usize = 8;

fn block(l: &mut u32, r: &mut u32) {
    *r ^= l.rotate_left(17);
    *l = l.wrapping_add(*r);
    *r ^= ((*l & 0xff00_ff00) >> 8) | ((*l & 0x00ff_00ff) << 8);
    *l = l.wrapping_add(*r);
    *r ^= l.rotate_left(3);
    *l = l.wrapping_add(*r);
    *r ^= l.rotate_right(2);
    *l = l.wrapping_add(*r);
}

/// Michael over the concatenation of `parts`: each 32-bit little-endian word is folded
/// in, after the message come `0x5A` and zeros to a word boundary plus one zero word.
pub fn michael(key: &[u8; MICHAEL_LEN], parts: &[&[u8]]) -> [u8; MICHAEL_LEN] {
    let mut l = u32::from_le_bytes([key[0], key[1], key[2], key[3]]);
    let mut r = u32::from_le_bytes([key[4], key[5], key[6], key[7]]);
    let mut word = [0u8; 4];
    let mut fill = 0;
    let mut absorb = |byte: u8, l: &mut u32, r: &mut u32| {
        word[fill] = byte;
        fill += 1;
        if fill == 4 {
            *l ^= u32::from_le_bytes(word);
            block(l, r);
            fill = 0;
        }
    };
    for byte in parts.iter().flat_map(|p| p.iter().copied()) {
        absorb(byte, &mut l, &mut r);
    }
    absorb(0x5a, &mut l, &mut r);
    // Zeros up to the end of this word, then one more zero word.
    let zeros = 4 + (4 - (parts.iter().map(|p| p.len()).sum::<usize>() + 1) % 4) % 4;
    for _ in 0..zeros {
        absorb(0, &mut l, &mut r);
    }
    let mut out = [0u8; MICHAEL_LEN];
    out[..4].copy_from_slice(&l.to_le_bytes());
    out[4..].copy_from_slice(&r.to_le_bytes());
    out
}

/// The Michael MIC of an MSDU: over `DA || SA || Priority || 0 0 0 || MSDU`.
pub fn msdu_mic(key: &[u8; MICHAEL_LEN], da: MacAddr, sa: MacAddr, priority: u8, msdu: &[u8]) -> [u8; MICHAEL_LEN] {
    michael(key, &[&da.0, &sa.0, &[priority & 0x0f, 0, 0, 0], msdu])
}

/// What a receiver does after a Michael MIC failure (12.5.2.4).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Countermeasure {
    /// Log it and report it (a supplicant sends an EAPOL-Key Request with Error and MIC set).
    Report,
    /// A second failure within 60 s: stop TKIP traffic for 60 s and rekey.
    Activate,
}

/// MIC failures seen in the last 60 seconds, on a caller-supplied clock.
#[derive(Clone, Debug, Default)]
pub struct MicFailureMonitor {
    last_failure_ms: Option<u64>,
}

impl MicFailureMonitor {
    /// The window in which two failures activate countermeasures.
    pub const WINDOW_MS: u64 = 60_000;

    /// Record a Michael MIC failure at `now_ms` (a monotonic clock in milliseconds).
    pub fn mic_failure(&mut self, now_ms: u64) -> Countermeasure {
        let previous = self.last_failure_ms.replace(now_ms);
        match previous {
            Some(t) if now_ms.saturating_sub(t) < Self::WINDOW_MS => Countermeasure::Activate,
            _ => Countermeasure::Report,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_failures_within_a_minute_activate_countermeasures() {
        let mut m = MicFailureMonitor::default();
        assert_eq!(m.mic_failure(1_000), Countermeasure::Report);
        assert_eq!(m.mic_failure(70_000), Countermeasure::Report);
        assert_eq!(m.mic_failure(129_999), Countermeasure::Activate);
    }

    #[test]
    fn split_input_gives_the_same_mic() {
        let key = [1, 2, 3, 4, 5, 6, 7, 8];
        let msg: Vec<u8> = (0..23).collect();
        assert_eq!(michael(&key, &[&msg]), michael(&key, &[&msg[..5], &msg[5..9], &msg[9..]]));
    }
}
