use super::*;
use crate::error::Error;

#[test]
fn writer_output_reads_back_in_both_formats() {
    let packets: [(u64, &[u8]); 3] = [
        (1_700_000_000_000_001_000, &[0x08, 0x42, 1]),
        (1_700_000_000_500_000_000, &[]),
        (1_700_000_001_000_000_000, &[7; 61]),
    ];
    for format in [Format::Pcap, Format::Pcapng] {
        let mut writer = Writer::new(Vec::new(), LinkType::Ieee80211, format).unwrap();
        for (ts, data) in packets {
            writer.write(ts, data).unwrap();
        }
        let file = writer.finish().unwrap();
        assert_eq!(Format::detect(&file).unwrap(), format);
        let read: Vec<Packet> = Reader::new(&file).unwrap().collect::<Result<_>>().unwrap();
        let got: Vec<(u64, &[u8], LinkType)> = read.iter().map(|p| (p.timestamp_ns, p.data, p.link_type)).collect();
        let want: Vec<(u64, &[u8], LinkType)> = packets.iter().map(|&(ts, d)| (ts, d, LinkType::Ieee80211)).collect();
        assert_eq!(got, want, "{format:?}");
    }
}

// Damaged files, one per `CaptureError` variant: each must give exactly that variant.

/// A file of one 10-octet packet `[0xd4; 10]` (pcap: the record at 24, its data at 40;
/// pcapng: section header at 0, interface description at 28 with its if_tsresol option at
/// 44, enhanced packet block at 60 of 44 octets).
fn file(format: Format, link: LinkType, packet: &[u8]) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), link, format).unwrap();
    w.write(1_700_000_000_000_000_000, packet).unwrap();
    w.finish().unwrap()
}

fn pcap_file() -> Vec<u8> {
    file(Format::Pcap, LinkType::Ieee80211, &[0xd4; 10])
}

fn pcapng_file() -> Vec<u8> {
    file(Format::Pcapng, LinkType::Ieee80211, &[0xd4; 10])
}

