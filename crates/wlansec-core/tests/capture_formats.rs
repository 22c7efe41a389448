//! pcap / pcapng / radiotap: round trips, hand-built files in the other byte order and
//! resolutions, and truncation or corruption at every length (typed error, never a panic).

use wlansec_core::capture::{pcap, pcapng, radiotap, CaptureError, LinkType, Packet, Reader};
use wlansec_core::Error;

fn packets() -> Vec<(u64, Vec<u8>)> {
    (0..5u8).map(|i| (1_700_000_000_123_456_000 + u64::from(i) * 1000, vec![i; 10 + usize::from(i) * 7])).collect()
}

fn read_all(file: &[u8]) -> Result<Vec<Packet<'_>>, Error> {
    Reader::new(file)?.collect()
}

#[test]
fn pcap_round_trip() {
    let mut w = pcap::Writer::new(Vec::new(), LinkType::Ieee80211).unwrap();
    for (ts, data) in packets() {
        w.write(ts, &data).unwrap();
    }
    let file = w.into_inner();
    let read = read_all(&file).unwrap();
    assert_eq!(read.len(), 5);
    for (p, (ts, data)) in read.iter().zip(packets()) {
        assert_eq!((p.timestamp_ns, p.data, p.link_type), (ts, &data[..], LinkType::Ieee80211));
        assert_eq!(p.mpdu().unwrap(), &data[..]);
    }
}

#[test]
fn pcapng_round_trip() {
    let mut w = pcapng::Writer::new(Vec::new(), LinkType::Ethernet).unwrap();
    for (ts, data) in packets() {
        w.write(ts, &data).unwrap();
    }
    let file = w.into_inner();
    assert_eq!(file.len() % 4, 0);
    let read = read_all(&file).unwrap();
    assert_eq!(read.len(), 5);
    for (p, (ts, data)) in read.iter().zip(packets()) {
        assert_eq!((p.timestamp_ns, p.data, p.link_type), (ts, &data[..], LinkType::Ethernet));
        assert!(p.mpdu().is_err(), "Ethernet packets are not 802.11 frames");
    }
}

/// A big-endian, nanosecond pcap written by hand.
#[test]
fn big_endian_nanosecond_pcap() {
    let mut f = Vec::new();
    f.extend_from_slice(&0xa1b2_3c4du32.to_be_bytes());
    f.extend_from_slice(&2u16.to_be_bytes());
    f.extend_from_slice(&4u16.to_be_bytes());
    f.extend_from_slice(&[0; 8]);
    f.extend_from_slice(&65535u32.to_be_bytes());
    f.extend_from_slice(&127u32.to_be_bytes());
    let rt = radiotap::minimal_header(true);
    let mut pkt = rt.to_vec();
    pkt.extend_from_slice(&[0x08, 0x42, 1, 2, 3, 4]);
    pkt.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    for v in [7u32, 999_999_999, pkt.len() as u32, pkt.len() as u32] {
        f.extend_from_slice(&v.to_be_bytes());
    }
    f.extend_from_slice(&pkt);
    let read = read_all(&f).unwrap();
    assert_eq!(read[0].timestamp_ns, 7_999_999_999);
    assert_eq!(read[0].link_type, LinkType::Radiotap);
    assert_eq!(read[0].mpdu().unwrap(), &[0x08, 0x42, 1, 2, 3, 4], "FCS stripped");
}

fn block(kind: u32, body: &[u8]) -> Vec<u8> {
    let total = (12 + body.len()) as u32;
    let mut b = kind.to_le_bytes().to_vec();
    b.extend_from_slice(&total.to_le_bytes());
    b.extend_from_slice(body);
    b.extend_from_slice(&total.to_le_bytes());
    b
}

