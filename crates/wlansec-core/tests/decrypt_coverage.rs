//! Capture decryption accounts for every frame: MSDUs of any 802.2 LLC are written
//! (RFC 1042 SNAP as Ethernet II, any other LLC as an 802.3 length frame), every frame
//! read is written or counted with a reason, and `-b` takes 4-address (WDS) frames by
//! their receiver or transmitter. Several keys of each kind are tried per link, and a
//! frame with packet number 0 (the first under a new key) decrypts.

use wlansec_core::decrypt::{Decryptor, Keys, OutputForm, Stats};
use wlansec_core::registry::SuiteId;
use wlansec_core::rsn::Secret;
use wlansec_core::suite::Pn;
use wlansec_core::wire::{FrameControl, FrameType, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};

const TK: [u8; 16] = [0x5a; 16];
const OTHER_TK: [u8; 16] = [0x6b; 16];
const GTK: [u8; 16] = [0x7c; 16];
const AP: MacAddr = MacAddr([2, 0xaa, 0, 0, 0, 1]);
const STA: MacAddr = MacAddr([2, 0xbb, 0, 0, 0, 2]);
const STA2: MacAddr = MacAddr([2, 0xbb, 0, 0, 0, 5]);
const HOST: MacAddr = MacAddr([2, 0xcc, 0, 0, 0, 3]);

/// How a frame travels: from the AP, to the AP (from a station), or over a WDS link.
#[derive(Clone, Copy)]
enum Path {
    FromAp { da: MacAddr },
    ToAp { da: MacAddr },
    ToApFrom { sta: MacAddr },
    Wds { ra: MacAddr, ta: MacAddr },
}

fn header(path: Path, seq: u16) -> HeaderRepr {
    let (flags, addr1, addr2, addr3, addr4) = match path {
        Path::FromAp { da } => (FrameControl::FROM_DS, da, AP, HOST, None),
        Path::ToAp { da } => (FrameControl::TO_DS, AP, STA, da, None),
        Path::ToApFrom { sta } => (FrameControl::TO_DS, AP, sta, HOST, None),
        Path::Wds { ra, ta } => (FrameControl::TO_DS | FrameControl::FROM_DS, ra, ta, HOST, Some(HOST)),
    };
    let mut frame_control = FrameControl::new(FrameType::Data, 8);
    for flag in [FrameControl::TO_DS, FrameControl::FROM_DS] {
        frame_control = frame_control.with_flag(flag, flags & flag != 0);
    }
    HeaderRepr {
        frame_control,
        duration: 0,
        addr1,
        addr2,
        addr3,
        sequence_control: SequenceControl::new(seq, 0),
        addr4,
        qos_control: Some(QosControl(0)),
        ht_control: None,
    }
}

/// A CCMP-128 MPDU under `TK` with packet number `pn`, carrying `msdu`.
fn protected(path: Path, pn: u64, msdu: &[u8]) -> Vec<u8> {
    protected_under(&TK, path, pn, msdu)
}

fn protected_under(tk: &[u8], path: Path, pn: u64, msdu: &[u8]) -> Vec<u8> {
    let rules = Rules::default();
    let header = header(path, pn as u16);
    let mut mpdu = vec![0u8; header.header_len() + msdu.len() + 16];
    let h = header.emit(&mut mpdu, rules).unwrap();
    mpdu[h..h + msdu.len()].copy_from_slice(msdu);
    let suite = SuiteId::Ccmp128.keyed(tk, rules).unwrap();
    let len = suite.encapsulate(&mut mpdu, h + msdu.len(), Pn::new(pn).unwrap(), 0).unwrap();
    mpdu.truncate(len);
    mpdu
}

fn snap(ethertype: u16, payload: &[u8]) -> Vec<u8> {
    [&[0xaa, 0xaa, 0x03, 0, 0, 0][..], &ethertype.to_be_bytes(), payload].concat()
}

fn decrypt(keys: Keys, bssid: Option<MacAddr>, mpdus: &[Vec<u8>]) -> (Vec<Vec<u8>>, Stats) {
    let mut d = Decryptor::new(keys, None, bssid, OutputForm::Ethernet).unwrap();
    let mut out = Vec::new();
    let refs: Vec<&[u8]> = mpdus.iter().map(Vec::as_slice).collect();
    d.process_batch(&refs, |_, f| -> Result<(), ()> {
        out.push(f.to_vec());
        Ok(())
    })
    .unwrap();
    (out, d.stats())
}

fn tk() -> Keys {
    Keys::tk(Secret::from_slice(&TK).unwrap())
}

#[test]
fn every_llc_msdu_is_written_and_every_frame_is_accounted_for() {
    let stp = [&[0x42, 0x42, 0x03][..], &[0u8; 35]].concat();
    let appletalk = [&[0xaa, 0xaa, 0x03, 0x08, 0x00, 0x07, 0x80, 0x9b][..], b"ddp"].concat();
    let too_long = [&[0xe0, 0xe0, 0x03][..], &[7u8; 1500]].concat();
    let mpdus = vec![
        protected(Path::ToAp { da: HOST }, 1, &snap(0x0800, b"ipv4")),
        protected(Path::FromAp { da: STA }, 2, &stp),
        protected(Path::ToAp { da: HOST }, 3, &appletalk),
        protected(Path::FromAp { da: STA }, 4, &too_long),
        protected(Path::FromAp { da: STA }, 5, &[0x42]),
    ];
    let (out, stats) = decrypt(tk(), None, &mpdus);
    let ieee8023 =
        |da: MacAddr, sa: MacAddr, llc: &[u8]| [&da.0[..], &sa.0, &(llc.len() as u16).to_be_bytes(), llc].concat();
    assert_eq!(
        out,
        vec![
            [&HOST.0[..], &STA.0, &[8, 0], b"ipv4"].concat(),
            ieee8023(STA, HOST, &stp),
            ieee8023(HOST, STA, &appletalk),
        ]
    );
    assert_eq!(stats.decrypted(), 5);
    assert_eq!((stats.written, stats.not_written.llc_too_long, stats.not_written.no_llc_header), (3, 1, 1));
    assert_eq!(stats.packets_read, stats.written + stats.not_written.total());
}

