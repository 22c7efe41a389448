//! The last stages of the receive pipeline: an MSDU, plaintext and whole, split into its
//! A-MSDU subframes and turned into Ethernet: LLC/SNAP into Ethernet II, any other LLC into
//! an IEEE 802.3 length frame.

use crate::error::{Error, Result};
use crate::rsn::eapol::ETHERTYPE_EAPOL;
use crate::wire::llc::{self, EthernetFraming, ETHERNET_HEADER_LEN, SNAP_HEADER_LEN};
use crate::wire::tdls::ETHERTYPE_TDLS;
use crate::wire::{HeaderRepr, MacAddr};

/// An A-MSDU subframe header: DA, SA and the length of the MSDU behind it.
const SUBFRAME_HEADER_LEN: usize = 14;

/// A received MSDU after decapsulation, replay check and reassembly: the plaintext MPDU
/// (Protected, More Fragments and the fragment number clear) that carries it.
pub struct Delivered<'a> {
    pub header: HeaderRepr,
    pub header_len: usize,
    /// Whether the frame arrived protected.
    pub protected: bool,
    /// Whether the MSDU was reassembled from fragments.
    pub reassembled: bool,
    pub(super) mpdu: &'a mut Vec<u8>,
}

/// One MSDU with its addresses: the whole MSDU of an MPDU, or one A-MSDU subframe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Msdu<'a> {
    pub da: MacAddr,
    pub sa: MacAddr,
    /// LLC/SNAP header and payload.
    pub body: &'a [u8],
}

impl Msdu<'_> {
    pub fn ethertype(&self) -> Result<u16> {
        llc::parse_snap(self.body)
    }

    /// The EAPOL frame this MSDU carries, if it is one.
    pub fn eapol(&self) -> Option<&[u8]> {
        (self.ethertype().ok()? == ETHERTYPE_EAPOL).then(|| &self.body[SNAP_HEADER_LEN..])
    }

    /// The TDLS frame this MSDU carries (a remote frame, EtherType 89-0d), if it is one.
    pub fn tdls(&self) -> Option<&[u8]> {
        (self.ethertype().ok()? == ETHERTYPE_TDLS).then(|| self.payload())
    }

    /// The payload behind the LLC/SNAP header.
    pub fn payload(&self) -> &[u8] {
        self.body.get(SNAP_HEADER_LEN..).unwrap_or_default()
    }

    /// The MSDU as an Ethernet II or 802.3 frame (see [`EthernetFraming`]).
    pub fn to_ethernet(&self) -> Result<Vec<u8>> {
        let mut out = vec![0u8; ETHERNET_HEADER_LEN + self.body.len()];
        let n = llc::msdu_to_lan_frame(self.da, self.sa, self.body, &mut out)?;
        out.truncate(n);
        Ok(out)
    }
}

impl<'a> Delivered<'a> {
    /// The plaintext MPDU: MAC header, then the MSDU (or A-MSDU).
    pub fn mpdu(&self) -> &[u8] {
        self.mpdu
    }

    /// Whether the frame carries an A-MSDU (QoS Control's A-MSDU Present bit).
    pub fn is_amsdu(&self) -> bool {
        self.header.qos_control.is_some_and(|q| q.amsdu_present())
    }

    /// The MSDUs the frame carries: its body, or each A-MSDU subframe in turn. A malformed
    /// subframe ends the iteration with an error.
    pub fn msdus(&self) -> Msdus<'_> {
        let body = &self.mpdu[self.header_len..];
        if self.is_amsdu() {
            Msdus::Aggregate(body)
        } else {
            Msdus::One(Some(Msdu { da: self.header.da(), sa: self.header.sa(), body }))
        }
    }

    /// The single MSDU as an Ethernet II (or 802.3) frame, built in place: the Ethernet
    /// header replaces the end of the MAC header and the SNAP header (a MAC header is at
    /// least 24 octets), so the payload is never copied. An A-MSDU takes
    /// [`Delivered::msdus`] instead.
    pub fn into_ethernet(self) -> Result<&'a [u8]> {
        if self.is_amsdu() {
            return Err(Error::Unsupported("an A-MSDU holds several Ethernet frames"));
        }
        let h = self.header_len;
        let framing = EthernetFraming::of(&self.mpdu[h..])?;
        let start = h + framing.replaced_len() - ETHERNET_HEADER_LEN;
        framing.emit_header(self.header.da(), self.header.sa(), &mut self.mpdu[start..])?;
        Ok(&self.mpdu[start..])
    }
}