/// Two sections, an unknown block, a binary timestamp resolution and a Simple Packet Block.
#[test]
fn pcapng_sections_resolutions_and_simple_packets() {
    let shb = |extra: &[u8]| {
        let mut body = 0x1a2b_3c4du32.to_le_bytes().to_vec();
        body.extend_from_slice(&[1, 0, 0, 0]);
        body.extend_from_slice(&u64::MAX.to_le_bytes());
        body.extend_from_slice(extra);
        block(0x0a0d_0d0a, &body)
    };
    let idb = |link: u16, tsresol: u8| {
        let mut body = link.to_le_bytes().to_vec();
        body.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
        body.extend_from_slice(&[9, 0, 1, 0, tsresol, 0, 0, 0, 0, 0, 0, 0]);
        block(1, &body)
    };
    let epb = |ticks: u64, data: &[u8]| {
        let mut body = 0u32.to_le_bytes().to_vec();
        body.extend_from_slice(&((ticks >> 32) as u32).to_le_bytes());
        body.extend_from_slice(&(ticks as u32).to_le_bytes());
        body.extend_from_slice(&(data.len() as u32).to_le_bytes());
        body.extend_from_slice(&(data.len() as u32).to_le_bytes());
        body.extend_from_slice(data);
        body.resize(body.len().div_ceil(4) * 4, 0);
        block(6, &body)
    };
    let mut f = shb(&[]);
    f.extend(idb(105, 0x80 | 10)); // 2^-10 s
    f.extend(block(0x0bad, &[1, 2, 3, 4]));
    f.extend(epb(1024 * 5 + 512, &[1, 2, 3]));
    f.extend(shb(&[]));
    f.extend(idb(1, 3)); // milliseconds
    let mut spb = 5u32.to_le_bytes().to_vec();
    spb.extend_from_slice(&[9, 9, 9, 9, 9, 0, 0, 0]);
    f.extend(block(3, &spb));
    f.extend(epb(2500, &[4; 8]));
    let read = read_all(&f).unwrap();
    assert_eq!(read.len(), 3);
    assert_eq!(
        (read[0].timestamp_ns, read[0].data, read[0].link_type),
        (5_500_000_000, &[1u8, 2, 3][..], LinkType::Ieee80211)
    );
    assert_eq!((read[1].data, read[1].link_type), (&[9u8; 5][..], LinkType::Ethernet));
    assert_eq!(read[2].timestamp_ns, 2_500_000_000);
}

#[test]
fn radiotap_tsft_alignment_extended_bitmaps_and_bad_fcs() {
    // Present: TSFT + Flags + Ext; a second bitmap word; TSFT at 16 (8-aligned); Flags at 24.
    let mut rt = vec![0u8, 0, 0, 0];
    rt.extend_from_slice(&(1u32 | 2 | 1 << 31).to_le_bytes());
    rt.extend_from_slice(&0u32.to_le_bytes());
    rt.extend_from_slice(&[0; 4]);
    rt.extend_from_slice(&[0xaa; 8]);
    rt.push(radiotap::FLAG_FCS_AT_END);
    let len = rt.len() as u16;
    rt[2..4].copy_from_slice(&len.to_le_bytes());
    let mut pkt = rt.clone();
    pkt.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let view = radiotap::Radiotap::new_checked(&pkt).unwrap();
    assert_eq!(view.header_len(), 25);
    assert_eq!(view.mpdu().unwrap(), &[1, 2, 3, 4]);
    let last = rt.len() - 1;
    pkt[last] = radiotap::FLAG_FCS_AT_END | radiotap::FLAG_BAD_FCS;
    assert_eq!(radiotap::Radiotap::new_checked(&pkt).unwrap().mpdu(), Err(CaptureError::BadFcs.into()));
    pkt[0] = 1;
    assert_eq!(radiotap::Radiotap::new_checked(&pkt).err(), Some(Error::Capture(CaptureError::RadiotapVersion(1))));
    // Without the Flags field there is no FCS to strip.
    let no_flags = [0u8, 0, 8, 0, 0, 0, 0, 0, 0xd4, 0];
    assert_eq!(radiotap::Radiotap::new_checked(&no_flags).unwrap().mpdu().unwrap(), &[0xd4, 0]);
}

/// Every prefix of a valid file either reads a prefix of its packets and then reports
/// a truncated header or record, or (at a record boundary) reads a prefix cleanly. Never a panic.
#[test]
fn truncation_at_every_length_is_a_typed_error() {
    let mut a = pcap::Writer::new(Vec::new(), LinkType::Radiotap).unwrap();
    let mut b = pcapng::Writer::new(Vec::new(), LinkType::Radiotap).unwrap();
    for (ts, data) in packets() {
        let mut pkt = radiotap::minimal_header(true).to_vec();
        pkt.extend_from_slice(&data);
        a.write(ts, &pkt).unwrap();
        b.write(ts, &pkt).unwrap();
    }
    for file in [a.into_inner(), b.into_inner()] {
        let full = read_all(&file).unwrap().len();
        for cut in 0..file.len() {
            let prefix = &file[..cut];
            let mut count = 0;
            let mut error = None;
            match Reader::new(prefix) {
                Err(e) => error = Some(e),
                Ok(reader) => {
                    for p in reader {
                        match p {
                            Ok(p) => {
                                let _ = p.mpdu();
                                count += 1;
                            }
                            Err(e) => error = Some(e),
                        }
                    }
                }
            }
            assert!(count < full);
            if let Some(e) = error {
                assert!(
                    matches!(
                        e,
                        Error::Capture(CaptureError::TruncatedHeader { .. } | CaptureError::TruncatedRecord { .. })
                    ),
                    "cut {cut}: {e}"
                );
            }
        }
    }
}

