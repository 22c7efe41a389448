//! pcapng: a sequence of blocks `type | total length | body | total length`. A Section
//! Header Block fixes the byte order; Interface Description Blocks give each interface's
//! link type and timestamp resolution; Enhanced and Simple Packet Blocks carry packets.
//! Other block types are skipped.

use std::io::{self, Write};

use super::{take, CaptureError, Endian, LinkType, Packet};
use crate::error::Result;

pub(crate) const SECTION_HEADER_TYPE: u32 = 0x0a0d_0d0a;
const INTERFACE_DESCRIPTION_TYPE: u32 = 1;
const SIMPLE_PACKET_TYPE: u32 = 3;
const ENHANCED_PACKET_TYPE: u32 = 6;
const BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;
const OPTION_END: u16 = 0;
const OPTION_IF_TSRESOL: u16 = 9;
/// Largest block we accept; bigger lengths mean a corrupt file.
const MAX_BLOCK_LEN: u32 = 16 * 1024 * 1024;

#[derive(Clone, Copy, Debug)]
struct Interface {
    link_type: LinkType,
    snap_len: u32,
    /// Timestamp units per second.
    units_per_sec: u64,
}

/// A pcapng file in memory, read block by block.
pub struct Reader<'a> {
    file: &'a [u8],
    offset: usize,
    section: Section,
    failed: bool,
}

/// What the current section's header and interface blocks said: the reader's state between
/// the buffers of a stream ([`super::Stream`]).
#[derive(Clone, Debug)]
pub(super) struct Section {
    endian: Endian,
    interfaces: Vec<Interface>,
}

/// The body of one block, with where it sits in the file for error messages.
#[derive(Clone, Copy)]
struct Block<'a> {
    /// File offset of the block (its type field).
    at: usize,
    kind: u32,
    body: &'a [u8],
}

/// Octets before a block's body: its type and total length.
const BLOCK_HEADER_LEN: usize = 8;

impl<'a> Block<'a> {
    fn too_short(&self, needed: usize) -> CaptureError {
        CaptureError::BlockTooShort { offset: self.at, kind: self.kind, needed, got: self.body.len() }
    }

    /// The `N` body octets at `pos`.
    fn field<const N: usize>(&self, pos: usize) -> core::result::Result<[u8; N], CaptureError> {
        take(self.body, pos).ok_or_else(|| self.too_short(pos.saturating_add(N)))
    }

    /// The file offset of body position `pos`.
    fn file_offset(&self, pos: usize) -> usize {
        self.at + BLOCK_HEADER_LEN + pos
    }
}

impl<'a> Reader<'a> {
    pub fn new(file: &'a [u8]) -> Result<Self> {
        let head: [u8; 12] = take(file, 0).ok_or(CaptureError::TruncatedHeader {
            what: "pcapng section header",
            needed: 12,
            got: file.len(),
        })?;
        let kind = [head[0], head[1], head[2], head[3]];
        if u32::from_le_bytes(kind) != SECTION_HEADER_TYPE {
            return Err(CaptureError::BadMagic { magic: u32::from_be_bytes(kind) }.into());
        }
        let mut reader = Reader {
            file,
            offset: 0,
            section: Section { endian: Endian::Little, interfaces: Vec::new() },
            failed: false,
        };
        reader.section.endian = reader.section_endian(0)?;
        Ok(reader)
    }

    /// Where the reading stopped: the section and the offset of the first block not read.
    pub(super) fn suspend(self) -> (Section, usize) {
        (self.section, self.offset)
    }

    /// Go on reading blocks from `file`, which starts at a block boundary.
    pub(super) fn resume(file: &'a [u8], section: Section) -> Self {
        Reader { file, offset: 0, section, failed: false }
    }

    /// `N` octets at `offset` inside the block starting at `at`, or `TruncatedRecord`.
    fn block_bytes<const N: usize>(&self, at: usize, offset: usize) -> core::result::Result<[u8; N], CaptureError> {
        take(self.file, offset).ok_or(CaptureError::TruncatedRecord {
            offset: at,
            needed: offset - at + N,
            got: self.file.len() - at,
        })
    }