#[test]
fn bssid_takes_wds_frames_by_their_receiver_or_transmitter() {
    let mpdus = vec![
        protected(Path::Wds { ra: STA, ta: AP }, 1, &snap(0x0800, b"ap to sta")),
        protected(Path::Wds { ra: AP, ta: STA }, 2, &snap(0x0800, b"sta to ap")),
        protected(Path::ToAp { da: HOST }, 3, &snap(0x0800, b"3 addresses")),
    ];
    let (out, stats) = decrypt(tk(), Some(AP), &mpdus);
    assert_eq!(out.len(), 3, "{stats:?}");
    assert_eq!(&out[1][..12], &[HOST.0, HOST.0].concat()[..]);
    let (out, stats) = decrypt(tk(), Some(MacAddr([2, 0xdd, 0, 0, 0, 4])), &mpdus);
    assert!(out.is_empty());
    assert_eq!(stats.other_network, 3);
}

fn secrets(keys: &[&[u8]]) -> Vec<Secret> {
    keys.iter().map(|k| Secret::from_slice(k).unwrap()).collect()
}

#[test]
fn each_link_takes_the_given_tk_that_opens_its_frames_and_group_frames_a_gtk() {
    let stp = [&[0x42, 0x42, 0x03][..], &[0u8; 35]].concat();
    let mpdus = vec![
        protected_under(&TK, Path::ToApFrom { sta: STA }, 1, &snap(0x0800, b"sta 1")),
        protected_under(&OTHER_TK, Path::ToApFrom { sta: STA2 }, 1, &snap(0x0800, b"sta 2")),
        protected_under(&GTK, Path::FromAp { da: MacAddr([1, 0x80, 0xc2, 0, 0, 0]) }, 1, &stp),
        // A rekey on the first link: its frames now under the other TK.
        protected_under(&OTHER_TK, Path::ToApFrom { sta: STA }, 1, &snap(0x0800, b"sta 1 again")),
    ];
    let keys = Keys { tks: secrets(&[&TK, &OTHER_TK]), gtks: secrets(&[&GTK]), ..Keys::default() };
    let (out, stats) = decrypt(keys, None, &mpdus);
    assert_eq!((out.len(), stats.decrypted(), stats.bad_integrity), (4, 4, 0), "{stats:?}");
    assert_eq!(&out[2][12..14], &38u16.to_be_bytes());
    // One TK alone: the other link's frames fail, group frames have no key.
    let (out, stats) = decrypt(tk(), None, &mpdus);
    assert_eq!((out.len(), stats.bad_integrity, stats.no_group_key), (1, 2, 1));
    // Several GTKs: each transmitter's Key ID takes the one that opens its frames.
    let keys = Keys { tks: secrets(&[&TK]), gtks: secrets(&[&OTHER_TK, &GTK]), ..Keys::default() };
    assert_eq!(decrypt(keys, None, &mpdus[..3]).1.decrypted(), 2);
}

#[test]
fn several_pmks_each_handshake_takes_the_one_that_verifies() {
    use wlansec_core::rsn::{pmk_from_passphrase, CipherSuite};
    use wlansec_core::synth::{generated_traffic, Config, Synth};
    let config = Config {
        stations: 2,
        rekey: true,
        seed: 9,
        ..Config::personal(b"pmks", "the right one", CipherSuite::Ccmp128)
    };
    let synth = Synth::new(config).unwrap();
    let frames = generated_traffic(60, &synth.station_macs(), 9);
    let mpdus: Vec<_> = synth.run(&frames).unwrap().into_iter().map(|r| r.mpdu).collect();
    let pmk = |pass: &str| pmk_from_passphrase(pass, b"pmks").unwrap();
    let keys = Keys {
        pmks: vec![pmk("a wrong passphrase"), pmk("the right one"), pmk("another wrong one")],
        ..Keys::default()
    };
    let (out, stats) = decrypt(keys, None, &mpdus);
    let (alone, _) = decrypt(Keys::pmk(pmk("the right one")), None, &mpdus);
    assert_eq!(out, alone);
    assert!(out.len() >= frames.len(), "{stats:?}");
    assert_eq!(stats.mic_mismatches, 0);
}

#[test]
fn a_first_frame_with_pn_0_decrypts_and_its_repeat_is_a_replay() {
    let first = protected(Path::ToAp { da: HOST }, 0, &snap(0x0800, b"pn 0"));
    let mpdus = vec![first.clone(), protected(Path::ToAp { da: HOST }, 1, &snap(0x0800, b"pn 1")), first];
    let (out, stats) = decrypt(tk(), None, &mpdus);
    assert_eq!(out.len(), 2);
    assert_eq!(&out[0][14..], b"pn 0");
    assert_eq!((stats.decrypted(), stats.replays), (2, 1));
}
