//! Writes the seed inputs of every fuzz target from the project's own frames: synthetic
//! captures of every suite (`wlansec synth`'s generator), frames protected under the
//! targets' keys, real handshakes and a real association on the emulated WLAN. The seeds
//! are then minimised into fuzz/corpus/<target>/ with `cargo fuzz cmin` (fuzz/README.md).
//!
//! `cargo run --manifest-path fuzz/Cargo.toml --example seed_corpus -- OUT_DIR`

use std::path::PathBuf;

use wlansec_core::capture::{radiotap, Format, LinkType, Writer};
use wlansec_core::gen::{random_mpdu, ChaCha8Rng, SeedableRng, Shapes};
use wlansec_core::registry::SuiteId;
use wlansec_core::rsn::element::{ElementKind, KeyDataBuilder};
use wlansec_core::rsn::{Akm, CipherSuite, RsnElementRepr};
use wlansec_core::rx::{classify, Class};
use wlansec_core::suite::{BipAlgorithm, Igtk, Pn, PnCounter, Transmitter};
use wlansec_core::synth::{generated_traffic, Config, Synth};
use wlansec_core::wire::mgmt::{self, ManagementBody};
use wlansec_core::wire::{llc, Frame, MacAddr, Rules, SequenceControl};
use wlansec_fuzz::core_targets::{self as targets, GTK, IGTK, SYNTH_PASSPHRASE, SYNTH_SSID, TK};

fn main() {
    let out = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "fuzz/work/seeds".into()));
    let mut seeds = Seeds { out, count: 0 };
    for (i, cipher) in [
        CipherSuite::Ccmp128,
        CipherSuite::Ccmp256,
        CipherSuite::Gcmp128,
        CipherSuite::Gcmp256,
        CipherSuite::Tkip,
        CipherSuite::Wep40,
        CipherSuite::Wep104,
    ]
    .into_iter()
    .enumerate()
    {
        synth_capture(&mut seeds, i, cipher);
    }
    protected_frames(&mut seeds);
    handshakes(&mut seeds);
    associations(&mut seeds);
    ibss_meetings(&mut seeds);
    eprintln!("{} seeds in {}", seeds.count, seeds.out.display());
}

struct Seeds {
    out: PathBuf,
    count: usize,
}

impl Seeds {
    fn write(&mut self, target: &str, data: &[u8]) {
        let dir = self.out.join(target);
        std::fs::create_dir_all(&dir).expect("a writable seed directory");
        self.count += 1;
        std::fs::write(dir.join(format!("seed-{:04}", self.count)), data).expect("a writable seed");
    }
}

/// The stream framing of [`wlansec_fuzz::input::frames`], after a selector octet.
fn stream<'a>(selector: u8, frames: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut out = vec![selector];
    for frame in frames {
        out.extend_from_slice(&(frame.len() as u16).to_be_bytes());
        out.extend_from_slice(frame);
    }
    out
}

fn capture(format: Format, link: LinkType, mpdus: &[&[u8]]) -> Vec<u8> {
    let mut writer = Writer::new(Vec::new(), link, format).expect("a capture writer");
    for (i, mpdu) in mpdus.iter().enumerate() {
        let packet = match link {
            LinkType::Radiotap => [&radiotap::minimal_header(true)[..], mpdu, &radiotap::fcs(mpdu)].concat(),
            _ => mpdu.to_vec(),
        };
        writer.write(i as u64 * 1000, &packet).expect("written to memory");
    }
    writer.finish().expect("written to memory")
}

