//! Capture files: pcap and pcapng read and write ([`Reader`] and [`Writer`] take either), and the radiotap header in front of
//! 802.11 frames.
//!
//! Readers are zero-copy views over a whole file in memory: [`Reader::new`] checks the file
//! header once, and iteration yields [`Packet`]s whose data borrow the file. A truncated or
//! corrupt record ends the iteration with one typed error ([`CaptureError`] inside
//! [`Error::Capture`]), never a panic. A [`Stream`] reads a
//! capture from a pipe in a bounded buffer, handing the same readers a slice at a time.
//!
//! Link types handled: 802.11 without radiotap (105), radiotap + 802.11 (127, the FCS is
//! stripped when the Flags field says it is present), PPI (192), Prism (119) and AVS (163)
//! + 802.11 ([`pseudo`]), and Ethernet (1, for output).
//!
//! Where the link type leaves an FCS at the end of the frames unsaid (105, Prism, AVS, PPI
//! without an 802.11-Common field), the [`Reader`] finds one by its CRC, deciding once per
//! capture, and cuts it from the packets it yields (module `fcs`).

mod fcs;
pub mod pcap;
pub mod pcapng;
pub mod pseudo;
pub mod radiotap;
mod stream;

pub use stream::Stream;

use std::io::{self, Write};

pub use crate::error::CaptureError;
use crate::error::{Error, Result};

/// The link-layer header type of a capture interface (tcpdump.org LINKTYPE_ values).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum LinkType {
    Ethernet,
    Ieee80211,
    Radiotap,
    Prism,
    Avs,
    Ppi,
    Other(u32),
}

impl LinkType {
    pub fn from_u32(value: u32) -> Self {
        match value {
            1 => LinkType::Ethernet,
            105 => LinkType::Ieee80211,
            127 => LinkType::Radiotap,
            119 => LinkType::Prism,
            163 => LinkType::Avs,
            192 => LinkType::Ppi,
            other => LinkType::Other(other),
        }
    }

    pub fn to_u32(self) -> u32 {
        match self {
            LinkType::Ethernet => 1,
            LinkType::Ieee80211 => 105,
            LinkType::Radiotap => 127,
            LinkType::Prism => 119,
            LinkType::Avs => 163,
            LinkType::Ppi => 192,
            LinkType::Other(v) => v,
        }
    }
}

/// One captured packet, borrowing its bytes from the file.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Packet<'a> {
    /// Capture time in nanoseconds since the Unix epoch.
    pub timestamp_ns: u64,
    pub link_type: LinkType,
    /// The captured bytes (possibly fewer than `orig_len` if the snap length cut them), from a
    /// [`Reader`] without an FCS its link type leaves unsaid (it is cut, and `orig_len` with it).
    pub data: &'a [u8],
    pub orig_len: u32,
}

impl<'a> Packet<'a> {
    /// The 802.11 MPDU without radiotap header or FCS, for the 802.11 link types.
    pub fn mpdu(&self) -> Result<&'a [u8]> {
        if self.orig_len as usize != self.data.len() {
            return Err(CaptureError::Snapped { captured: self.data.len(), original: self.orig_len as usize }.into());
        }
        match self.link_type {
            LinkType::Ieee80211 => Ok(self.data),
            LinkType::Radiotap => radiotap::Radiotap::new_checked(self.data)?.mpdu(),
            LinkType::Ppi => pseudo::ppi_mpdu(self.data),
            LinkType::Prism => pseudo::prism_mpdu(self.data),
            LinkType::Avs => pseudo::avs_mpdu(self.data),
            other => Err(CaptureError::UnsupportedLinkType(other.to_u32()).into()),
        }
    }
}

/// Which file format a capture uses, told by its first four octets.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    Pcap,
    Pcapng,
}

impl Format {
    pub fn detect(file: &[u8]) -> Result<Self> {
        let magic: [u8; 4] = take(file, 0).ok_or(CaptureError::TruncatedHeader {
            what: "capture file header",
            needed: 4,
            got: file.len(),
        })?;
        if magic == pcapng::SECTION_HEADER_TYPE.to_le_bytes() {
            return Ok(Format::Pcapng);
        }
        let (le, be) = (u32::from_le_bytes(magic), u32::from_be_bytes(magic));
        if pcap::is_magic(le) || pcap::is_magic(be) {
            return Ok(Format::Pcap);
        }
        Err(CaptureError::BadMagic { magic: be }.into())
    }
}

/// A reader of either format, over a whole file or over the part of a stream a [`Stream`]
/// holds.
pub struct Reader<'a> {
    format: FormatReader<'a>,
    /// The stream offset of the slice's first octet (0 for a whole file): error offsets count
    /// from the start of the stream.
    base: usize,
    /// More of the stream may follow the slice: a record it cuts is then not an error but
    /// the end of what can be read now (it is read whole from the next slice).
    more_follows: bool,
    /// A damaged record ended the reading (the stream is not read further either).
    failed: bool,
    /// Whether the capture's frames end with an FCS their link type leaves unsaid.
    fcs: fcs::FcsDetector,
}

