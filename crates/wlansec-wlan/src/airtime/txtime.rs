//! TXTIME: how long a PPDU carrying a PSDU of L bytes occupies the air (IEEE 802.11-2020
//! 17.4.3 eq. (17-29), 19.4.3 eqs. (19-89)/(19-90), 21.4.3 eq. (21-106)).

use std::time::Duration;

use super::phy::Phy;

/// SERVICE field bits before the PSDU.
const SERVICE_BITS: u64 = 16;
/// Tail bits per BCC encoder after the PSDU.
const TAIL_BITS: u64 = 6;
/// Long-GI OFDM symbol (T_SYML), ns.
const SYMBOL_NS: u64 = 4_000;
/// Short-GI OFDM symbol (T_SYMS), ns.
const SHORT_GI_SYMBOL_NS: u64 = 3_600;

/// Preamble and PHY header in µs: L-STF 8 + L-LTF 8 + L-SIG 4, then for HT-mixed
/// HT-SIG 8 + HT-STF 4 + one HT-LTF of 4 µs per long training field, and for VHT
/// VHT-SIG-A 8 + VHT-STF 4 + VHT-LTFs 4 each + VHT-SIG-B 4.
fn preamble_us(phy: Phy) -> u64 {
    const LEGACY: u64 = 16 + 4;
    match phy {
        Phy::Erp { .. } | Phy::Ofdm { .. } => LEGACY,
        Phy::Ht { .. } => LEGACY + 8 + 4 + 4 * training_fields(phy),
        Phy::Vht { .. } => LEGACY + 8 + 4 + 4 * training_fields(phy) + 4,
    }
}

/// N_LTF for the number of spatial streams (Table 19-13: 1, 2, 4, 4).
fn training_fields(phy: Phy) -> u64 {
    match phy.spatial_streams() {
        1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// N_SYM: data symbols for a PSDU of `psdu_bytes`.
pub fn data_symbols(phy: Phy, psdu_bytes: usize) -> u64 {
    let bits = SERVICE_BITS + 8 * psdu_bytes as u64 + TAIL_BITS * u64::from(phy.encoders());
    bits.div_ceil(u64::from(phy.bits_per_symbol()))
}

/// The standard's TXTIME of a PPDU carrying `psdu_bytes`, including the ERP signal extension.
///
/// With a short guard interval the data symbols (3.6 µs each) are rounded up to a whole
/// number of 4 µs symbols: TXTIME = … + T_SYML · ⌈T_SYMS · N_SYM / T_SYML⌉ (eq. (19-90)),
/// because legacy receivers derive the PPDU's duration from L-SIG in 4 µs units and
/// defer for exactly that long. ns-3 returns the unrounded [`ppdu_duration`] instead.
pub fn txtime(phy: Phy, psdu_bytes: usize) -> Duration {
    let symbols = data_symbols(phy, psdu_bytes);
    let data_ns = if phy.short_gi() {
        SYMBOL_NS * (SHORT_GI_SYMBOL_NS * symbols).div_ceil(SYMBOL_NS)
    } else {
        SYMBOL_NS * symbols
    };
    Duration::from_micros(preamble_us(phy)) + Duration::from_nanos(data_ns) + phy.signal_extension()
}

/// How long the PPDU's symbols themselves last: N_SYM · 3.6 µs with short GI, otherwise
/// equal to [`txtime`]. This is what ns-3's `WifiPhy::CalculateTxDuration` returns; it is at
/// most 3.6 µs shorter than TXTIME.
pub fn ppdu_duration(phy: Phy, psdu_bytes: usize) -> Duration {
    let symbol_ns = if phy.short_gi() { SHORT_GI_SYMBOL_NS } else { SYMBOL_NS };
    Duration::from_micros(preamble_us(phy))
        + Duration::from_nanos(symbol_ns * data_symbols(phy, psdu_bytes))
        + phy.signal_extension()
}

/// PHY preamble and header only (what a receiver needs before it knows a frame is coming).
pub fn preamble(phy: Phy) -> Duration {
    Duration::from_micros(preamble_us(phy))
}