/// Random corruption of a valid file: whatever comes out, no panic.
#[test]
fn corrupted_files_never_panic() {
    let mut w = pcapng::Writer::new(Vec::new(), LinkType::Radiotap).unwrap();
    for (ts, data) in packets() {
        w.write(ts, &data).unwrap();
    }
    let file = w.into_inner();
    let mut state = 0x1234_5678u32;
    for _ in 0..5000 {
        let mut f = file.clone();
        for _ in 0..3 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let i = state as usize % f.len();
            f[i] = (state >> 8) as u8;
        }
        if let Ok(reader) = Reader::new(&f) {
            for p in reader.flatten() {
                let _ = p.mpdu();
            }
        }
    }
}

#[test]
fn not_a_capture_file() {
    assert!(matches!(Reader::new(b"GIF89a..."), Err(Error::Capture(CaptureError::BadMagic { magic: 0x4749_4638 }))));
    assert!(matches!(Reader::new(b"\xd4\xc3"), Err(Error::Capture(CaptureError::TruncatedHeader { .. }))));
}

// A trailing FCS the link type leaves unsaid (Prism, AVS, PPI without 802.11-Common, plain
// 802.11): the reader finds it by its CRC and cuts it.

/// `n` protected data frames of varied lengths and contents.
fn frames_80211(n: usize, seed: u32) -> Vec<Vec<u8>> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    (0..n)
        .map(|i| {
            let mut f = vec![0x08, 0x41, 0x2c, 0];
            f.extend((0..20 + (next() as usize % 1500)).map(|_| next() as u8));
            f[22] = i as u8;
            f
        })
        .collect()
}

fn with_fcs(frame: &[u8]) -> Vec<u8> {
    [frame, &radiotap::fcs(frame)].concat()
}

fn prism_header() -> Vec<u8> {
    let mut h = vec![0u8; 144];
    h[..4].copy_from_slice(&0x44u32.to_le_bytes());
    h[4..8].copy_from_slice(&144u32.to_le_bytes());
    h
}

fn avs_header() -> Vec<u8> {
    let mut h = vec![0u8; 64];
    h[..4].copy_from_slice(&0x8021_1001u32.to_be_bytes());
    h[4..8].copy_from_slice(&64u32.to_be_bytes());
    h
}

/// A PPI header without an 802.11-Common field (nothing said of an FCS).
fn ppi_header() -> Vec<u8> {
    [&[0u8, 0, 8, 0][..], &105u32.to_le_bytes()].concat()
}

/// The link types that leave an FCS unsaid, each with the header put in front of a frame.
fn unsaid_links() -> Vec<(&'static str, LinkType, Vec<u8>)> {
    vec![
        ("802.11", LinkType::Ieee80211, vec![]),
        ("Prism", LinkType::Prism, prism_header()),
        ("AVS under Prism", LinkType::Prism, avs_header()),
        ("AVS", LinkType::Avs, avs_header()),
        ("PPI", LinkType::Ppi, ppi_header()),
    ]
}

fn capture(link: LinkType, ng: bool, packets: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    if ng {
        let mut w = pcapng::Writer::new(&mut out, link).unwrap();
        packets.iter().for_each(|p| w.write(0, p).unwrap());
    } else {
        let mut w = pcap::Writer::new(&mut out, link).unwrap();
        packets.iter().for_each(|p| w.write(0, p).unwrap());
    }
    out
}

fn mpdus(file: &[u8]) -> Vec<Vec<u8>> {
    read_all(file).unwrap().iter().map(|p| p.mpdu().unwrap().to_vec()).collect()
}

#[test]
fn an_unsaid_trailing_fcs_is_found_by_its_crc_and_cut() {
    let frames = frames_80211(60, 7);
    for (name, link, header) in unsaid_links() {
        for ng in [false, true] {
            let plain: Vec<Vec<u8>> = frames.iter().map(|f| [&header[..], f].concat()).collect();
            let fcs: Vec<Vec<u8>> = frames.iter().map(|f| [&header[..], &with_fcs(f)].concat()).collect();
            assert_eq!(mpdus(&capture(link, ng, &fcs)), frames, "{name} with FCS (pcapng {ng})");
            assert_eq!(mpdus(&capture(link, ng, &plain)), frames, "{name} without FCS (pcapng {ng})");
            // Frames with and without, interleaved (a merged capture): each is checked.
            let mixed: Vec<Vec<u8>> =
                (0..frames.len()).map(|i| if i % 3 == 0 { fcs[i].clone() } else { plain[i].clone() }).collect();
            assert_eq!(mpdus(&capture(link, ng, &mixed)), frames, "{name} mixed (pcapng {ng})");
            // Packet::data loses the FCS too (and orig_len with it).
            let file = capture(link, ng, &fcs);
            let read = read_all(&file).unwrap();
            assert!(read.iter().zip(&plain).all(|(p, want)| p.data == &want[..] && p.orig_len as usize == want.len()));
        }
    }
}