/// A synthetic capture of one suite, cut into the seeds of the parsers and the decryptor.
fn synth_capture(seeds: &mut Seeds, index: usize, cipher: CipherSuite) {
    let wep_key = match cipher {
        CipherSuite::Wep40 => Some(TK[..5].to_vec()),
        CipherSuite::Wep104 => Some(TK[..13].to_vec()),
        _ => None,
    };
    let config = Config {
        wep_key,
        stations: 1 + index % 2,
        rekey: index == 0,
        fragment_every: if index == 1 { 2 } else { 0 },
        fragment_size: 256,
        seed: index as u64,
        ..Config::personal(SYNTH_SSID, SYNTH_PASSPHRASE, cipher)
    };
    let synth = Synth::new(config).expect("a valid synth configuration");
    let traffic = generated_traffic(10, &synth.station_macs(), index as u64);
    let records = synth.run(&traffic).expect("a synthetic capture");
    let mpdus: Vec<&[u8]> = records.iter().map(|r| r.mpdu.as_slice()).collect();
    let selector = index as u8;
    seeds.write("decryptor", &stream(selector, mpdus.iter().copied()));
    let short = &mpdus[..mpdus.len().min(12)];
    for format in [Format::Pcap, Format::Pcapng] {
        let target = if format == Format::Pcap { "pcap" } else { "pcapng" };
        seeds.write(target, &capture(format, LinkType::Ieee80211, short));
        seeds.write(target, &capture(format, LinkType::Radiotap, &short[..3]));
    }
    for mpdu in &mpdus {
        seeds.write("frame", &[&[selector & 1][..], mpdu].concat());
        let rules = Rules::default();
        match classify(mpdu, rules) {
            Ok(Class::Management { .. }) => management(seeds, mpdu),
            Ok(Class::Data(_)) => {
                let frame = Frame::new_checked(*mpdu, rules).expect("a classified frame");
                let body = frame.body();
                if let Some(eapol) = body.get(llc::SNAP_HEADER_LEN..).filter(|_| llc::parse_snap(body) == Ok(0x888e)) {
                    seeds.write("eapol_key", eapol);
                }
            }
            _ => {}
        }
    }
    seeds.write("radiotap", &[&radiotap::minimal_header(true)[..], mpdus[0], &radiotap::fcs(mpdus[0])].concat());
    seeds.write("radiotap", &[&radiotap::minimal_header(false)[..], mpdus[1]].concat());
    // MSDUs: the Ethernet frames themselves, and an A-MSDU of them.
    let mut amsdu = Vec::new();
    for ethernet in traffic.iter().take(3) {
        seeds.write("msdu", ethernet);
        let mut msdu = vec![0u8; ethernet.len() + llc::SNAP_HEADER_LEN];
        let (repr, len) = llc::ethernet_to_msdu(ethernet, &mut msdu).expect("Ethernet II traffic");
        amsdu.resize(amsdu.len().next_multiple_of(4), 0);
        amsdu.extend_from_slice(&repr.dst.0);
        amsdu.extend_from_slice(&repr.src.0);
        amsdu.extend_from_slice(&(len as u16).to_be_bytes());
        amsdu.extend_from_slice(&msdu[..len]);
    }
    seeds.write("msdu", &amsdu);
}

/// A management frame's body (selector: its subtype) and its elements.
fn management(seeds: &mut Seeds, mpdu: &[u8]) {
    let frame = Frame::new_checked(mpdu, Rules::default()).expect("a classified frame");
    let subtype = frame.frame_control().subtype();
    seeds.write("mgmt", &[&[subtype][..], frame.body()].concat());
    if let Ok(body) = ManagementBody::parse(subtype, frame.body()) {
        for element in body.elements().iter().flat_map(|e| e.iter()).flatten() {
            seeds.write("rsn_element", element.as_bytes());
        }
    }
}

