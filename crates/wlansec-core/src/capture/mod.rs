//! Capture files: pcap and pcapng read and write ([`Reader`] and [`Writer`] take either), and the radiotap header in front of
//! 802.11 frames.
//!
//! Readers are zero-copy views over a whole file in memory: [`Reader::new`] checks the file
//! header once, and iteration yields [`Packet`]s whose data borrow the file. A truncated or
//! corrupt record ends the iteration with one typed error, never a panic.
//!
//! Link types handled: 802.11 without radiotap (105), radiotap + 802.11 (127, the FCS is
//! stripped when the Flags field says it is present) and Ethernet (1, for output).

pub mod pcap;
pub mod pcapng;
pub mod radiotap;

use std::io::{self, Write};

use crate::error::{Error, Result};

/// The link-layer header type of a capture interface (tcpdump.org LINKTYPE_ values).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum LinkType {
    Ethernet,
    Ieee80211,
    Radiotap,
    Other(u32),
}

impl LinkType {
    pub fn from_u32(value: u32) -> Self {
        match value {
            1 => LinkType::Ethernet,
            105 => LinkType::Ieee80211,
            127 => LinkType::Radiotap,
            other => LinkType::Other(other),
        }
    }

    pub fn to_u32(self) -> u32 {
        match self {
            LinkType::Ethernet => 1,
            LinkType::Ieee80211 => 105,
            LinkType::Radiotap => 127,
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
    /// The captured bytes (possibly fewer than `orig_len` if the snap length cut them).
    pub data: &'a [u8],
    pub orig_len: u32,
}

impl<'a> Packet<'a> {
    /// The 802.11 MPDU without radiotap header or FCS, for the 802.11 link types.
    pub fn mpdu(&self) -> Result<&'a [u8]> {
        if self.orig_len as usize != self.data.len() {
            return Err(Error::Truncated {
                what: "captured packet (snap length)",
                needed: self.orig_len as usize,
                got: self.data.len(),
            });
        }
        match self.link_type {
            LinkType::Ieee80211 => Ok(self.data),
            LinkType::Radiotap => radiotap::Radiotap::new_checked(self.data)?.mpdu(),
            _ => Err(Error::Unsupported("packet is not an 802.11 frame (link type)")),
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
        let magic =
            file.get(..4).ok_or(Error::Truncated { what: "capture file header", needed: 4, got: file.len() })?;
        if magic == pcapng::SECTION_HEADER_TYPE.to_le_bytes() {
            return Ok(Format::Pcapng);
        }
        let le = u32::from_le_bytes([magic[0], magic[1], magic[2], magic[3]]);
        let be = u32::from_be_bytes([magic[0], magic[1], magic[2], magic[3]]);
        if pcap::is_magic(le) || pcap::is_magic(be) {
            return Ok(Format::Pcap);
        }
        Err(Error::Malformed("not a pcap or pcapng file (unknown magic number)"))
    }
}

/// A reader of either format.
pub enum Reader<'a> {
    Pcap(pcap::Reader<'a>),
    Pcapng(pcapng::Reader<'a>),
}

impl<'a> Reader<'a> {
    pub fn new(file: &'a [u8]) -> Result<Self> {
        Ok(match Format::detect(file)? {
            Format::Pcap => Reader::Pcap(pcap::Reader::new(file)?),
            Format::Pcapng => Reader::Pcapng(pcapng::Reader::new(file)?),
        })
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Packet<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Reader::Pcap(r) => r.next(),
            Reader::Pcapng(r) => r.next(),
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

/// `N` octets at `offset`, or a `Truncated` error naming `what`.
pub(crate) fn take<const N: usize>(buf: &[u8], offset: usize, what: &'static str) -> Result<[u8; N]> {
    buf.get(offset..offset.saturating_add(N)).and_then(|s| s.try_into().ok()).ok_or(Error::Truncated {
        what,
        needed: offset.saturating_add(N),
        got: buf.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let want: Vec<(u64, &[u8], LinkType)> =
                packets.iter().map(|&(ts, d)| (ts, d, LinkType::Ieee80211)).collect();
            assert_eq!(got, want, "{format:?}");
        }
    }
}