#[test]
fn a_frame_not_ending_in_its_crc_is_taken_whole() {
    let frames = frames_80211(40, 9);
    for (name, link, header) in unsaid_links() {
        // Captures without FCS whose frames end in four octets that are almost their CRC.
        let near: Vec<Vec<u8>> = frames
            .iter()
            .map(|f| {
                let mut f = with_fcs(f);
                let last = f.len() - 1;
                f[last] ^= 0x80;
                [&header[..], &f].concat()
            })
            .collect();
        let want: Vec<Vec<u8>> = near.iter().map(|p| p[header.len()..].to_vec()).collect();
        assert_eq!(mpdus(&capture(link, false, &near)), want, "{name}");
        // Frames too short to hold an FCS are left as they are; a snapped frame is not cut.
        let short = [&header[..], &[0xd4, 0, 0, 0, 1, 2, 3, 4, 5, 6]].concat();
        assert_eq!(mpdus(&capture(link, false, std::slice::from_ref(&short)))[0], &short[header.len()..], "{name}");
    }
    // A snapped packet keeps its octets (its mpdu is an error anyway).
    let mut w = pcap::Writer::new(Vec::new(), LinkType::Prism).unwrap();
    w.write(0, &[&prism_header()[..], &with_fcs(&frames[0])].concat()).unwrap();
    let mut file = w.into_inner();
    let orig = u32::from_le_bytes(file[36..40].try_into().unwrap());
    file[36..40].copy_from_slice(&(orig + 1).to_le_bytes());
    let read = read_all(&file).unwrap();
    assert_eq!(read[0].data.len() as u32, orig);
    assert!(matches!(read[0].mpdu(), Err(Error::Capture(CaptureError::Snapped { .. }))));
}

/// Frames a forger sends at the start of a capture without FCS, each ending in its own CRC,
/// have their four octets cut, but no genuine frame after them loses any: an FCS is cut only
/// where it checks.
#[test]
fn frames_ending_in_their_own_crc_do_not_make_later_frames_lose_octets() {
    let forged: Vec<Vec<u8>> = frames_80211(16, 3).iter().map(|f| with_fcs(f)).collect();
    let genuine = frames_80211(40, 5);
    for (name, link, header) in unsaid_links() {
        let packets: Vec<Vec<u8>> = forged.iter().chain(&genuine).map(|f| [&header[..], f].concat()).collect();
        let read = mpdus(&capture(link, false, &packets));
        assert_eq!(read[16..], genuine[..], "{name}");
    }
}

/// A capture found with FCSs keeps being read so when it arrives through a pipe in pieces:
/// the decision carries from one run of records to the next.
#[test]
fn a_streamed_capture_cuts_the_same_fcs() {
    struct Trickle(Vec<u8>, usize);
    impl std::io::Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(700).min(self.0.len() - self.1);
            buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
            self.1 += n;
            Ok(n)
        }
    }
    #[derive(Debug)]
    #[allow(dead_code)] // read by Debug when a test fails
    enum Failed {
        Capture(Error),
        Io(std::io::Error),
    }
    impl From<Error> for Failed {
        fn from(e: Error) -> Self {
            Failed::Capture(e)
        }
    }
    impl From<std::io::Error> for Failed {
        fn from(e: std::io::Error) -> Self {
            Failed::Io(e)
        }
    }
    let frames = frames_80211(80, 11);
    for (name, link, header) in unsaid_links() {
        for wrap in [with_fcs as fn(&[u8]) -> Vec<u8>, <[u8]>::to_vec] {
            let file =
                capture(link, true, &frames.iter().map(|f| [&header[..], &wrap(f)].concat()).collect::<Vec<_>>());
            let mut stream = wlansec_core::capture::Stream::open::<Failed>(Trickle(file, 0)).unwrap();
            let mut got = Vec::new();
            stream
                .for_each_run::<Failed>(|r| {
                    got.extend(r.map(|p| p.unwrap().mpdu().unwrap().to_vec()));
                    Ok(())
                })
                .unwrap();
            assert_eq!(got, frames, "{name}");
        }
    }
}
