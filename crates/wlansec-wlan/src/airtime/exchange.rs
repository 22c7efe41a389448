//! Frame sizes on the air (MAC header, LLC/SNAP, security encapsulation, FCS, A-MPDU
//! framing) and the duration of one successful DATA–ACK (or A-MPDU–BlockAck) exchange.

use std::time::Duration;

use wlansec_core::{Error, Result};

use super::phy::{AccessCategory, Phy};
use super::txtime::{preamble, txtime};

/// MAC header of a data frame without / with the QoS Control field.
pub const DATA_HEADER_BYTES: usize = 24;
pub const QOS_DATA_HEADER_BYTES: usize = 26;
/// RFC 1042 LLC/SNAP header in front of the IP packet.
pub const LLC_SNAP_BYTES: usize = 8;
pub const FCS_BYTES: usize = 4;
/// ACK frame (frame control, duration, RA, FCS).
pub const ACK_BYTES: usize = 14;
/// Compressed BlockAck (header 16 + BA control 2 + starting sequence 2 + 8-byte bitmap + FCS).
pub const BLOCK_ACK_BYTES: usize = 32;
/// Largest MSDU without A-MSDU (9.2.4.7); the IP packet and LLC/SNAP must fit in it.
pub const MAX_MSDU_BYTES: usize = 2304;
/// A-MPDU subframe delimiter.
pub const MPDU_DELIMITER_BYTES: usize = 4;
/// Largest A-MPDU: HT 65 535 bytes (maximum A-MPDU length exponent 3), VHT 1 048 575.
const MAX_HT_AMPDU_BYTES: usize = 65_535;
const MAX_VHT_AMPDU_BYTES: usize = 1_048_575;
/// The BlockAck bitmap covers 64 MPDUs.
pub const MAX_AMPDU_MPDUS: usize = 64;
/// aPPDUMaxTime of the HT and VHT PHYs (Tables 19-25 and 21-28): the longest PPDU, which
/// bounds an A-MPDU at low MCS long before its byte limit does (ns-3 applies it too).
pub const PPDU_MAX_TIME: Duration = Duration::from_micros(5_484);

/// The largest A-MPDU `phy` may send, in bytes; None for PHYs without A-MPDU (DSSS/OFDM/ERP).
pub fn max_ampdu_bytes(phy: Phy) -> Option<usize> {
    match phy {
        Phy::Ht { .. } => Some(MAX_HT_AMPDU_BYTES),
        Phy::Vht { .. } => Some(MAX_VHT_AMPDU_BYTES),
        _ => None,
    }
}

/// A-MPDU bytes for MPDUs of these sizes (FCS included): a delimiter before each MPDU and
/// every subframe but the last padded to a 4-byte boundary (9.7.1).
pub fn ampdu_bytes(mpdu_bytes: impl IntoIterator<Item = usize>) -> usize {
    mpdu_bytes.into_iter().fold(0, |total, mpdu| total.next_multiple_of(4) + MPDU_DELIMITER_BYTES + mpdu)
}

/// One data transmission as the air sees it: which PHY and access category, the bytes the
/// security encapsulation adds to each MPDU (`SecurityMode::overhead`: open 0, WEP 8, TKIP 20,
/// CCMP and Enhanced 16), the IP packet size and how many MPDUs go in one PPDU (1 = no A-MPDU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exchange {
    phy: Phy,
    access: AccessCategory,
    security_overhead: usize,
    ip_bytes: usize,
    mpdus: usize,
}

impl Exchange {
    /// A single-MPDU exchange (DATA then ACK).
    pub fn new(phy: Phy, access: AccessCategory, security_overhead: usize, ip_bytes: usize) -> Result<Exchange> {
        Exchange::aggregated(phy, access, security_overhead, ip_bytes, 1)
    }

    /// `mpdus` MPDUs in one A-MPDU answered by one compressed BlockAck (HT/VHT, QoS only).
    pub fn aggregated(
        phy: Phy,
        access: AccessCategory,
        security_overhead: usize,
        ip_bytes: usize,
        mpdus: usize,
    ) -> Result<Exchange> {
        if ip_bytes + LLC_SNAP_BYTES > MAX_MSDU_BYTES {
            return Err(Error::Unsupported("IP packet larger than the 2304-byte MSDU (2296 bytes)"));
        }
        if mpdus == 0 || mpdus > MAX_AMPDU_MPDUS {
            return Err(Error::Unsupported("A-MPDU of 1 to 64 MPDUs"));
        }
        let exchange = Exchange { phy, access, security_overhead, ip_bytes, mpdus };
        if mpdus > 1 {
            let Some(max) = max_ampdu_bytes(phy) else {
                return Err(Error::Unsupported("A-MPDU needs an HT or VHT PHY"));
            };
            if !access.is_qos() {
                return Err(Error::Unsupported("A-MPDU needs QoS data (an EDCA access category)"));
            }
            if exchange.psdu_bytes() > max {
                return Err(Error::Unsupported("A-MPDU longer than the PHY's maximum length"));
            }
        }
        Ok(exchange)
    }

