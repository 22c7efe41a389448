//! LLC/SNAP encapsulation of an MSDU (IEEE 802.1H and RFC 1042) and its Ethernet II form.
//!
//! An 802.11 data frame carries `AA AA 03 | OUI | EtherType | payload`; the OUI is
//! 00-00-00 (RFC 1042) except for the EtherTypes 802.1H lists for the bridge-tunnel OUI
//! 00-00-F8 (AppleTalk ARP and Novell IPX), so the Ethernet frame is restored exactly.
//! Any other 802.2 LLC MSDU (spanning tree, NetBIOS, SNAP under another OUI) goes onto
//! Ethernet as an IEEE 802.3 length frame carrying the LLC header, as Linux, airdecap-ng
//! and Wireshark put it.

use crate::error::{Error, Result};
use crate::wire::MacAddr;

pub const SNAP_HEADER_LEN: usize = 8;
pub const ETHERNET_HEADER_LEN: usize = 14;

const LLC_SNAP: [u8; 3] = [0xaa, 0xaa, 0x03];
const RFC1042_OUI: [u8; 3] = [0x00, 0x00, 0x00];
const BRIDGE_TUNNEL_OUI: [u8; 3] = [0x00, 0x00, 0xf8];
const BRIDGE_TUNNEL_ETHERTYPES: [u16; 2] = [0x80f3, 0x8137];
/// EtherType values start here; smaller values in that position are 802.3 lengths.
const MIN_ETHERTYPE: u16 = 0x0600;
/// An 802.2 LLC header: DSAP, SSAP, Control (the shortest form).
pub const LLC_HEADER_LEN: usize = 3;
/// The largest value of an IEEE 802.3 length field.
pub const MAX_8023_LENGTH: usize = 1500;

/// How an MSDU is framed on Ethernet.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EthernetFraming {
    /// Behind an RFC 1042 or 802.1H SNAP header: Ethernet II with its EtherType.
    EthernetII { ethertype: u16 },
    /// Any other 802.2 LLC: an IEEE 802.3 frame whose length counts the whole MSDU.
    Ieee8023 { length: u16 },
}

impl EthernetFraming {
    /// The framing of `msdu`; refused when it is too short for an LLC header, or an LLC
    /// frame longer than an 802.3 length field can say.
    pub fn of(msdu: &[u8]) -> Result<Self> {
        if let Ok(ethertype) = parse_snap(msdu) {
            return Ok(EthernetFraming::EthernetII { ethertype });
        }
        if msdu.len() < LLC_HEADER_LEN {
            return Err(Error::Truncated { what: "LLC header", needed: LLC_HEADER_LEN, got: msdu.len() });
        }
        match u16::try_from(msdu.len()) {
            Ok(length) if msdu.len() <= MAX_8023_LENGTH => Ok(EthernetFraming::Ieee8023 { length }),
            _ => Err(Error::OutOfRange {
                what: "802.3 length of an LLC frame",
                min: LLC_HEADER_LEN as u64,
                max: MAX_8023_LENGTH as u64,
                got: msdu.len() as u64,
            }),
        }
    }

    /// Octets at the front of the MSDU that the Ethernet header replaces.
    pub fn replaced_len(self) -> usize {
        match self {
            EthernetFraming::EthernetII { .. } => SNAP_HEADER_LEN,
            EthernetFraming::Ieee8023 { .. } => 0,
        }
    }

    /// Write the 14-octet Ethernet header (DA, SA, EtherType or length) into `buf`.
    pub fn emit_header(self, da: MacAddr, src: MacAddr, buf: &mut [u8]) -> Result<()> {
        let type_or_length = match self {
            EthernetFraming::EthernetII { ethertype } => ethertype,
            EthernetFraming::Ieee8023 { length } => length,
        };
        EthernetRepr { dst: da, src, ethertype: type_or_length }.emit(buf)
    }
}

/// The Ethernet II header of a frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct EthernetRepr {
    pub dst: MacAddr,
    pub src: MacAddr,
    pub ethertype: u16,
}