enum FormatReader<'a> {
    Pcap(pcap::Reader<'a>),
    Pcapng(pcapng::Reader<'a>),
}

/// A [`Reader`]'s state between two slices of a stream: what the headers said.
#[derive(Clone, Debug)]
enum Suspended {
    Pcap(pcap::Layout),
    Pcapng(pcapng::Section),
}

impl<'a> Reader<'a> {
    pub fn new(file: &'a [u8]) -> Result<Self> {
        let format = match Format::detect(file)? {
            Format::Pcap => FormatReader::Pcap(pcap::Reader::new(file)?),
            Format::Pcapng => FormatReader::Pcapng(pcapng::Reader::new(file)?),
        };
        Ok(Reader { format, base: 0, more_follows: false, failed: false, fcs: Default::default() })
    }

    pub fn format(&self) -> Format {
        match self.format {
            FormatReader::Pcap(_) => Format::Pcap,
            FormatReader::Pcapng(_) => Format::Pcapng,
        }
    }

    /// Where the reading stopped: the headers' state, what was found of an FCS, and the
    /// offset (in the slice) of the first record not read; `None` after a damaged record.
    fn suspend(self) -> Option<(Suspended, fcs::FcsDetector, usize)> {
        if self.failed {
            return None;
        }
        match self.format {
            FormatReader::Pcap(r) => {
                let (layout, offset) = r.suspend();
                Some((Suspended::Pcap(layout), self.fcs, offset))
            }
            FormatReader::Pcapng(r) => {
                let (section, offset) = r.suspend();
                Some((Suspended::Pcapng(section), self.fcs, offset))
            }
        }
    }

    /// Go on reading from `slice`, which starts at stream offset `base` on a record boundary.
    fn resume(slice: &'a [u8], state: Suspended, fcs: fcs::FcsDetector, base: usize, more_follows: bool) -> Self {
        let format = match state {
            Suspended::Pcap(layout) => FormatReader::Pcap(pcap::Reader::resume(slice, layout)),
            Suspended::Pcapng(section) => FormatReader::Pcapng(pcapng::Reader::resume(slice, section)),
        };
        Reader { format, base, more_follows, failed: false, fcs }
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Packet<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        let next = match &mut self.format {
            FormatReader::Pcap(r) => r.next(),
            FormatReader::Pcapng(r) => r.next(),
        }?;
        match next {
            Err(Error::Capture(e)) if self.more_follows && e.is_truncation() => None,
            Err(e) => {
                self.failed = true;
                Some(Err(match e {
                    Error::Capture(e) => e.shifted(self.base).into(),
                    other => other,
                }))
            }
            Ok(mut packet) => {
                // Only a packet captured whole can end with its FCS.
                if packet.orig_len as usize == packet.data.len() {
                    packet.data = self.fcs.strip(packet.link_type, packet.data);
                    packet.orig_len = packet.data.len() as u32;
                }
                Some(Ok(packet))
            }
        }
    }
}

/// A writer of either format.
pub enum Writer<W: Write> {
    Pcap(pcap::Writer<W>),
    Pcapng(pcapng::Writer<W>),
}

impl<W: Write> Writer<W> {
    pub fn new(out: W, link_type: LinkType, format: Format) -> io::Result<Self> {
        Ok(match format {
            Format::Pcap => Writer::Pcap(pcap::Writer::new(out, link_type)?),
            Format::Pcapng => Writer::Pcapng(pcapng::Writer::new(out, link_type)?),
        })
    }

    pub fn write(&mut self, timestamp_ns: u64, data: &[u8]) -> io::Result<()> {
        match self {
            Writer::Pcap(w) => w.write(timestamp_ns, data),
            Writer::Pcapng(w) => w.write(timestamp_ns, data),
        }
    }

    /// Push what was written on to the output (a reader downstream sees it).
    pub fn flush(&mut self) -> io::Result<()> {
        match self {
            Writer::Pcap(w) => w.get_mut().flush(),
            Writer::Pcapng(w) => w.get_mut().flush(),
        }
    }

    /// Flush and give back the output.
    pub fn finish(self) -> io::Result<W> {
        let mut out = match self {
            Writer::Pcap(w) => w.into_inner(),
            Writer::Pcapng(w) => w.into_inner(),
        };
        out.flush()?;
        Ok(out)
    }
}

/// Little-endian or big-endian integer reads at a checked offset.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Endian {
    Little,
    Big,
}

impl Endian {
    pub(crate) fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        }
    }
    pub(crate) fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }
}

/// `N` octets at `offset`, if `buf` holds them.
pub(crate) fn take<const N: usize>(buf: &[u8], offset: usize) -> Option<[u8; N]> {
    buf.get(offset..offset.checked_add(N)?).and_then(|s| s.try_into().ok())
}

#[cfg(test)]
mod tests;
