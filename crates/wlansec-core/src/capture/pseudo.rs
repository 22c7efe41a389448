//! The other pseudo-headers capture tools put in front of 802.11 frames: PPI (link type 192,
//! the Per-Packet Information header of CACE/Riverbed tools), Prism (119, the old
//! linux-wlan-ng monitor header) and AVS (163, its successor, also found behind link type
//! 119). Each is skipped to the 802.11 frame; PPI's 802.11-Common field says when the frame
//! ends with an FCS, which is then cut off, as radiotap's Flags do. Prism and AVS cannot say
//! it (nor PPI without that field): the [`Reader`](super::Reader) finds such an FCS by its
//! CRC (the `fcs` module).

use crate::error::{CaptureError, Result};

/// PPI's field type 2, 802.11-Common (PPI specification 1.0.10, section 4.1.2).
const PPI_FIELD_80211_COMMON: u16 = 2;
/// In the 802.11-Common Flags: the frame ends with its FCS.
const PPI_FLAG_FCS: u16 = 0x0001;
/// In the 802.11-Common Flags: the FCS was bad when received.
const PPI_FLAG_BAD_FCS: u16 = 0x0004;
const PPI_HEADER_LEN: usize = 8;
const LINKTYPE_IEEE80211: u32 = 105;
/// An AVS header starts with this magic in its top 28 bits, the version in the low 4.
const AVS_MAGIC: u32 = 0x8021_1000;
const FCS_LEN: usize = 4;

fn too_short(what: &'static str, needed: usize, got: usize) -> crate::error::Error {
    CaptureError::PseudoHeaderTooShort { what, needed, got }.into()
}

/// The 802.11 frame behind a PPI header.
pub fn ppi_mpdu(packet: &[u8]) -> Result<&[u8]> {
    ppi_frame(packet).map(|(frame, _)| frame)
}

/// The 802.11 frame behind a PPI header (its FCS cut when an 802.11-Common field announces
/// one), and whether such a field said if there is an FCS.
pub(crate) fn ppi_frame(packet: &[u8]) -> Result<(&[u8], bool)> {
    let header = packet.get(..PPI_HEADER_LEN).ok_or_else(|| too_short("PPI header", PPI_HEADER_LEN, packet.len()))?;
    let len = usize::from(u16::from_le_bytes([header[2], header[3]]));
    let dlt = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
    if header[0] != 0 {
        return Err(CaptureError::PseudoHeaderVersion { what: "PPI", version: header[0].into() }.into());
    }
    if dlt != LINKTYPE_IEEE80211 {
        return Err(CaptureError::UnsupportedLinkType(dlt).into());
    }
    let fields = packet
        .get(PPI_HEADER_LEN..len)
        .ok_or_else(|| too_short("PPI header", len.max(PPI_HEADER_LEN), packet.len()))?;
    let mut frame = &packet[len..];
    let mut said = false;
    let mut rest = fields;
    while let [t0, t1, l0, l1, tail @ ..] = rest {
        let (kind, field_len) = (u16::from_le_bytes([*t0, *t1]), usize::from(u16::from_le_bytes([*l0, *l1])));
        let data = tail.get(..field_len).ok_or_else(|| too_short("PPI field", field_len, tail.len()))?;
        if kind == PPI_FIELD_80211_COMMON {
            // TSF-Timer (8), then Flags (2).
            let flags = data.get(8..10).map(|f| u16::from_le_bytes([f[0], f[1]]));
            said |= flags.is_some();
            let flags = flags.unwrap_or(0);
            if flags & PPI_FLAG_BAD_FCS != 0 {
                return Err(CaptureError::BadFcs.into());
            }
            if flags & PPI_FLAG_FCS != 0 {
                let end = frame.len().checked_sub(FCS_LEN).ok_or(CaptureError::NoRoomForFcs { got: frame.len() })?;
                frame = &frame[..end];
            }
        }
        rest = &tail[field_len..];
    }
    Ok((frame, said))
}

/// The 802.11 frame behind a Prism header (or an AVS header, which drivers also write under
/// the Prism link type).
pub fn prism_mpdu(packet: &[u8]) -> Result<&[u8]> {
    let first = packet.get(..8).ok_or_else(|| too_short("Prism header", 8, packet.len()))?;
    if u32::from_be_bytes([first[0], first[1], first[2], first[3]]) & 0xffff_fff0 == AVS_MAGIC {
        return avs_mpdu(packet);
    }
    // msgcode, then msglen: the header's whole length, host byte order (little-endian in
    // every capture seen; a big-endian one would claim an absurd length and be refused).
    let len = u32::from_le_bytes([first[4], first[5], first[6], first[7]]) as usize;
    packet.get(len..).filter(|_| len >= 8).ok_or_else(|| too_short("Prism header", len.max(8), packet.len()))
}