impl EthernetRepr {
    pub fn parse(frame: &[u8]) -> Result<Self> {
        let header = frame.get(..ETHERNET_HEADER_LEN).ok_or(Error::Truncated {
            what: "Ethernet header",
            needed: ETHERNET_HEADER_LEN,
            got: frame.len(),
        })?;
        let mut dst = [0u8; 6];
        let mut src = [0u8; 6];
        dst.copy_from_slice(&header[0..6]);
        src.copy_from_slice(&header[6..12]);
        let ethertype = u16::from_be_bytes([header[12], header[13]]);
        if ethertype < MIN_ETHERTYPE {
            return Err(Error::Unsupported("802.3 length-framed Ethernet (not Ethernet II)"));
        }
        Ok(EthernetRepr { dst: MacAddr(dst), src: MacAddr(src), ethertype })
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let got = buf.len();
        let out =
            buf.get_mut(..ETHERNET_HEADER_LEN).ok_or(Error::BufferTooSmall { needed: ETHERNET_HEADER_LEN, got })?;
        out[0..6].copy_from_slice(&self.dst.0);
        out[6..12].copy_from_slice(&self.src.0);
        out[12..14].copy_from_slice(&self.ethertype.to_be_bytes());
        Ok(())
    }
}

/// Write the LLC/SNAP header for `ethertype` into `buf`; returns its length (8).
pub fn emit_snap(ethertype: u16, buf: &mut [u8]) -> Result<usize> {
    let got = buf.len();
    let out = buf.get_mut(..SNAP_HEADER_LEN).ok_or(Error::BufferTooSmall { needed: SNAP_HEADER_LEN, got })?;
    let oui = if BRIDGE_TUNNEL_ETHERTYPES.contains(&ethertype) { BRIDGE_TUNNEL_OUI } else { RFC1042_OUI };
    out[0..3].copy_from_slice(&LLC_SNAP);
    out[3..6].copy_from_slice(&oui);
    out[6..8].copy_from_slice(&ethertype.to_be_bytes());
    Ok(SNAP_HEADER_LEN)
}

/// The EtherType an MSDU carries behind its RFC 1042 or bridge-tunnel SNAP header.
pub fn parse_snap(msdu: &[u8]) -> Result<u16> {
    let snap = msdu.get(..SNAP_HEADER_LEN).ok_or(Error::Truncated {
        what: "LLC/SNAP header",
        needed: SNAP_HEADER_LEN,
        got: msdu.len(),
    })?;
    if snap[0..3] != LLC_SNAP || (snap[3..6] != RFC1042_OUI && snap[3..6] != BRIDGE_TUNNEL_OUI) {
        return Err(Error::Unsupported("MSDU without an RFC 1042 / 802.1H SNAP header"));
    }
    Ok(u16::from_be_bytes([snap[6], snap[7]]))
}

/// Turn an MSDU with source `sa` and destination `da` into an Ethernet II frame in `out`;
/// returns the frame's length.
pub fn msdu_to_ethernet(da: MacAddr, sa: MacAddr, msdu: &[u8], out: &mut [u8]) -> Result<usize> {
    let ethertype = parse_snap(msdu)?;
    let payload = &msdu[SNAP_HEADER_LEN..];
    let len = ETHERNET_HEADER_LEN + payload.len();
    if out.len() < len {
        return Err(Error::BufferTooSmall { needed: len, got: out.len() });
    }
    EthernetRepr { dst: da, src: sa, ethertype }.emit(out)?;
    out[ETHERNET_HEADER_LEN..len].copy_from_slice(payload);
    Ok(len)
}

/// Turn any MSDU into its Ethernet frame in `out` (Ethernet II, else 802.3; see
/// [`EthernetFraming`]); returns the frame's length.
pub fn msdu_to_lan_frame(da: MacAddr, sa: MacAddr, msdu: &[u8], out: &mut [u8]) -> Result<usize> {
    let framing = EthernetFraming::of(msdu)?;
    let payload = &msdu[framing.replaced_len()..];
    let len = ETHERNET_HEADER_LEN + payload.len();
    if out.len() < len {
        return Err(Error::BufferTooSmall { needed: len, got: out.len() });
    }
    framing.emit_header(da, sa, out)?;
    out[ETHERNET_HEADER_LEN..len].copy_from_slice(payload);
    Ok(len)
}