    fn section_endian(&self, offset: usize) -> Result<Endian> {
        let magic = self.block_bytes::<4>(offset, offset + 8)?;
        if u32::from_le_bytes(magic) == BYTE_ORDER_MAGIC {
            Ok(Endian::Little)
        } else if u32::from_be_bytes(magic) == BYTE_ORDER_MAGIC {
            Ok(Endian::Big)
        } else {
            Err(CaptureError::BadByteOrderMagic { offset, magic: u32::from_be_bytes(magic) }.into())
        }
    }

    /// The next packet, or `None` at the end of the file.
    fn next_packet(&mut self) -> Result<Option<Packet<'a>>> {
        while self.offset < self.file.len() {
            let at = self.offset;
            let raw_kind = self.block_bytes::<4>(at, at)?;
            if u32::from_le_bytes(raw_kind) == SECTION_HEADER_TYPE {
                self.section.endian = self.section_endian(at)?;
                self.section.interfaces.clear();
            }
            let e = self.section.endian;
            let kind = e.u32(raw_kind);
            let total = e.u32(self.block_bytes(at, at + 4)?);
            if total < 12 || !total.is_multiple_of(4) || total > MAX_BLOCK_LEN {
                return Err(CaptureError::BadBlockLength { offset: at, length: total }.into());
            }
            let end = at + total as usize;
            let block = self.file.get(at..end).ok_or(CaptureError::TruncatedRecord {
                offset: at,
                needed: total as usize,
                got: self.file.len() - at,
            })?;
            let trailer = e.u32(self.block_bytes(at, end - 4)?);
            if trailer != total {
                return Err(CaptureError::BlockTrailerMismatch { offset: at, length: total, trailer }.into());
            }
            self.offset = end;
            let block = Block { at, kind, body: &block[BLOCK_HEADER_LEN..total as usize - 4] };
            match kind {
                INTERFACE_DESCRIPTION_TYPE => {
                    let interface = self.interface(block)?;
                    self.section.interfaces.push(interface)
                }
                ENHANCED_PACKET_TYPE => return self.enhanced_packet(block).map(Some),
                SIMPLE_PACKET_TYPE => return self.simple_packet(block).map(Some),
                _ => {}
            }
        }
        Ok(None)
    }

    fn interface(&self, block: Block<'a>) -> Result<Interface> {
        let e = self.section.endian;
        let link = e.u16(block.field(0)?);
        let snap_len = e.u32(block.field(4)?);
        let mut units_per_sec = 1_000_000;
        let mut pos = 8;
        while pos + 4 <= block.body.len() {
            let code = e.u16(block.field(pos)?);
            let len = usize::from(e.u16(block.field(pos + 2)?));
            if code == OPTION_END {
                break;
            }
            let offset = block.file_offset(pos);
            let value = block.body.get(pos + 4..pos + 4 + len).ok_or(CaptureError::OptionOverrun {
                offset,
                code,
                length: len,
            })?;
            if code == OPTION_IF_TSRESOL {
                let r = *value.first().ok_or(CaptureError::BadTimestampResolution { offset, value: None })?;
                let exp = u32::from(r & 0x7f);
                units_per_sec = if r & 0x80 == 0 { 10u64.checked_pow(exp) } else { 2u64.checked_pow(exp) }
                    .filter(|&u| u > 0)
                    .ok_or(CaptureError::BadTimestampResolution { offset, value: Some(r) })?;
            }
            pos += 4 + len.div_ceil(4) * 4;
        }
        Ok(Interface { link_type: LinkType::from_u32(u32::from(link)), snap_len, units_per_sec })
    }

    fn enhanced_packet(&self, block: Block<'a>) -> Result<Packet<'a>> {
        let e = self.section.endian;
        let id = e.u32(block.field(0)?);
        let high = e.u32(block.field(4)?);
        let low = e.u32(block.field(8)?);
        let captured = e.u32(block.field(12)?) as usize;
        let orig = e.u32(block.field(16)?);
        let iface = self.interface_by_id(block, id)?;
        let data = packet_data(block, 20, captured)?;
        let ticks = (u64::from(high) << 32) | u64::from(low);
        let ns = u128::from(ticks) * 1_000_000_000 / u128::from(iface.units_per_sec);
        Ok(Packet {
            timestamp_ns: u64::try_from(ns).unwrap_or(u64::MAX),
            link_type: iface.link_type,
            data,
            orig_len: orig.max(captured as u32),
        })
    }

    fn simple_packet(&self, block: Block<'a>) -> Result<Packet<'a>> {
        let orig = self.section.endian.u32(block.field(0)?);
        let iface = self.interface_by_id(block, 0)?;
        let captured = if iface.snap_len == 0 { orig } else { orig.min(iface.snap_len) };
        let data = packet_data(block, 4, captured as usize)?;
        Ok(Packet { timestamp_ns: 0, link_type: iface.link_type, data, orig_len: orig })
    }

    fn interface_by_id(&self, block: Block<'a>, id: u32) -> core::result::Result<Interface, CaptureError> {
        self.section.interfaces.get(id as usize).copied().ok_or(CaptureError::UnknownInterface { offset: block.at, id })
    }
}

/// The `captured` packet octets at `pos` in a block body (which must hold them).
fn packet_data(block: Block<'_>, pos: usize, captured: usize) -> core::result::Result<&[u8], CaptureError> {
    let end = pos.saturating_add(captured);
    block.body.get(pos..end).ok_or_else(|| block.too_short(end))
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Packet<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let result = self.next_packet();
        self.failed = result.is_err();
        result.transpose()
    }
}