/// Frames protected under the targets' keys: every suite for `unprotect` and
/// `rx_pipeline`, every BIP algorithm for `bip`; key data for `rsn_element`.
fn protected_frames(seeds: &mut Seeds) {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    for (index, suite) in SuiteId::ALL.iter().enumerate() {
        let selector = (index as u8) << 4;
        assert_eq!(targets::suite_of(selector), *suite);
        let rules = targets::rules_of(selector);
        let keyed = suite.keyed(&TK[..suite.key_len()], rules).expect("a key of the suite's length");
        let mut tx = Transmitter::new(keyed, 0).with_pn_counter(PnCounter::starting_at(1));
        let mut stream_frames = Vec::new();
        for body_len in [0, 40, 300] {
            let mut mpdu = Vec::new();
            random_mpdu(&mut rng, Shapes { management: false }, body_len, &mut mpdu);
            seeds.write("unprotect", &[&[selector][..], &mpdu].concat());
            let len = mpdu.len();
            mpdu.resize(len + tx.suite().overhead(), 0);
            if let Ok(len) = tx.protect(&mut mpdu, len) {
                mpdu.truncate(len);
                seeds.write("unprotect", &[&[selector][..], &mpdu].concat());
                stream_frames.push(mpdu);
            }
        }
        seeds.write("rx_pipeline", &stream(selector, stream_frames.iter().map(Vec::as_slice)));
    }
    let deauth = ManagementBody::Deauthentication(mgmt::DeauthenticationRepr { reason: mgmt::REASON_LEAVING });
    let broadcast = MacAddr([0xff; 6]);
    let mpdu = deauth.to_mpdu(broadcast, targets::AA, targets::AA, SequenceControl::new(1, 0)).expect("a frame");
    for (index, algorithm) in BipAlgorithm::ALL.iter().enumerate() {
        let igtk = Igtk::new(*algorithm, 4, &IGTK[..algorithm.key_len()]).expect("a key of the algorithm's length");
        let mut buf = mpdu.clone();
        buf.resize(mpdu.len() + igtk.overhead(), 0);
        let len = igtk.protect(&mut buf, mpdu.len(), Pn::new(7).unwrap()).expect("a protectable frame");
        seeds.write("bip", &[&[index as u8][..], &buf[..len]].concat());
    }
    let rsne = RsnElementRepr::personal(CipherSuite::Ccmp128, CipherSuite::Ccmp128, Akm::Psk)
        .to_bytes(ElementKind::Rsn)
        .expect("a valid element");
    let key_data = KeyDataBuilder::new()
        .element(&rsne)
        .gtk(1, true, &GTK[..16])
        .and_then(|b| b.igtk(4, 1, &IGTK[..16]))
        .expect("valid KDEs")
        .build();
    seeds.write("rsn_element", &key_data);
}

/// The handshake target's steps (first octet) for whole 4-way and group key handshakes,
/// on each of its parameter sets.
fn handshakes(seeds: &mut Seeds) {
    let (to_supplicant, to_authenticator, rekey) = ([0u8], [1u8], [7u8, 0]);
    let steps: [&[u8]; 7] = [
        &to_supplicant,
        &to_authenticator,
        &to_supplicant,
        &to_authenticator,
        &rekey,
        &to_supplicant,
        &to_authenticator,
    ];
    for selector in 0..4 {
        seeds.write("handshake", &stream(selector, steps));
    }
}

/// The wlan_intake target's steps for an association and a first data frame each way, on
/// each network it knows.
fn associations(seeds: &mut Seeds) {
    let ethernet = generated_traffic(1, &[wlansec_fuzz::wlan_targets::STATION], 1).remove(0);
    let to_ap = [&[5u8][..], &ethernet].concat();
    let to_station = [&[13u8][..], &ethernet].concat();
    for selector in [0u8, 1, 2, 3, 4, 8] {
        let mut steps: Vec<&[u8]> = Vec::new();
        for _ in 0..8 {
            steps.extend([&[0u8][..], &[1u8][..]]);
        }
        steps.extend([&to_ap[..], &[0u8][..], &to_station[..], &[1u8][..], &[4u8][..]]);
        seeds.write("wlan_intake", &stream(selector, steps));
    }
}

/// The ibss_intake target's steps for two stations meeting (beacons, both 4-way handshakes)
/// and a first data frame each way, on each network it knows.
fn ibss_meetings(seeds: &mut Seeds) {
    use wlansec_fuzz::wlan_targets::{PEER, STATION};
    let a_to_b = generated_traffic(1, &[STATION], 1).remove(0);
    let b_to_a = generated_traffic(1, &[PEER], 1).remove(0);
    let from_a = [&[5u8][..], &a_to_b].concat();
    let from_b = [&[13u8][..], &b_to_a].concat();
    for selector in [0u8, 1, 2, 3, 4] {
        let mut steps: Vec<&[u8]> = Vec::new();
        for _ in 0..12 {
            steps.extend([&[0u8][..], &[1u8][..]]);
        }
        steps.extend([&from_a[..], &[0u8][..], &from_b[..], &[1u8][..], &[4u8][..]]);
        seeds.write("ibss_intake", &stream(selector, steps));
    }
}
