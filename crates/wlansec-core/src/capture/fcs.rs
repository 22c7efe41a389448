//! A trailing FCS the link type leaves unsaid. Prism (119) and AVS (163) headers have no
//! field for it, PPI (192) says it only in an 802.11-Common field, and plain 802.11 (105) is
//! defined without one (libpcap); yet some drivers end every frame with its FCS there (madwifi,
//! prism54, some rt2x00 and Atheros monitor modes), and a frame read with it fails its
//! integrity check. airdecap-ng strips the last four octets of any frame they are the CRC-32
//! of; Wireshark has a preference ("Assume packets have FCS") instead.
//!
//! Here the [`Reader`](super::Reader) decides per capture (and per link type): the first
//! [`VOTES`] frames long enough to hold an FCS are checked one by one (their FCS cut when it
//! checks). None of them ending in their CRC: the capture has no FCS, and nothing more is
//! computed. Any of them: every frame is checked and its FCS cut only where it checks, as
//! airdecap-ng does. An FCS is never cut on the first frames' word alone: anyone on the air
//! can send frames that end in their own CRC, and such frames at the start of a capture
//! without FCS would then have four octets cut from every genuine frame after them. Why
//! decide at all: a CRC-32 of every frame, though crc32fast runs it at ~15 GB/s, is ~8% of
//! what `wlansec decrypt` spends on a CCMP capture of link type 105 (5 ms of ~65 ms CPU for
//! 83 MB), the benchmarked case; a capture without FCS, the common one, costs nothing per
//! frame once decided. What a forger's frames can do here is only that: keep the check on.
//! Chance: a frame without FCS whose last four octets happen to be its CRC is 2^-32 a frame.

use super::{pseudo, LinkType};

/// Frames long enough to hold an FCS that decide a capture.
pub(crate) const VOTES: u8 = 16;
const FCS_LEN: usize = 4;
/// The shortest 802.11 frame (an ACK or CTS, without FCS): a frame of fewer than this plus
/// four octets does not vote, and has no FCS cut.
const MIN_FRAME: usize = 10;

/// What was found so far for one link type.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
enum Found {
    #[default]
    Undecided,
    /// No frame does.
    Absent,
    /// Some do (or all): check each.
    PerFrame,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
struct State {
    found: Found,
    /// Frames checked, and how many of them ended in their CRC.
    checked: u8,
    with_fcs: u8,
}

/// The per-capture decision for the four link types that may leave an FCS unsaid.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct FcsDetector {
    states: [State; 4],
}

impl FcsDetector {
    /// `packet` (a link type's whole record, captured whole) without the FCS it ends with,
    /// if it ends with one nothing announced.
    #[inline]
    pub(crate) fn strip<'a>(&mut self, link_type: LinkType, packet: &'a [u8]) -> &'a [u8] {
        let slot = match link_type {
            LinkType::Ieee80211 => 0,
            LinkType::Prism => 1,
            LinkType::Avs => 2,
            LinkType::Ppi => 3,
            _ => return packet,
        };
        let state = &mut self.states[slot];
        if state.found == Found::Absent {
            return packet;
        }
        let Some(frame) = unsaid_frame(link_type, packet).filter(|f| f.len() >= MIN_FRAME + FCS_LEN) else {
            return packet;
        };
        let cut = &packet[..packet.len() - FCS_LEN];
        match state.found {
            Found::Absent => packet,
            Found::PerFrame => {
                if ends_with_fcs(frame) {
                    cut
                } else {
                    packet
                }
            }
            Found::Undecided => {
                let with = ends_with_fcs(frame);
                state.checked += 1;
                state.with_fcs += u8::from(with);
                if state.checked == VOTES {
                    state.found = if state.with_fcs == 0 { Found::Absent } else { Found::PerFrame };
                }
                if with {
                    cut
                } else {
                    packet
                }
            }
        }
    }
}

/// The 802.11 frame (with whatever ends it) behind the link type's header, when nothing in
/// that header says whether an FCS ends it; `None` when something does, or the header does
/// not parse (the packet's `mpdu` then gives the error).
fn unsaid_frame(link_type: LinkType, packet: &[u8]) -> Option<&[u8]> {
    match link_type {
        LinkType::Ieee80211 => Some(packet),
        LinkType::Prism => pseudo::prism_mpdu(packet).ok(),
        LinkType::Avs => pseudo::avs_mpdu(packet).ok(),
        LinkType::Ppi => pseudo::ppi_frame(packet).ok().filter(|&(_, said)| !said).map(|(frame, _)| frame),
        _ => None,
    }
}

/// The frame's last four octets are the CRC-32 of the rest (little-endian, as on the air).
#[inline]
pub(crate) fn ends_with_fcs(frame: &[u8]) -> bool {
    let Some(split) = frame.len().checked_sub(FCS_LEN) else { return false };
    let (mpdu, fcs) = frame.split_at(split);
    crc32fast::hash(mpdu).to_le_bytes() == fcs
}