    pub fn phy(&self) -> Phy {
        self.phy
    }

    pub fn access(&self) -> AccessCategory {
        self.access
    }

    pub fn security_overhead(&self) -> usize {
        self.security_overhead
    }

    pub fn ip_bytes(&self) -> usize {
        self.ip_bytes
    }

    pub fn mpdus(&self) -> usize {
        self.mpdus
    }

    /// IP bytes delivered by one successful exchange.
    pub fn payload_bytes(&self) -> usize {
        self.ip_bytes * self.mpdus
    }

    /// One MPDU: header + LLC/SNAP + IP packet + security overhead + FCS.
    pub fn mpdu_bytes(&self) -> usize {
        mpdu_bytes(self.ip_bytes, self.security_overhead, self.access.is_qos())
    }

    /// The PSDU: the MPDU, or the A-MPDU (a delimiter before each MPDU and every subframe but
    /// the last padded to 4 bytes). VHT sends even one MPDU as an A-MPDU (S-MPDU, 21.10.3).
    pub fn psdu_bytes(&self) -> usize {
        let mpdu = self.mpdu_bytes();
        if self.mpdus == 1 && !matches!(self.phy, Phy::Vht { .. }) {
            return mpdu;
        }
        ampdu_bytes(std::iter::repeat_n(mpdu, self.mpdus))
    }

    /// TXTIME of the data PPDU.
    pub fn data_time(&self) -> Duration {
        txtime(self.phy, self.psdu_bytes())
    }

    /// TXTIME of the response: ACK for one MPDU, compressed BlockAck for an A-MPDU.
    pub fn response_time(&self) -> Duration {
        if self.mpdus > 1 {
            block_ack_time(self.phy)
        } else {
            ack_time(self.phy)
        }
    }

    /// DATA + SIFS + ACK/BlockAck: the busy air of one successful exchange.
    pub fn success_time(&self) -> Duration {
        self.data_time() + self.phy.sifs() + self.response_time()
    }

    /// How long a sender whose frame collided waits after it before contending again: the
    /// ACK timeout, SIFS + slot + the response's preamble and header (10.3.2.11: the PHY must
    /// have signalled a receive start by then; ns-3 uses the same), then AIFS.
    pub fn collision_time(&self) -> Duration {
        self.data_time()
            + self.phy.sifs()
            + self.phy.slot()
            + preamble(self.phy.control_response())
            + self.phy.aifs(self.access)
    }

    /// Mean backoff of an uncontended sender: CWmin/2 slots.
    pub fn mean_backoff(&self) -> Duration {
        self.phy.slot() * self.phy.cw_min(self.access) / 2
    }

    /// AIFS + mean backoff + DATA + SIFS + ACK: one uncontended, error-free cycle.
    pub fn cycle_time(&self) -> Duration {
        self.phy.aifs(self.access) + self.mean_backoff() + self.success_time()
    }
}

/// MPDU bytes for an IP packet: MAC header (24, or 26 for QoS data) + LLC/SNAP 8 + IP +
/// security overhead + FCS 4.
pub fn mpdu_bytes(ip_bytes: usize, security_overhead: usize, qos: bool) -> usize {
    let header = if qos { QOS_DATA_HEADER_BYTES } else { DATA_HEADER_BYTES };
    header + LLC_SNAP_BYTES + ip_bytes + security_overhead + FCS_BYTES
}

/// TXTIME of the ACK to a frame sent with `phy`, at its control response rate.
pub fn ack_time(phy: Phy) -> Duration {
    txtime(phy.control_response(), ACK_BYTES)
}

/// TXTIME of the compressed BlockAck to an A-MPDU sent with `phy`, at its control response rate.
pub fn block_ack_time(phy: Phy) -> Duration {
    txtime(phy.control_response(), BLOCK_ACK_BYTES)
}