/// The 802.11 frame behind an AVS header (big-endian: magic and version, then its length).
pub fn avs_mpdu(packet: &[u8]) -> Result<&[u8]> {
    let first = packet.get(..8).ok_or_else(|| too_short("AVS header", 8, packet.len()))?;
    let magic = u32::from_be_bytes([first[0], first[1], first[2], first[3]]);
    if magic & 0xffff_fff0 != AVS_MAGIC {
        return Err(CaptureError::PseudoHeaderVersion { what: "AVS", version: magic }.into());
    }
    let len = u32::from_be_bytes([first[4], first[5], first[6], first[7]]) as usize;
    packet.get(len..).filter(|_| len >= 8).ok_or_else(|| too_short("AVS header", len.max(8), packet.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: [u8; 10] = [0x08, 0x41, 0, 0, 1, 2, 3, 4, 5, 6];

    fn ppi(flags: Option<u16>, frame: &[u8]) -> Vec<u8> {
        let mut fields = Vec::new();
        if let Some(flags) = flags {
            fields.extend_from_slice(&PPI_FIELD_80211_COMMON.to_le_bytes());
            fields.extend_from_slice(&20u16.to_le_bytes());
            let mut common = [0u8; 20];
            common[8..10].copy_from_slice(&flags.to_le_bytes());
            fields.extend_from_slice(&common);
        }
        let len = (PPI_HEADER_LEN + fields.len()) as u16;
        [&[0u8, 0][..], &len.to_le_bytes(), &105u32.to_le_bytes(), &fields, frame].concat()
    }

    #[test]
    fn ppi_is_skipped_and_its_fcs_cut() {
        assert_eq!(ppi_mpdu(&ppi(None, &FRAME)).unwrap(), FRAME);
        assert_eq!(ppi_mpdu(&ppi(Some(0), &FRAME)).unwrap(), FRAME);
        let with_fcs = [&FRAME[..], &[9, 9, 9, 9]].concat();
        assert_eq!(ppi_mpdu(&ppi(Some(PPI_FLAG_FCS), &with_fcs)).unwrap(), FRAME);
        assert!(matches!(
            ppi_mpdu(&ppi(Some(PPI_FLAG_BAD_FCS), &FRAME)),
            Err(crate::Error::Capture(CaptureError::BadFcs))
        ));
    }

    #[test]
    fn prism_and_avs_are_skipped() {
        let mut prism = vec![0u8; 144];
        prism[..4].copy_from_slice(&0x44u32.to_le_bytes());
        prism[4..8].copy_from_slice(&144u32.to_le_bytes());
        prism.extend_from_slice(&FRAME);
        assert_eq!(prism_mpdu(&prism).unwrap(), FRAME);
        let mut avs = vec![0u8; 64];
        avs[..4].copy_from_slice(&0x8021_1001u32.to_be_bytes());
        avs[4..8].copy_from_slice(&64u32.to_be_bytes());
        avs.extend_from_slice(&FRAME);
        assert_eq!(avs_mpdu(&avs).unwrap(), FRAME);
        assert_eq!(prism_mpdu(&avs).unwrap(), FRAME, "AVS under the Prism link type");
    }

    #[test]
    fn damaged_pseudo_headers_are_typed_errors_never_panics() {
        let good = ppi(Some(PPI_FLAG_FCS), &[&FRAME[..], &[0; 4]].concat());
        for cut in 0..good.len() {
            let _ = ppi_mpdu(&good[..cut]);
            let _ = prism_mpdu(&good[..cut]);
            let _ = avs_mpdu(&good[..cut]);
        }
        let mut wrong_dlt = ppi(None, &FRAME);
        wrong_dlt[4] = 1;
        assert!(matches!(ppi_mpdu(&wrong_dlt), Err(crate::Error::Capture(CaptureError::UnsupportedLinkType(1)))));
        assert!(prism_mpdu(&[0, 0, 0, 0, 0xff, 0xff, 0, 0, 1]).is_err());
    }
}
