//! The classic pcap format: a 24-octet file header, then records of a 16-octet header and
//! the packet bytes. Either byte order, microsecond or nanosecond timestamps.

use std::io::{self, Write};

use super::{take, CaptureError, Endian, LinkType, Packet};
use crate::error::Result;

const MAGIC_MICROS: u32 = 0xa1b2_c3d4;
const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
const FILE_HEADER_LEN: usize = 24;
const RECORD_HEADER_LEN: usize = 16;
/// Largest record we accept; bigger lengths mean a corrupt file, not a packet.
pub const MAX_RECORD_LEN: u32 = 256 * 1024;

pub(crate) fn is_magic(value: u32) -> bool {
    value == MAGIC_MICROS || value == MAGIC_NANOS
}

/// A pcap file in memory, read record by record.
pub struct Reader<'a> {
    file: &'a [u8],
    offset: usize,
    layout: Layout,
    failed: bool,
}

/// What the file header says about every record: the reader's state between the buffers
/// of a stream ([`super::Stream`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    endian: Endian,
    nanos: bool,
    link_type: LinkType,
}

impl<'a> Reader<'a> {
    pub fn new(file: &'a [u8]) -> Result<Self> {
        let header: [u8; FILE_HEADER_LEN] = take(file, 0).ok_or(CaptureError::TruncatedHeader {
            what: "pcap file header",
            needed: FILE_HEADER_LEN,
            got: file.len(),
        })?;
        let field = |at: usize| [header[at], header[at + 1], header[at + 2], header[at + 3]];
        let magic = field(0);
        let (endian, value) = if is_magic(u32::from_le_bytes(magic)) {
            (Endian::Little, u32::from_le_bytes(magic))
        } else if is_magic(u32::from_be_bytes(magic)) {
            (Endian::Big, u32::from_be_bytes(magic))
        } else {
            return Err(CaptureError::BadMagic { magic: u32::from_be_bytes(magic) }.into());
        };
        let major = endian.u16([header[4], header[5]]);
        if major != 2 {
            return Err(CaptureError::PcapVersion { major, minor: endian.u16([header[6], header[7]]) }.into());
        }
        let link = endian.u32(field(20));
        Ok(Reader {
            file,
            offset: FILE_HEADER_LEN,
            layout: Layout {
                endian,
                nanos: value == MAGIC_NANOS,
                // The upper 16 bits carry FCS-length flags (rarely set); the link type is below.
                link_type: LinkType::from_u32(link & 0xffff),
            },
            failed: false,
        })
    }

    pub fn link_type(&self) -> LinkType {
        self.layout.link_type
    }

    /// Where the reading stopped: the layout and the offset of the first record not read.
    pub(super) fn suspend(self) -> (Layout, usize) {
        (self.layout, self.offset)
    }

    /// Go on reading records from `file`, which starts at a record boundary.
    pub(super) fn resume(file: &'a [u8], layout: Layout) -> Self {
        Reader { file, offset: 0, layout, failed: false }
    }

    fn record(&mut self) -> Result<Packet<'a>> {
        let offset = self.offset;
        let left = self.file.len() - offset;
        let header: [u8; RECORD_HEADER_LEN] = take(self.file, offset).ok_or(CaptureError::TruncatedRecord {
            offset,
            needed: RECORD_HEADER_LEN,
            got: left,
        })?;
        let e = self.layout.endian;
        let field = |at: usize| e.u32([header[at], header[at + 1], header[at + 2], header[at + 3]]);
        let (sec, frac, incl, orig) = (field(0), field(4), field(8), field(12));
        if incl > MAX_RECORD_LEN {
            return Err(CaptureError::RecordTooLong { offset, length: incl, max: MAX_RECORD_LEN }.into());
        }
        let start = offset + RECORD_HEADER_LEN;
        let data = self.file.get(start..start + incl as usize).ok_or(CaptureError::TruncatedRecord {
            offset,
            needed: RECORD_HEADER_LEN + incl as usize,
            got: left,
        })?;
        self.offset = start + incl as usize;
        let frac_ns = if self.layout.nanos { u64::from(frac) } else { u64::from(frac) * 1000 };
        Ok(Packet {
            timestamp_ns: u64::from(sec) * 1_000_000_000 + frac_ns,
            link_type: self.layout.link_type,
            data,
            orig_len: orig.max(incl),
        })
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Packet<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.offset == self.file.len() {
            return None;
        }
        let result = self.record();
        self.failed = result.is_err();
        Some(result)
    }
}

/// Writes a little-endian, microsecond-resolution pcap file (the variant every reader,
/// airdecap-ng included, accepts).
pub struct Writer<W: Write> {
    out: W,
}

impl<W: Write> Writer<W> {
    pub fn new(mut out: W, link_type: LinkType) -> io::Result<Self> {
        let mut header = [0u8; FILE_HEADER_LEN];
        header[0..4].copy_from_slice(&MAGIC_MICROS.to_le_bytes());
        header[4..6].copy_from_slice(&2u16.to_le_bytes());
        header[6..8].copy_from_slice(&4u16.to_le_bytes());
        header[16..20].copy_from_slice(&MAX_RECORD_LEN.to_le_bytes());
        header[20..24].copy_from_slice(&link_type.to_u32().to_le_bytes());
        out.write_all(&header)?;
        Ok(Writer { out })
    }

    pub fn write(&mut self, timestamp_ns: u64, data: &[u8]) -> io::Result<()> {
        let len = u32::try_from(data.len())
            .ok()
            .filter(|&l| l <= MAX_RECORD_LEN)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "packet longer than 256 KiB"))?;
        let sec = u32::try_from(timestamp_ns / 1_000_000_000)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "timestamp past 2106"))?;
        let mut header = [0u8; RECORD_HEADER_LEN];
        header[0..4].copy_from_slice(&sec.to_le_bytes());
        header[4..8].copy_from_slice(&((timestamp_ns % 1_000_000_000 / 1000) as u32).to_le_bytes());
        header[8..12].copy_from_slice(&len.to_le_bytes());
        header[12..16].copy_from_slice(&len.to_le_bytes());
        self.out.write_all(&header)?;
        self.out.write_all(data)
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }
}
