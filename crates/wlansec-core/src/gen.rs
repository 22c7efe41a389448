//! Deterministic random MPDUs of every header shape, for test vectors, interop tests and
//! demos. The same seed gives the same frames on every machine (ChaCha8).

pub use rand_chacha::rand_core::{Rng, SeedableRng};
pub use rand_chacha::ChaCha8Rng;

use crate::wire::{FrameControl, FrameType, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};

/// Largest MSDU an 802.11 data frame carries without A-MSDU.
pub const MAX_MSDU_LEN: usize = 2304;

/// Management subtypes that are robust (protected under MFP): Disassociation,
/// Deauthentication, Action.
const ROBUST_MANAGEMENT_SUBTYPES: [u8; 3] = [10, 12, 13];

/// A uniform integer in `0..n` (n > 0).
pub fn below(rng: &mut impl Rng, n: u64) -> u64 {
    // Multiply-shift: the bias is below 2^-32 for the small ranges used here.
    ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as u64
}

fn coin(rng: &mut impl Rng) -> bool {
    rng.next_u32() & 1 == 1
}

/// A unicast, locally administered address.
pub fn random_mac(rng: &mut impl Rng) -> MacAddr {
    let mut a = [0u8; 6];
    rng.fill_bytes(&mut a);
    a[0] = (a[0] & 0xfc) | 0x02;
    MacAddr(a)
}

/// Which header shapes `random_header` may produce.
#[derive(Clone, Copy, Debug)]
pub struct Shapes {
    /// Robust management frames (Deauthentication, Disassociation, Action).
    pub management: bool,
}

impl Default for Shapes {
    fn default() -> Self {
        Shapes { management: true }
    }
}

/// A random management or data header under the 802.11-2016 rules: all four DS
/// combinations, QoS and non-QoS, HT Control, fragments, and random Retry / Power
/// Management / More Data / More Fragments / Duration / sequence numbers.
pub fn random_header(rng: &mut impl Rng, shapes: Shapes) -> HeaderRepr {
    let management = shapes.management && below(rng, 8) == 0;
    let mut fc = if management {
        let subtype = ROBUST_MANAGEMENT_SUBTYPES[below(rng, 3) as usize];
        FrameControl::new(FrameType::Management, subtype)
    } else {
        let qos = coin(rng);
        let mut fc = FrameControl::new(FrameType::Data, if qos { 8 } else { 0 });
        fc = fc.with_flag(FrameControl::TO_DS, coin(rng));
        fc.with_flag(FrameControl::FROM_DS, coin(rng))
    };
    for bit in
        [FrameControl::RETRY, FrameControl::POWER_MANAGEMENT, FrameControl::MORE_DATA, FrameControl::MORE_FRAGMENTS]
    {
        fc = fc.with_flag(bit, below(rng, 4) == 0);
    }
    let htc = (management || fc.is_qos_data()) && below(rng, 4) == 0;
    fc = fc.with_flag(FrameControl::ORDER, htc);
    let fragment = if below(rng, 4) == 0 { below(rng, 16) as u8 } else { 0 };
    HeaderRepr {
        frame_control: fc,
        duration: rng.next_u32() as u16 & 0x7fff,
        addr1: random_mac(rng),
        addr2: random_mac(rng),
        addr3: random_mac(rng),
        sequence_control: SequenceControl::new(below(rng, 4096) as u16, fragment),
        addr4: fc.has_addr4().then(|| random_mac(rng)),
        qos_control: fc.is_qos_data().then(|| QosControl(rng.next_u32() as u16)),
        ht_control: htc.then(|| rng.next_u32()),
    }
}

/// Append a random MPDU (header from `random_header`, random body of `body_len` octets)
/// to `out`; returns its header.
pub fn random_mpdu(rng: &mut impl Rng, shapes: Shapes, body_len: usize, out: &mut Vec<u8>) -> HeaderRepr {
    let header = random_header(rng, shapes);
    let start = out.len();
    out.resize(start + header.header_len() + body_len, 0);
    let h = header
        .emit(&mut out[start..], Rules::default())
        .expect("random_header builds consistent headers into a buffer sized for them");
    rng.fill_bytes(&mut out[start + h..]);
    header
}
