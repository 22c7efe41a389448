//! pcapng: a sequence of blocks `type | total length | body | total length`. A Section
//! Header Block fixes the byte order; Interface Description Blocks give each interface's
//! link type and timestamp resolution; Enhanced and Simple Packet Blocks carry packets.
//! Other block types are skipped.

use std::io::{self, Write};

use super::{take, Endian, LinkType, Packet};
use crate::error::{Error, Result};

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
    endian: Endian,
    interfaces: Vec<Interface>,
    failed: bool,
}

impl<'a> Reader<'a> {
    pub fn new(file: &'a [u8]) -> Result<Self> {
        let kind = u32::from_le_bytes(take(file, 0, "pcapng section header")?);
        if kind != SECTION_HEADER_TYPE {
            return Err(Error::Malformed("pcapng file does not start with a section header"));
        }
        let mut reader = Reader { file, offset: 0, endian: Endian::Little, interfaces: Vec::new(), failed: false };
        reader.endian = reader.section_endian(0)?;
        Ok(reader)
    }

    fn section_endian(&self, offset: usize) -> Result<Endian> {
        let magic = take::<4>(self.file, offset + 8, "pcapng section header")?;
        if u32::from_le_bytes(magic) == BYTE_ORDER_MAGIC {
            Ok(Endian::Little)
        } else if u32::from_be_bytes(magic) == BYTE_ORDER_MAGIC {
            Ok(Endian::Big)
        } else {
            Err(Error::Malformed("pcapng section header with a bad byte-order magic"))
        }
    }

    /// The next packet, or `None` at the end of the file.
    fn next_packet(&mut self) -> Result<Option<Packet<'a>>> {
        while self.offset < self.file.len() {
            let at = self.offset;
            let raw_kind = take::<4>(self.file, at, "pcapng block header")?;
            if u32::from_le_bytes(raw_kind) == SECTION_HEADER_TYPE {
                self.endian = self.section_endian(at)?;
                self.interfaces.clear();
            }
            let e = self.endian;
            let kind = e.u32(raw_kind);
            let total = e.u32(take(self.file, at + 4, "pcapng block header")?);
            if total < 12 || !total.is_multiple_of(4) || total > MAX_BLOCK_LEN {
                return Err(Error::Malformed("pcapng block length not a multiple of 4 in 12..16 MiB"));
            }
            let end = at + total as usize;
            let block = self.file.get(at..end).ok_or(Error::Truncated {
                what: "pcapng block",
                needed: total as usize,
                got: self.file.len() - at,
            })?;
            if e.u32(take(block, total as usize - 4, "pcapng block")?) != total {
                return Err(Error::Malformed("pcapng block trailer length differs from its header"));
            }
            self.offset = end;
            let body = &block[8..total as usize - 4];
            match kind {
                INTERFACE_DESCRIPTION_TYPE => self.interfaces.push(self.interface(body)?),
                ENHANCED_PACKET_TYPE => return self.enhanced_packet(body).map(Some),
                SIMPLE_PACKET_TYPE => return self.simple_packet(body).map(Some),
                _ => {}
            }
        }
        Ok(None)
    }

    fn interface(&self, body: &[u8]) -> Result<Interface> {
        let e = self.endian;
        let link = e.u16(take(body, 0, "pcapng interface description")?);
        let snap_len = e.u32(take(body, 4, "pcapng interface description")?);
        let mut units_per_sec = 1_000_000;
        let mut options = body.get(8..).unwrap_or_default();
        while options.len() >= 4 {
            let code = e.u16(take(options, 0, "pcapng option")?);
            let len = usize::from(e.u16(take(options, 2, "pcapng option")?));
            if code == OPTION_END {
                break;
            }
            let value = options.get(4..4 + len).ok_or(Error::Truncated {
                what: "pcapng option",
                needed: 4 + len,
                got: options.len(),
            })?;
            if code == OPTION_IF_TSRESOL {
                let r = *value.first().ok_or(Error::Malformed("empty if_tsresol option"))?;
                let exp = u32::from(r & 0x7f);
                units_per_sec = if r & 0x80 == 0 { 10u64.checked_pow(exp) } else { 2u64.checked_pow(exp) }
                    .filter(|&u| u > 0)
                    .ok_or(Error::Malformed("pcapng if_tsresol out of range"))?;
            }
            options = options.get(4 + len.div_ceil(4) * 4..).unwrap_or_default();
        }
        Ok(Interface { link_type: LinkType::from_u32(u32::from(link)), snap_len, units_per_sec })
    }

    fn enhanced_packet(&self, body: &'a [u8]) -> Result<Packet<'a>> {
        let e = self.endian;
        let id = e.u32(take(body, 0, "pcapng enhanced packet")?);
        let high = e.u32(take(body, 4, "pcapng enhanced packet")?);
        let low = e.u32(take(body, 8, "pcapng enhanced packet")?);
        let captured = e.u32(take(body, 12, "pcapng enhanced packet")?) as usize;
        let orig = e.u32(take(body, 16, "pcapng enhanced packet")?);
        let iface = self.interface_by_id(id)?;
        let data = self.packet_data(body, 20, captured)?;
        let ticks = (u64::from(high) << 32) | u64::from(low);
        let ns = u128::from(ticks) * 1_000_000_000 / u128::from(iface.units_per_sec);
        Ok(Packet {
            timestamp_ns: u64::try_from(ns).unwrap_or(u64::MAX),
            link_type: iface.link_type,
            data,
            orig_len: orig.max(captured as u32),
        })
    }

    fn simple_packet(&self, body: &'a [u8]) -> Result<Packet<'a>> {
        let orig = self.endian.u32(take(body, 0, "pcapng simple packet")?);
        let iface = self.interface_by_id(0)?;
        let captured = if iface.snap_len == 0 { orig } else { orig.min(iface.snap_len) };
        let data = self.packet_data(body, 4, captured as usize)?;
        Ok(Packet { timestamp_ns: 0, link_type: iface.link_type, data, orig_len: orig })
    }

    fn interface_by_id(&self, id: u32) -> Result<Interface> {
        self.interfaces
            .get(id as usize)
            .copied()
            .ok_or(Error::Malformed("pcapng packet refers to an undescribed interface"))
    }

    /// The `captured` packet octets at `offset` in a block body (which must hold them).
    fn packet_data(&self, body: &'a [u8], offset: usize, captured: usize) -> Result<&'a [u8]> {
        body.get(offset..offset.saturating_add(captured)).ok_or(Error::Truncated {
            what: "pcapng packet data",
            needed: offset.saturating_add(captured),
            got: body.len(),
        })
    }
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
}
