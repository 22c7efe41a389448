//! The radiotap header (radiotap.org) in front of an 802.11 frame: version, length, a chain
//! of present bitmaps, then aligned fields. Only the Flags field matters to decryption: it
//! says whether the frame ends with a 4-octet FCS, and whether that FCS failed.

use super::{take, CaptureError};
use crate::error::Result;

const HEADER_LEN: usize = 8;
const PRESENT_TSFT: u32 = 1 << 0;
const PRESENT_FLAGS: u32 = 1 << 1;
const PRESENT_EXT: u32 = 1 << 31;
const TSFT_LEN: usize = 8;
pub const FLAG_FCS_AT_END: u8 = 0x10;
pub const FLAG_DATA_PAD: u8 = 0x20;
pub const FLAG_BAD_FCS: u8 = 0x40;
const FCS_LEN: usize = 4;

/// A checked view of a radiotap-framed packet.
#[derive(Clone, Copy, Debug)]
pub struct Radiotap<'a> {
    packet: &'a [u8],
    header_len: usize,
    flags: u8,
}

impl<'a> Radiotap<'a> {
    pub fn new_checked(packet: &'a [u8]) -> Result<Self> {
        let fixed: [u8; HEADER_LEN] =
            take(packet, 0).ok_or(CaptureError::RadiotapTooShort { needed: HEADER_LEN, got: packet.len() })?;
        if fixed[0] != 0 {
            return Err(CaptureError::RadiotapVersion(fixed[0]).into());
        }
        let header_len = usize::from(u16::from_le_bytes([fixed[2], fixed[3]]));
        if header_len > packet.len() {
            return Err(CaptureError::RadiotapTooShort { needed: header_len, got: packet.len() }.into());
        }
        let header = &packet[..header_len];
        // A field past the announced header length: the header is too short for what it announces.
        let field = |offset: usize| -> core::result::Result<[u8; 4], CaptureError> {
            take(header, offset).ok_or(CaptureError::RadiotapTooShort { needed: offset + 4, got: header_len })
        };
        let first = u32::from_le_bytes(field(4)?);
        let mut offset = HEADER_LEN;
        let mut word = first;
        while word & PRESENT_EXT != 0 {
            word = u32::from_le_bytes(field(offset)?);
            offset += 4;
        }
        let mut flags = 0;
        if first & PRESENT_FLAGS != 0 {
            if first & PRESENT_TSFT != 0 {
                offset = offset.div_ceil(TSFT_LEN) * TSFT_LEN + TSFT_LEN;
            }
            flags =
                *header.get(offset).ok_or(CaptureError::RadiotapTooShort { needed: offset + 1, got: header_len })?;
        }
        Ok(Radiotap { packet, header_len, flags })
    }

    pub fn header_len(&self) -> usize {
        self.header_len
    }

    pub fn flags(&self) -> u8 {
        self.flags
    }

    /// The 802.11 MPDU behind the header, without its FCS.
    pub fn mpdu(&self) -> Result<&'a [u8]> {
        if self.flags & FLAG_BAD_FCS != 0 {
            return Err(CaptureError::BadFcs.into());
        }
        if self.flags & FLAG_DATA_PAD != 0 {
            return Err(CaptureError::RadiotapDataPadding.into());
        }
        let frame = &self.packet[self.header_len..];
        if self.flags & FLAG_FCS_AT_END == 0 {
            return Ok(frame);
        }
        let len = frame.len().checked_sub(FCS_LEN).ok_or(CaptureError::NoRoomForFcs { got: frame.len() })?;
        Ok(&frame[..len])
    }
}

/// The smallest radiotap header: only the Flags field, announcing an FCS or not.
pub fn minimal_header(fcs_at_end: bool) -> [u8; 9] {
    let present = PRESENT_FLAGS.to_le_bytes();
    let flags = if fcs_at_end { FLAG_FCS_AT_END } else { 0 };
    [0, 0, 9, 0, present[0], present[1], present[2], present[3], flags]
}

/// The frame check sequence of an MPDU (CRC-32, little-endian on the air).
pub fn fcs(mpdu: &[u8]) -> [u8; 4] {
    crc32fast::hash(mpdu).to_le_bytes()
}
