//! Why a capture file (pcap, pcapng) or the radiotap header of one of its packets could not
//! be read. Offsets count octets from the start of the file, so a user can find the damage
//! with a hex dump; radiotap problems are per packet and carry no file offset.
//!
//! Defined here beside the `Error` that carries it, so `error` imports nothing above it;
//! `capture` re-exports it.

use core::fmt;

/// A capture file is damaged, or uses a feature not read here.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CaptureError {
    /// The file is shorter than its file header (`what`: which header).
    TruncatedHeader { what: &'static str, needed: usize, got: usize },
    /// The first four octets are neither a pcap magic number nor a pcapng section header
    /// (`magic`: those octets read big-endian).
    BadMagic { magic: u32 },
    /// A pcap file of a major version other than 2.
    PcapVersion { major: u16, minor: u16 },
    /// The pcap record or pcapng block at `offset` runs past the end of the file: it needs
    /// `needed` octets from `offset`, the file has `got` left.
    TruncatedRecord { offset: usize, needed: usize, got: usize },
    /// A pcap record header at `offset` claims more packet octets than any real packet has.
    RecordTooLong { offset: usize, length: u32, max: u32 },
    /// The pcapng section header at `offset` has a byte-order magic that is neither
    /// 0x1a2b3c4d nor its byte swap.
    BadByteOrderMagic { offset: usize, magic: u32 },
    /// The pcapng block at `offset` has a total length below 12, not a multiple of 4, or
    /// above 16 MiB.
    BadBlockLength { offset: usize, length: u32 },
    /// The pcapng block at `offset` ends with a total length other than the one it starts with.
    BlockTrailerMismatch { offset: usize, length: u32, trailer: u32 },
    /// The body of the pcapng block at `offset` (of block type `kind`) is too short for its
    /// fields or its packet data: `needed` body octets, `got` present.
    BlockTooShort { offset: usize, kind: u32, needed: usize, got: usize },
    /// The pcapng option at `offset` (option code `code`) claims `length` octets, past the
    /// end of its block.
    OptionOverrun { offset: usize, code: u16, length: usize },
    /// The if_tsresol option at `offset` is empty (`None`) or gives a resolution that does
    /// not fit a 64-bit tick count.
    BadTimestampResolution { offset: usize, value: Option<u8> },
    /// The pcapng packet block at `offset` names an interface no description block declared.
    UnknownInterface { offset: usize, id: u32 },
    /// The capture's snap length cut the packet: `captured` of its `original` octets are in the file.
    Snapped { captured: usize, original: usize },
    /// The packet's link type (a tcpdump.org LINKTYPE_ value) does not carry 802.11 frames.
    UnsupportedLinkType(u32),
    /// A radiotap header of a version other than 0.
    RadiotapVersion(u8),
    /// The radiotap header (its fixed part, announced length, present bitmaps or Flags field)
    /// needs `needed` octets, the packet has `got`.
    RadiotapTooShort { needed: usize, got: usize },
    /// The radiotap Flags say the frame failed its FCS check when it was received.
    BadFcs,
    /// The radiotap Flags announce padding between header and frame, which is not read here.
    RadiotapDataPadding,
    /// The radiotap Flags announce an FCS, but the frame behind the header is shorter than one.
    NoRoomForFcs { got: usize },
    /// A PPI, Prism or AVS header (`what`) needs `needed` octets, the packet has `got`.
    PseudoHeaderTooShort { what: &'static str, needed: usize, got: usize },
    /// A PPI or AVS header of a version (or magic) not read here.
    PseudoHeaderVersion { what: &'static str, version: u32 },
}

impl CaptureError {
    /// The capture ends inside a header or record: more octets would complete it (a
    /// stream still open), or the file was cut short.
    pub fn is_truncation(&self) -> bool {
        matches!(self, CaptureError::TruncatedHeader { .. } | CaptureError::TruncatedRecord { .. })
    }

    /// The same error with its file offset (if any) moved on by `by`: for a reader whose
    /// slice starts `by` octets into the stream.
    pub(crate) fn shifted(mut self, by: usize) -> Self {
        use CaptureError::*;
        match &mut self {
            TruncatedRecord { offset, .. }
            | RecordTooLong { offset, .. }
            | BadByteOrderMagic { offset, .. }
            | BadBlockLength { offset, .. }
            | BlockTrailerMismatch { offset, .. }
            | BlockTooShort { offset, .. }
            | OptionOverrun { offset, .. }
            | BadTimestampResolution { offset, .. }
            | UnknownInterface { offset, .. } => *offset += by,
            TruncatedHeader { .. }
            | BadMagic { .. }
            | PcapVersion { .. }
            | Snapped { .. }
            | UnsupportedLinkType(_)
            | RadiotapVersion(_)
            | RadiotapTooShort { .. }
            | BadFcs
            | RadiotapDataPadding
            | NoRoomForFcs { .. }
            | PseudoHeaderTooShort { .. }
            | PseudoHeaderVersion { .. } => {}
        }
        self
    }
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CaptureError::TruncatedHeader { what, needed, got } => {
                write!(f, "file too short for the {what}: needs {needed} bytes, got {got}")
            }
            CaptureError::BadMagic { magic } => {
                write!(f, "not a pcap or pcapng file (unknown magic number 0x{magic:08x})")
            }
            CaptureError::PcapVersion { major, minor } => {
                write!(f, "pcap version {major}.{minor} (only version 2 is read)")
            }
            CaptureError::TruncatedRecord { offset, needed, got } => {
                write!(f, "record at offset {offset} needs {needed} bytes, the file has {got} left")
            }
            CaptureError::RecordTooLong { offset, length, max } => {
                write!(f, "pcap record at offset {offset} claims {length} bytes (more than {max}: corrupt)")
            }
            CaptureError::BadByteOrderMagic { offset, magic } => {
                write!(f, "pcapng section header at offset {offset} has a bad byte-order magic 0x{magic:08x}")
            }
            CaptureError::BadBlockLength { offset, length } => {
                write!(f, "pcapng block at offset {offset} has length {length} (not a multiple of 4 in 12..16 MiB)")
            }
            CaptureError::BlockTrailerMismatch { offset, length, trailer } => {
                write!(f, "pcapng block at offset {offset} starts with length {length} but ends with {trailer}")
            }
            CaptureError::BlockTooShort { offset, kind, needed, got } => write!(
                f,
                "pcapng block at offset {offset} (type {kind}) is too short: its body needs {needed} bytes, has {got}"
            ),
            CaptureError::OptionOverrun { offset, code, length } => {
                write!(f, "pcapng option {code} at offset {offset} claims {length} bytes, past the end of its block")
            }
            CaptureError::BadTimestampResolution { offset, value: None } => {
                write!(f, "pcapng if_tsresol option at offset {offset} is empty")
            }
            CaptureError::BadTimestampResolution { offset, value: Some(v) } => {
                write!(f, "pcapng if_tsresol option at offset {offset} is out of range (0x{v:02x})")
            }
            CaptureError::UnknownInterface { offset, id } => {
                write!(f, "pcapng packet block at offset {offset} refers to undescribed interface {id}")
            }
            CaptureError::Snapped { captured, original } => {
                write!(f, "packet cut by the snap length: {captured} of {original} bytes captured")
            }
            CaptureError::UnsupportedLinkType(link) => {
                write!(f, "link type {link} does not carry 802.11 frames")
            }
            CaptureError::RadiotapVersion(v) => write!(f, "radiotap version {v} (only version 0 is defined)"),
            CaptureError::RadiotapTooShort { needed, got } => {
                write!(f, "radiotap header needs {needed} bytes, the packet has {got}")
            }
            CaptureError::BadFcs => write!(f, "frame failed its FCS check (radiotap bad-FCS flag)"),
            CaptureError::RadiotapDataPadding => write!(f, "radiotap data padding between header and frame"),
            CaptureError::NoRoomForFcs { got } => {
                write!(f, "frame of {got} bytes behind radiotap is too short for its announced FCS")
            }
            CaptureError::PseudoHeaderTooShort { what, needed, got } => {
                write!(f, "{what} needs {needed} bytes, the packet has {got}")
            }
            CaptureError::PseudoHeaderVersion { what, version } => {
                write!(f, "{what} header of version 0x{version:x} (not read here)")
            }
        }
    }
}

impl std::error::Error for CaptureError {}