/// Writes a little-endian pcapng file with one interface and nanosecond timestamps.
pub struct Writer<W: Write> {
    out: W,
}

impl<W: Write> Writer<W> {
    pub fn new(mut out: W, link_type: LinkType) -> io::Result<Self> {
        let mut shb = Vec::with_capacity(28);
        shb.extend_from_slice(&SECTION_HEADER_TYPE.to_le_bytes());
        shb.extend_from_slice(&28u32.to_le_bytes());
        shb.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
        shb.extend_from_slice(&1u16.to_le_bytes());
        shb.extend_from_slice(&0u16.to_le_bytes());
        shb.extend_from_slice(&u64::MAX.to_le_bytes()); // section length not specified
        shb.extend_from_slice(&28u32.to_le_bytes());
        out.write_all(&shb)?;
        let link = u16::try_from(link_type.to_u32())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "link type above 65535"))?;
        let mut idb = Vec::with_capacity(32);
        idb.extend_from_slice(&INTERFACE_DESCRIPTION_TYPE.to_le_bytes());
        idb.extend_from_slice(&32u32.to_le_bytes());
        idb.extend_from_slice(&link.to_le_bytes());
        idb.extend_from_slice(&0u16.to_le_bytes());
        idb.extend_from_slice(&0u32.to_le_bytes()); // no snap length limit
        idb.extend_from_slice(&OPTION_IF_TSRESOL.to_le_bytes());
        idb.extend_from_slice(&1u16.to_le_bytes());
        idb.extend_from_slice(&[9, 0, 0, 0]); // 10^-9 s, padded to 4 octets
        idb.extend_from_slice(&OPTION_END.to_le_bytes());
        idb.extend_from_slice(&0u16.to_le_bytes());
        idb.extend_from_slice(&32u32.to_le_bytes());
        out.write_all(&idb)?;
        Ok(Writer { out })
    }

    pub fn write(&mut self, timestamp_ns: u64, data: &[u8]) -> io::Result<()> {
        let padded = data.len().div_ceil(4) * 4;
        let total = u32::try_from(32 + padded)
            .ok()
            .filter(|&t| t <= MAX_BLOCK_LEN)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "packet longer than 16 MiB"))?;
        let mut header = [0u8; 28];
        header[0..4].copy_from_slice(&ENHANCED_PACKET_TYPE.to_le_bytes());
        header[4..8].copy_from_slice(&total.to_le_bytes());
        header[12..16].copy_from_slice(&((timestamp_ns >> 32) as u32).to_le_bytes());
        header[16..20].copy_from_slice(&(timestamp_ns as u32).to_le_bytes());
        header[20..24].copy_from_slice(&(data.len() as u32).to_le_bytes());
        header[24..28].copy_from_slice(&(data.len() as u32).to_le_bytes());
        self.out.write_all(&header)?;
        self.out.write_all(data)?;
        self.out.write_all(&[0u8; 3][..padded - data.len()])?;
        self.out.write_all(&total.to_le_bytes())
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }
}
