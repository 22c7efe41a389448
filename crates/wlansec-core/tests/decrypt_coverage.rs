//! Capture decryption accounts for every frame: MSDUs of any 802.2 LLC are written
//! (RFC 1042 SNAP as Ethernet II, any other LLC as an 802.3 length frame), every frame
//! read is written or counted with a reason, and `-b` takes 4-address (WDS) frames by
//! their receiver or transmitter.

use wlansec_core::decrypt::{Decryptor, Keys, OutputForm, Stats};
use wlansec_core::registry::SuiteId;
use wlansec_core::rsn::Secret;
use wlansec_core::suite::Pn;
use wlansec_core::wire::{FrameControl, FrameType, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};

const TK: [u8; 16] = [0x5a; 16];
const AP: MacAddr = MacAddr([2, 0xaa, 0, 0, 0, 1]);
const STA: MacAddr = MacAddr([2, 0xbb, 0, 0, 0, 2]);
const HOST: MacAddr = MacAddr([2, 0xcc, 0, 0, 0, 3]);

/// How a frame travels: from the AP, to the AP, or over a WDS link (4 addresses).
#[derive(Clone, Copy)]
enum Path {
    FromAp { da: MacAddr },
    ToAp { da: MacAddr },
    Wds { ra: MacAddr, ta: MacAddr },
}

fn header(path: Path, seq: u16) -> HeaderRepr {
    let (flags, addr1, addr2, addr3, addr4) = match path {
        Path::FromAp { da } => (FrameControl::FROM_DS, da, AP, HOST, None),
        Path::ToAp { da } => (FrameControl::TO_DS, AP, STA, da, None),
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
    let rules = Rules::default();
    let header = header(path, pn as u16);
    let mut mpdu = vec![0u8; header.header_len() + msdu.len() + 16];
    let h = header.emit(&mut mpdu, rules).unwrap();
    mpdu[h..h + msdu.len()].copy_from_slice(msdu);
    let suite = SuiteId::Ccmp128.keyed(&TK, rules).unwrap();
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
    Keys::Tk(Secret::from_slice(&TK).unwrap())
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
