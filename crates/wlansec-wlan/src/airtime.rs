//! The analytical 802.11 airtime model the emulated medium charges frames with: PHY modes and
//! their timing, the standard's TXTIME, frame sizes with security encapsulation and A-MPDU,
//! the duration of a frame exchange, per-station seeded backoff, and saturation throughput
//! (Bianchi). Design note with the worked figures and references: docs/airtime.md.

mod backoff;
mod exchange;
mod phy;
mod profile;
mod saturation;
mod txtime;

pub use backoff::{AfterFailure, Backoff, RETRY_LIMIT};
pub use exchange::{
    ack_time, ampdu_bytes, block_ack_time, max_ampdu_bytes, mpdu_bytes, Exchange, ACK_BYTES, BLOCK_ACK_BYTES,
    DATA_HEADER_BYTES, FCS_BYTES, LLC_SNAP_BYTES, MAX_AMPDU_MPDUS, MAX_MSDU_BYTES, MPDU_DELIMITER_BYTES, PPDU_MAX_TIME,
    QOS_DATA_HEADER_BYTES,
};
pub use phy::{AccessCategory, Band, ParsePhyError, Phy, Width};
pub use profile::{LinkProfile, POOR_SIGNAL_FRAME_ERROR_RATE};
pub use saturation::{saturation, simulated_saturation, single_station_throughput_bps, Saturation};
pub use txtime::{data_symbols, ppdu_duration, preamble, txtime};

#[cfg(test)]
mod tests;