/// The MSDUs of one MPDU.
pub enum Msdus<'a> {
    One(Option<Msdu<'a>>),
    /// The subframes not yet read.
    Aggregate(&'a [u8]),
}

impl<'a> Iterator for Msdus<'a> {
    type Item = Result<Msdu<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Msdus::One(msdu) => msdu.take().map(Ok),
            Msdus::Aggregate([]) => None,
            Msdus::Aggregate(rest) => {
                let parsed = parse_subframe(rest);
                match parsed {
                    Ok((msdu, after)) => {
                        *rest = after;
                        Some(Ok(msdu))
                    }
                    Err(e) => {
                        *rest = &[];
                        Some(Err(e))
                    }
                }
            }
        }
    }
}

/// One A-MSDU subframe (DA, SA, length, MSDU, padding to 4 octets) off the front of `data`.
fn parse_subframe(data: &[u8]) -> Result<(Msdu<'_>, &[u8])> {
    let header = data.get(..SUBFRAME_HEADER_LEN).ok_or(Error::Truncated {
        what: "A-MSDU subframe header",
        needed: SUBFRAME_HEADER_LEN,
        got: data.len(),
    })?;
    let addr = |at: usize| MacAddr(header[at..at + 6].try_into().unwrap_or_default());
    let len = usize::from(u16::from_be_bytes([header[12], header[13]]));
    let end = SUBFRAME_HEADER_LEN + len;
    let body = data.get(SUBFRAME_HEADER_LEN..end).ok_or(Error::Truncated {
        what: "A-MSDU subframe",
        needed: end,
        got: data.len(),
    })?;
    // Every subframe but the last is padded to a multiple of 4 octets.
    let next = end.next_multiple_of(4).min(data.len());
    Ok((Msdu { da: addr(0), sa: addr(6), body }, &data[next..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subframe(da: u8, sa: u8, msdu: &[u8], pad: bool) -> Vec<u8> {
        let mut s = vec![2, 0, 0, 0, 0, da, 2, 0, 0, 0, 0, sa];
        s.extend_from_slice(&(msdu.len() as u16).to_be_bytes());
        s.extend_from_slice(msdu);
        while pad && s.len() % 4 != 0 {
            s.push(0);
        }
        s
    }

    #[test]
    fn subframes_split_with_their_addresses_and_padding() {
        let snap = |p: &[u8]| [&[0xaa, 0xaa, 3, 0, 0, 0, 0x08, 0x00][..], p].concat();
        let mut data = subframe(1, 2, &snap(b"first"), true);
        data.extend(subframe(3, 4, &snap(b"second!"), false));
        let msdus: Vec<_> = Msdus::Aggregate(&data).collect::<Result<_>>().unwrap();
        assert_eq!(msdus.len(), 2);
        assert_eq!((msdus[0].da.0[5], msdus[0].sa.0[5], msdus[0].payload()), (1, 2, &b"first"[..]));
        assert_eq!((msdus[1].da.0[5], msdus[1].sa.0[5], msdus[1].payload()), (3, 4, &b"second!"[..]));
        assert_eq!(msdus[1].ethertype().unwrap(), 0x0800);
    }

    #[test]
    fn a_truncated_subframe_ends_with_an_error() {
        let data = subframe(1, 2, b"0123456789", false);
        for cut in [5, 20] {
            let mut it = Msdus::Aggregate(&data[..cut]);
            assert!(matches!(it.next(), Some(Err(Error::Truncated { .. }))));
            assert!(it.next().is_none());
        }
    }
}
