//! Link quality profiles: the PHY a link settles on and the frame error rate it then sees.

use super::phy::Phy;

/// A link's PHY and the probability that a data frame is lost (no ACK) on it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkProfile {
    pub phy: Phy,
    pub frame_error_rate: f64,
}

/// Frame error rate of the "poor signal" profile: rate control keeps a link near 10 % loss,
/// the usual target of Minstrel-style algorithms before they step down.
pub const POOR_SIGNAL_FRAME_ERROR_RATE: f64 = 0.10;

impl LinkProfile {
    /// The nominal PHY with no frame errors.
    pub fn clear(phy: Phy) -> LinkProfile {
        LinkProfile { phy, frame_error_rate: 0.0 }
    }

    /// A weak link: the same family at a robust rate (OFDM 12 Mbit/s, HT/VHT MCS 1 with one
    /// stream, QPSK 1/2, same width and guard interval) and 10 % frame errors.
    pub fn poor_signal(phy: Phy) -> LinkProfile {
        let phy = match phy {
            Phy::Erp { .. } => Phy::Erp { mbps: 12 },
            Phy::Ofdm { .. } => Phy::Ofdm { mbps: 12 },
            Phy::Ht { width, short_gi, .. } => Phy::Ht { mcs: 1, width, short_gi },
            Phy::Vht { width, short_gi, .. } => Phy::Vht { mcs: 1, width, short_gi },
        };
        LinkProfile { phy, frame_error_rate: POOR_SIGNAL_FRAME_ERROR_RATE }
    }
}