/// Turn an Ethernet II frame into its MSDU (SNAP header + payload) in `out`; returns the
/// Ethernet header (for the 802.11 addresses) and the MSDU's length.
pub fn ethernet_to_msdu(frame: &[u8], out: &mut [u8]) -> Result<(EthernetRepr, usize)> {
    let eth = EthernetRepr::parse(frame)?;
    let payload = &frame[ETHERNET_HEADER_LEN..];
    let len = SNAP_HEADER_LEN + payload.len();
    if out.len() < len {
        return Err(Error::BufferTooSmall { needed: len, got: out.len() });
    }
    emit_snap(eth.ethertype, out)?;
    out[SNAP_HEADER_LEN..len].copy_from_slice(payload);
    Ok((eth, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_round_trip_uses_rfc1042() {
        let mut eth = vec![0u8; 14];
        eth[0..6].copy_from_slice(&[1, 2, 3, 4, 5, 6]);
        eth[6..12].copy_from_slice(&[7, 8, 9, 10, 11, 12]);
        eth[12..14].copy_from_slice(&[0x08, 0x00]);
        eth.extend_from_slice(b"payload");
        let mut msdu = [0u8; 64];
        let (repr, len) = ethernet_to_msdu(&eth, &mut msdu).unwrap();
        assert_eq!(&msdu[..8], &[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
        let mut back = [0u8; 64];
        let n = msdu_to_ethernet(repr.dst, repr.src, &msdu[..len], &mut back).unwrap();
        assert_eq!(&back[..n], &eth[..]);
    }

    #[test]
    fn ipx_uses_the_bridge_tunnel_oui() {
        let mut snap = [0u8; 8];
        emit_snap(0x8137, &mut snap).unwrap();
        assert_eq!(snap, [0xaa, 0xaa, 0x03, 0, 0, 0xf8, 0x81, 0x37]);
        assert_eq!(parse_snap(&snap).unwrap(), 0x8137);
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(matches!(parse_snap(&[0xaa, 0xaa]), Err(Error::Truncated { .. })));
        assert!(parse_snap(&[0xf0, 0xf0, 0x03, 0, 0, 0, 8, 0]).is_err());
        assert!(EthernetRepr::parse(&[0u8; 13]).is_err());
        let mut short = [0u8; 4];
        assert!(matches!(emit_snap(0x0800, &mut short), Err(Error::BufferTooSmall { .. })));
    }

    #[test]
    fn llc_without_an_rfc1042_snap_header_becomes_an_8023_length_frame() {
        let (da, sa) = (MacAddr([1, 0x80, 0xc2, 0, 0, 0]), MacAddr([2, 0, 0, 0, 0, 7]));
        // Spanning tree (DSAP = SSAP = 0x42), and SNAP under Cisco's OUI (CDP).
        for msdu in [&[0x42, 0x42, 0x03, 0, 0, 0, 0][..], &[0xaa, 0xaa, 0x03, 0, 0, 0x0c, 0x20, 0x00, 9][..]] {
            let mut out = [0u8; 64];
            let n = msdu_to_lan_frame(da, sa, msdu, &mut out).unwrap();
            assert_eq!(&out[..12], &[da.0, sa.0].concat()[..]);
            assert_eq!(u16::from_be_bytes([out[12], out[13]]) as usize, msdu.len());
            assert_eq!(&out[14..n], msdu);
        }
        let snap = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x06, 1];
        let mut out = [0u8; 64];
        assert_eq!(msdu_to_lan_frame(da, sa, &snap, &mut out).unwrap(), 15);
        assert_eq!(&out[12..15], &[0x08, 0x06, 1]);
        assert!(matches!(EthernetFraming::of(&[0x42, 0x42]), Err(Error::Truncated { .. })));
        assert!(matches!(EthernetFraming::of(&[0x42; 1501]), Err(Error::OutOfRange { .. })));
        assert_eq!(EthernetFraming::of(&[0x42; 1500]).unwrap(), EthernetFraming::Ieee8023 { length: 1500 });
    }
}