fn put_u32(file: &mut [u8], at: usize, value: u32) {
    file[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// The first error reading `file` to its end, taking the MPDU out of every packet.
fn first_error(file: &[u8]) -> CaptureError {
    let error = Reader::new(file)
        .and_then(|reader| reader.map(|p| p.and_then(|p| p.mpdu().map(|_| ()))).collect::<Result<Vec<()>>>())
        .expect_err("the damaged file read cleanly");
    let Error::Capture(e) = error else { panic!("not a capture error: {error:?}") };
    assert!(Error::Capture(e.clone()).to_string().starts_with("capture file: "));
    e
}

#[test]
fn truncated_header() {
    use CaptureError::TruncatedHeader;
    assert_eq!(first_error(b"\xd4\xc3"), TruncatedHeader { what: "capture file header", needed: 4, got: 2 });
    assert_eq!(first_error(&pcap_file()[..10]), TruncatedHeader { what: "pcap file header", needed: 24, got: 10 });
    assert_eq!(first_error(&pcapng_file()[..8]), TruncatedHeader { what: "pcapng section header", needed: 12, got: 8 });
}

#[test]
fn bad_magic() {
    assert_eq!(first_error(b"GIF89a..."), CaptureError::BadMagic { magic: 0x4749_4638 });
    let err = pcapng::Reader::new(&pcap_file()).err().unwrap();
    assert_eq!(err, Error::Capture(CaptureError::BadMagic { magic: 0xd4c3_b2a1 }));
    let err = pcap::Reader::new(&pcapng_file()).err().unwrap();
    assert_eq!(err, Error::Capture(CaptureError::BadMagic { magic: 0x0a0d_0d0a }));
}

#[test]
fn pcap_version() {
    let mut f = pcap_file();
    f[4] = 3;
    assert_eq!(first_error(&f), CaptureError::PcapVersion { major: 3, minor: 4 });
}

#[test]
fn truncated_record() {
    let f = pcap_file();
    assert_eq!(first_error(&f[..24 + 5]), CaptureError::TruncatedRecord { offset: 24, needed: 16, got: 5 });
    assert_eq!(first_error(&f[..f.len() - 3]), CaptureError::TruncatedRecord { offset: 24, needed: 26, got: 23 });
    let g = pcapng_file();
    assert_eq!(first_error(&g[..g.len() - 4]), CaptureError::TruncatedRecord { offset: 60, needed: 44, got: 40 });
    assert_eq!(first_error(&g[..62]), CaptureError::TruncatedRecord { offset: 60, needed: 4, got: 2 });
    assert_eq!(first_error(&g[..20]), CaptureError::TruncatedRecord { offset: 0, needed: 28, got: 20 });
}

#[test]
fn record_too_long() {
    let mut f = pcap_file();
    put_u32(&mut f, 24 + 8, pcap::MAX_RECORD_LEN + 1);
    assert_eq!(
        first_error(&f),
        CaptureError::RecordTooLong { offset: 24, length: pcap::MAX_RECORD_LEN + 1, max: pcap::MAX_RECORD_LEN }
    );
}

#[test]
fn bad_byte_order_magic() {
    let mut f = pcapng_file();
    f[8] = 0xee;
    assert_eq!(first_error(&f), CaptureError::BadByteOrderMagic { offset: 0, magic: 0xee3c_2b1a });
    // A second section with a bad magic, after the packet.
    let mut g = pcapng_file();
    let second = g.len();
    g.extend_from_slice(&f[..28]);
    assert_eq!(first_error(&g), CaptureError::BadByteOrderMagic { offset: second, magic: 0xee3c_2b1a });
}

#[test]
fn bad_block_length() {
    for length in [13, 8, 32 * 1024 * 1024] {
        let mut f = pcapng_file();
        put_u32(&mut f, 64, length);
        assert_eq!(first_error(&f), CaptureError::BadBlockLength { offset: 60, length });
    }
}

#[test]
fn block_trailer_mismatch() {
    let mut f = pcapng_file();
    let end = f.len();
    put_u32(&mut f, end - 4, 48);
    assert_eq!(first_error(&f), CaptureError::BlockTrailerMismatch { offset: 60, length: 44, trailer: 48 });
}

#[test]
fn block_too_short() {
    // Packet data past the end of the block body.
    let mut f = pcapng_file();
    put_u32(&mut f, 80, 200);
    assert_eq!(first_error(&f), CaptureError::BlockTooShort { offset: 60, kind: 6, needed: 220, got: 32 });
    // An interface description whose body cannot hold its link type and snap length.
    let mut g = pcapng_file()[..28].to_vec();
    g.extend_from_slice(&[1, 0, 0, 0, 16, 0, 0, 0, 105, 0, 0, 0, 16, 0, 0, 0]);
    assert_eq!(first_error(&g), CaptureError::BlockTooShort { offset: 28, kind: 1, needed: 8, got: 4 });
}

#[test]
fn option_overrun() {
    let mut f = pcapng_file();
    f[46] = 100;
    assert_eq!(first_error(&f), CaptureError::OptionOverrun { offset: 44, code: 9, length: 100 });
}

#[test]
fn bad_timestamp_resolution() {
    let mut f = pcapng_file();
    f[48] = 0x7f; // 10^127 ticks a second
    assert_eq!(first_error(&f), CaptureError::BadTimestampResolution { offset: 44, value: Some(0x7f) });
    let mut g = pcapng_file();
    g[46] = 0; // if_tsresol with no value
    assert_eq!(first_error(&g), CaptureError::BadTimestampResolution { offset: 44, value: None });
}

#[test]
fn unknown_interface() {
    let mut f = pcapng_file();
    put_u32(&mut f, 68, 1);
    assert_eq!(first_error(&f), CaptureError::UnknownInterface { offset: 60, id: 1 });
}

#[test]
fn snapped() {
    let mut f = pcap_file();
    put_u32(&mut f, 24 + 12, 1500);
    assert_eq!(first_error(&f), CaptureError::Snapped { captured: 10, original: 1500 });
}

#[test]
fn unsupported_link_type() {
    let f = file(Format::Pcapng, LinkType::Ethernet, &[0; 14]);
    assert_eq!(first_error(&f), CaptureError::UnsupportedLinkType(1));
    let g = file(Format::Pcap, LinkType::Other(228), &[0x45; 20]);
    assert_eq!(first_error(&g), CaptureError::UnsupportedLinkType(228));
}

fn radiotap_file(packet: &[u8]) -> Vec<u8> {
    file(Format::Pcap, LinkType::Radiotap, packet)
}

#[test]
fn radiotap_version() {
    assert_eq!(first_error(&radiotap_file(&[1, 0, 8, 0, 0, 0, 0, 0, 0xd4, 0])), CaptureError::RadiotapVersion(1));
}

#[test]
fn radiotap_too_short() {
    use CaptureError::RadiotapTooShort;
    // Shorter than the fixed header; an announced length past the packet; an extended
    // present bitmap past the announced length; the Flags field past it.
    assert_eq!(first_error(&radiotap_file(&[0, 0, 8, 0, 0])), RadiotapTooShort { needed: 8, got: 5 });
    assert_eq!(
        first_error(&radiotap_file(&[0, 0, 20, 0, 0, 0, 0, 0, 0xd4, 0])),
        RadiotapTooShort { needed: 20, got: 10 }
    );
    assert_eq!(
        first_error(&radiotap_file(&[0, 0, 8, 0, 0, 0, 0, 0x80, 0xd4, 0])),
        RadiotapTooShort { needed: 12, got: 8 }
    );
    assert_eq!(first_error(&radiotap_file(&[0, 0, 8, 0, 2, 0, 0, 0, 0xd4, 0])), RadiotapTooShort { needed: 9, got: 8 });
}

#[test]
fn bad_fcs_data_padding_and_no_room_for_fcs() {
    let with_flags = |flags: u8, frame: &[u8]| {
        let mut p = radiotap::minimal_header(false).to_vec();
        p[8] = flags;
        p.extend_from_slice(frame);
        radiotap_file(&p)
    };
    let fcs = radiotap::FLAG_FCS_AT_END;
    assert_eq!(first_error(&with_flags(fcs | radiotap::FLAG_BAD_FCS, &[0xd4; 14])), CaptureError::BadFcs);
    assert_eq!(first_error(&with_flags(radiotap::FLAG_DATA_PAD, &[0xd4; 14])), CaptureError::RadiotapDataPadding);
    assert_eq!(first_error(&with_flags(fcs, &[0xd4, 0])), CaptureError::NoRoomForFcs { got: 2 });
}

/// A source that gives at most `step` octets per read, as a pipe fed in small writes does.
struct Trickle<'a> {
    bytes: &'a [u8],
    step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Each packet read (time, link type, octets), and the error that ended the reading.
type ReadOut = (Vec<(u64, LinkType, Vec<u8>)>, Option<Error>);

/// What reading `file` whole gives.
fn read_whole(file: &[u8]) -> ReadOut {
    let mut packets = Vec::new();
    let mut error = None;
    match Reader::new(file) {
        Ok(mut reader) => collect(&mut reader, &mut packets, &mut error),
        Err(e) => error = Some(e),
    }
    (packets, error)
}

fn collect(reader: &mut Reader<'_>, packets: &mut Vec<(u64, LinkType, Vec<u8>)>, error: &mut Option<Error>) {
    for p in reader {
        match p {
            Ok(p) => packets.push((p.timestamp_ns, p.link_type, p.data.to_vec())),
            Err(e) => *error = Some(e),
        }
    }
}

/// The same, through a [`Stream`] fed `step` octets per read.
fn read_streamed(file: &[u8], step: usize) -> ReadOut {
    let mut packets = Vec::new();
    let mut error = None;
    let opened: core::result::Result<Stream<_>, StreamError> = Stream::open(Trickle { bytes: file, step });
    match opened {
        Ok(mut stream) => {
            let runs: core::result::Result<(), StreamError> = stream.for_each_run(|reader| {
                collect(reader, &mut packets, &mut error);
                Ok(())
            });
            runs.unwrap();
            // All of it is read, unless a damaged record stopped the reading.
            assert!(stream.octets_read() == file.len() || error.as_ref().is_some_and(|e| !is_truncation(e)));
        }
        Err(StreamError::Capture(e)) => error = Some(e),
        Err(StreamError::Io(e)) => panic!("{e}"),
    }
    (packets, error)
}

fn is_truncation(e: &Error) -> bool {
    matches!(e, Error::Capture(e) if e.is_truncation())
}

#[derive(Debug)]
enum StreamError {
    Capture(Error),
    Io(std::io::Error),
}

impl From<Error> for StreamError {
    fn from(e: Error) -> Self {
        StreamError::Capture(e)
    }
}

impl From<std::io::Error> for StreamError {
    fn from(e: std::io::Error) -> Self {
        StreamError::Io(e)
    }
}

/// A capture read from a stream, in pieces of any size, gives what the whole file gives:
/// the same packets and, cut anywhere, the same error at the same offset.
#[test]
fn a_stream_reads_as_the_whole_file_in_pieces_of_any_size() {
    let mut files = Vec::new();
    for format in [Format::Pcap, Format::Pcapng] {
        let mut w = Writer::new(Vec::new(), LinkType::Radiotap, format).unwrap();
        for i in 0..5u8 {
            w.write(1_700_000_000_000_000_000 + u64::from(i) * 1000, &vec![i; 10 + usize::from(i) * 7]).unwrap();
        }
        files.push(w.finish().unwrap());
    }
    // A second section with another interface, in the middle of a pcapng stream.
    let mut two_sections = files[1].clone();
    two_sections.extend_from_slice(&file(Format::Pcapng, LinkType::Ieee80211, &[0x88; 40]));
    files.push(two_sections);
    for file in &files {
        assert!(read_whole(file).0.len() > 2);
        // Every prefix (a stream cut anywhere), and the whole file with one octet altered.
        let prefixes = (0..=file.len()).map(|cut| file[..cut].to_vec());
        let altered = (0..file.len()).step_by(5).map(|at| {
            let mut f = file.clone();
            f[at] ^= 0x5a;
            f
        });
        for input in prefixes.chain(altered) {
            let whole = read_whole(&input);
            for step in [1, 7, 64, 1 << 20] {
                let streamed = read_streamed(&input, step);
                assert_eq!(
                    streamed.0,
                    whole.0,
                    "{} octets, step {step}, {:?}",
                    input.len(),
                    input.iter().zip(file).position(|(a, b)| a != b)
                );
                assert_eq!(
                    format!("{:?}", streamed.1),
                    format!("{:?}", whole.1),
                    "{} octets, step {step}, {:?}",
                    input.len(),
                    input.iter().zip(file).position(|(a, b)| a != b)
                );
            }
        }
    }
}

/// A damaged record in the middle of a stream is reported at its offset in the stream.
#[test]
fn stream_errors_count_offsets_from_the_start_of_the_stream() {
    let mut f = pcap_file();
    f.extend_from_within(24..);
    put_u32(&mut f, 50 + 8, pcap::MAX_RECORD_LEN + 1);
    let (packets, error) = read_streamed(&f, 5);
    assert_eq!(packets.len(), 1);
    assert!(matches!(error, Some(Error::Capture(CaptureError::RecordTooLong { offset: 50, .. }))), "{error:?}");
}
