//! Parse and decrypt arbitrary bytes as a protected MPDU, under both editions' rules; and
//! protect arbitrary bytes as a plaintext MPDU, then check the round trip. Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wlansec_core::suite::{Ccmp128, FrameSuite, Pn, Receiver};
use wlansec_core::wire::{Frame, HeaderRepr, Rules};

const TK: [u8; 16] = *b"wlansec-fuzz-key";

fuzz_target!(|data: &[u8]| {
    let Some((&selector, mpdu)) = data.split_first() else { return };
    let rules = if selector & 1 == 0 { Rules::IEEE80211_2016 } else { Rules::IEEE80211I_2004 };
    if let Ok(frame) = Frame::new_checked(mpdu, rules) {
        if let Ok(repr) = HeaderRepr::parse(&frame) {
            let mut header = [0u8; 64];
            let len = repr.emit(&mut header, rules).expect("a parsed header emits");
            assert_eq!(&header[..len], frame.header());
        }
    }

    let suite = Ccmp128::new(&TK).unwrap().with_rules(rules);
    let mut received = mpdu.to_vec();
    let _ = Receiver::new(Ccmp128::new(&TK).unwrap().with_rules(rules)).unprotect(&mut received);

    let mut buf = mpdu.to_vec();
    buf.resize(mpdu.len() + suite.overhead(), 0);
    if let Ok(len) = suite.encapsulate(&mut buf, mpdu.len(), Pn::new(1).unwrap(), selector & 3) {
        let done = suite.decapsulate(&mut buf[..len]).expect("what we protect, we open");
        assert_eq!(&buf[2..done.mpdu_len], &mpdu[2..]);
    }
});
