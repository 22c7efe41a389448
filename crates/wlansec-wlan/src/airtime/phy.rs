//! PHY modes by name (`g54`, `a24`, `n-mcs7-40-sgi`, `ac-mcs9-80`, ...) and the timing constants
//! each one brings: slot, SIFS, signal extension, AIFS and contention windows per access
//! category, and the rate control responses (ACK, BlockAck) are sent at.

use core::fmt;
use core::str::FromStr;
use std::time::Duration;

/// Legacy OFDM rates in Mbit/s with their data bits per 4 µs symbol (IEEE 802.11-2020 Table 17-4).
const OFDM_RATES: [(u32, u32); 8] = [(6, 24), (9, 36), (12, 48), (18, 72), (24, 96), (36, 144), (48, 192), (54, 216)];

/// Mandatory OFDM rates: control responses use the highest of these not above the data
/// frame's (non-HT reference) rate (10.6.6.5.2 of IEEE 802.11-2020).
const MANDATORY_OFDM_RATES: [u32; 3] = [6, 12, 24];

/// Modulation and coding of one HT/VHT MCS (per spatial stream): coded bits per subcarrier,
/// code rate numerator/denominator, and the non-HT reference rate (Table 10-10).
const MCS_TABLE: [(u32, u32, u32, u32); 10] = [
    (1, 1, 2, 6),  // BPSK 1/2
    (2, 1, 2, 12), // QPSK 1/2
    (2, 3, 4, 18), // QPSK 3/4
    (4, 1, 2, 24), // 16-QAM 1/2
    (4, 3, 4, 36), // 16-QAM 3/4
    (6, 2, 3, 48), // 64-QAM 2/3
    (6, 3, 4, 54), // 64-QAM 3/4
    (6, 5, 6, 54), // 64-QAM 5/6
    (8, 3, 4, 54), // 256-QAM 3/4 (VHT only)
    (8, 5, 6, 54), // 256-QAM 5/6 (VHT only)
];

/// The frequency band, which decides SIFS and the ERP signal extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Band {
    /// 2.4 GHz.
    Ghz2_4,
    /// 5 GHz.
    Ghz5,
}

/// Channel width of an HT/VHT transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Width {
    Mhz20,
    Mhz40,
    Mhz80,
    Mhz160,
}

impl Width {
    pub fn mhz(self) -> u32 {
        match self {
            Width::Mhz20 => 20,
            Width::Mhz40 => 40,
            Width::Mhz80 => 80,
            Width::Mhz160 => 160,
        }
    }

    fn from_mhz(mhz: u32) -> Option<Width> {
        [Width::Mhz20, Width::Mhz40, Width::Mhz80, Width::Mhz160].into_iter().find(|w| w.mhz() == mhz)
    }

    /// Data subcarriers (Tables 19-6 and 21-5).
    fn data_subcarriers(self) -> u32 {
        match self {
            Width::Mhz20 => 52,
            Width::Mhz40 => 108,
            Width::Mhz80 => 234,
            Width::Mhz160 => 468,
        }
    }
}

/// One PHY mode: the modulation a data frame is sent with and, through it, the PHY's timing.
///
/// ERP-OFDM (802.11g) assumes a g-only BSS (short 9 µs slot); HT (802.11n) and VHT (802.11ac)
/// are in the 5 GHz band, HT-mixed format, one spatial stream per 8 HT MCS indices (HT MCS
/// 0-31), VHT with one spatial stream, no STBC.
///
/// Build one by parsing its name ([`Phy::all`] lists them): the variants cannot be built
/// outside this crate, so every `Phy` holds a rate or MCS the standard has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phy {
    /// Clause 18 ERP-OFDM, 2.4 GHz (`g6` ... `g54`).
    #[non_exhaustive]
    Erp { mbps: u32 },
    /// Clause 17 OFDM, 5 GHz (`a6` ... `a54`).
    #[non_exhaustive]
    Ofdm { mbps: u32 },
    /// Clause 19 HT-mixed, 5 GHz (`n-mcs7-40`, `n-mcs15-20-sgi`).
    #[non_exhaustive]
    Ht { mcs: u8, width: Width, short_gi: bool },
    /// Clause 21 VHT single user, one spatial stream, 5 GHz (`ac-mcs9-80`).
    #[non_exhaustive]
    Vht { mcs: u8, width: Width, short_gi: bool },
}

/// Why a PHY name was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParsePhyError {
    /// Not of the form `gR`, `aR`, `n-mcsM-W[-sgi]` or `ac-mcsM-W[-sgi]`.
    Syntax(String),
    /// `g`/`a` with a rate that is not an OFDM rate.
    Rate(u32),
    /// An MCS index beyond the family's table.
    Mcs { family: &'static str, mcs: u32, max: u8 },
    /// A channel width the family does not have.
    Width { family: &'static str, mhz: u32 },
    /// A VHT MCS/width pair the standard excludes (non-integer bits per symbol, Table 21-29).
    Excluded { mcs: u8, mhz: u32 },
}

impl fmt::Display for ParsePhyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParsePhyError::Syntax(name) => {
                write!(f, "unknown PHY '{name}': expected g6..g54, a6..a54, n-mcsM-W[-sgi] or ac-mcsM-W[-sgi]")
            }
            ParsePhyError::Rate(r) => {
                write!(f, "no OFDM rate of {r} Mbit/s: use 6, 9, 12, 18, 24, 36, 48 or 54")
            }
            ParsePhyError::Mcs { family, mcs, max } => {
                write!(f, "{family} has no MCS {mcs}: use 0..={max}")
            }
            ParsePhyError::Width { family, mhz } => write!(f, "{family} has no {mhz} MHz channel"),
            ParsePhyError::Excluded { mcs, mhz } => {
                write!(f, "VHT MCS {mcs} is not allowed at {mhz} MHz with one spatial stream")
            }
        }
    }
}

impl std::error::Error for ParsePhyError {}

impl FromStr for Phy {
    type Err = ParsePhyError;

    fn from_str(name: &str) -> Result<Phy, ParsePhyError> {
        let syntax = || ParsePhyError::Syntax(name.to_string());
        let number = |s: &str| -> Result<u32, ParsePhyError> {
            let canonical = s == "0" || !s.starts_with('0');
            if s.is_empty() || s.len() > 4 || !canonical || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            s.parse().map_err(|_| syntax())
        };
        let legacy = |rate: &str| -> Result<u32, ParsePhyError> {
            let mbps = number(rate)?;
            OFDM_RATES.iter().any(|&(r, _)| r == mbps).then_some(mbps).ok_or(ParsePhyError::Rate(mbps))
        };
        if let Some(rest) = name.strip_prefix("n-mcs").or_else(|| name.strip_prefix("ac-mcs")) {
            let vht = name.starts_with("ac");
            let family = if vht { "VHT (ac)" } else { "HT (n)" };
            let mut parts = rest.split('-');
            let mcs = number(parts.next().ok_or_else(syntax)?)?;
            let mhz = number(parts.next().ok_or_else(syntax)?)?;
            let short_gi = match parts.next() {
                None => false,
                Some("sgi") => true,
                Some(_) => return Err(syntax()),
            };
            if parts.next().is_some() {
                return Err(syntax());
            }
            let max = if vht { 9 } else { 31 };
            if mcs > u32::from(max) {
                return Err(ParsePhyError::Mcs { family, mcs, max });
            }
            let mcs = mcs as u8;
            let width = Width::from_mhz(mhz)
                .filter(|w| vht || *w <= Width::Mhz40)
                .ok_or(ParsePhyError::Width { family, mhz })?;
            let phy = if vht { Phy::Vht { mcs, width, short_gi } } else { Phy::Ht { mcs, width, short_gi } };
            if phy.bits_per_symbol_fraction().1 != 1 {
                return Err(ParsePhyError::Excluded { mcs, mhz });
            }
            Ok(phy)
        } else if let Some(rate) = name.strip_prefix('g') {
            Ok(Phy::Erp { mbps: legacy(rate)? })
        } else if let Some(rate) = name.strip_prefix('a') {
            Ok(Phy::Ofdm { mbps: legacy(rate)? })
        } else {
            Err(syntax())
        }
    }
}

impl fmt::Display for Phy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sgi = |s: bool| if s { "-sgi" } else { "" };
        match *self {
            Phy::Erp { mbps } => write!(f, "g{mbps}"),
            Phy::Ofdm { mbps } => write!(f, "a{mbps}"),
            Phy::Ht { mcs, width, short_gi } => {
                write!(f, "n-mcs{mcs}-{}{}", width.mhz(), sgi(short_gi))
            }
            Phy::Vht { mcs, width, short_gi } => {
                write!(f, "ac-mcs{mcs}-{}{}", width.mhz(), sgi(short_gi))
            }
        }
    }
}

/// An EDCA access category, or plain DCF (non-QoS data), which decides AIFSN and the
/// contention window (Table 9-155 of IEEE 802.11-2020).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessCategory {
    /// DCF: DIFS = SIFS + 2 slots, CW aCWmin..aCWmax; non-QoS data frames.
    Dcf,
    Background,
    BestEffort,
    Video,
    Voice,
}

impl AccessCategory {
    pub fn aifsn(self) -> u32 {
        match self {
            AccessCategory::Dcf | AccessCategory::Video | AccessCategory::Voice => 2,
            AccessCategory::BestEffort => 3,
            AccessCategory::Background => 7,
        }
    }

    /// Whether frames of this category are QoS data (26-byte header).
    pub fn is_qos(self) -> bool {
        self != AccessCategory::Dcf
    }
}

impl Phy {
    /// Every PHY mode this model knows, in a stable order.
    pub fn all() -> impl Iterator<Item = Phy> {
        let legacy = OFDM_RATES.iter().flat_map(|&(mbps, _)| [Phy::Erp { mbps }, Phy::Ofdm { mbps }]);
        let ht = (0..32u8).flat_map(|mcs| {
            [Width::Mhz20, Width::Mhz40]
                .into_iter()
                .flat_map(move |width| [false, true].map(|short_gi| Phy::Ht { mcs, width, short_gi }))
        });
        let vht = (0..10u8).flat_map(|mcs| {
            [Width::Mhz20, Width::Mhz40, Width::Mhz80, Width::Mhz160]
                .into_iter()
                .flat_map(move |width| [false, true].map(|short_gi| Phy::Vht { mcs, width, short_gi }))
        });
        legacy.chain(ht).chain(vht).filter(|p| p.bits_per_symbol_fraction().1 == 1)
    }

    pub fn band(self) -> Band {
        match self {
            Phy::Erp { .. } => Band::Ghz2_4,
            _ => Band::Ghz5,
        }
    }

    /// aSlotTime: 9 µs (ERP short slot in a g-only BSS, and every 5 GHz PHY).
    pub fn slot(self) -> Duration {
        Duration::from_micros(9)
    }

    /// aSIFSTime: 10 µs in 2.4 GHz, 16 µs in 5 GHz.
    pub fn sifs(self) -> Duration {
        match self.band() {
            Band::Ghz2_4 => Duration::from_micros(10),
            Band::Ghz5 => Duration::from_micros(16),
        }
    }

    /// The 6 µs of idle air after every ERP-OFDM PPDU (18.3.2.4), so that a 2.4 GHz receiver
    /// gets the 16 µs of decoding time that 5 GHz has in SIFS. Zero in 5 GHz.
    pub fn signal_extension(self) -> Duration {
        match self.band() {
            Band::Ghz2_4 => Duration::from_micros(6),
            Band::Ghz5 => Duration::ZERO,
        }
    }

    /// `AIFS[AC] = SIFS + AIFSN · slot`; DIFS for [`AccessCategory::Dcf`].
    pub fn aifs(self, ac: AccessCategory) -> Duration {
        self.sifs() + self.slot() * ac.aifsn()
    }

    /// CWmin for the category (aCWmin = 15 for OFDM PHYs; VI (15+1)/2-1, VO (15+1)/4-1).
    pub fn cw_min(self, ac: AccessCategory) -> u32 {
        match ac {
            AccessCategory::Voice => 3,
            AccessCategory::Video => 7,
            _ => 15,
        }
    }

    /// CWmax for the category (aCWmax = 1023; VI aCWmin, VO (aCWmin+1)/2-1).
    pub fn cw_max(self, ac: AccessCategory) -> u32 {
        match ac {
            AccessCategory::Voice => 7,
            AccessCategory::Video => 15,
            _ => 1023,
        }
    }

    /// Data bits per OFDM symbol, as a fraction (numerator, denominator) reduced so that
    /// the denominator is 1 for every mode the standard allows.
    fn bits_per_symbol_fraction(self) -> (u32, u32) {
        match self {
            Phy::Erp { mbps } | Phy::Ofdm { mbps } => (OFDM_RATES.iter().find(|r| r.0 == mbps).map_or(0, |r| r.1), 1),
            Phy::Ht { width, .. } | Phy::Vht { width, .. } => {
                let (bpscs, num, den, _) = self.modulation();
                let n = width.data_subcarriers() * bpscs * num * self.spatial_streams();
                let g = gcd(n, den);
                (n / g, den / g)
            }
        }
    }

    /// The MCS table row of an HT/VHT mode (HT repeats the eight modulations per stream count).
    fn modulation(self) -> (u32, u32, u32, u32) {
        match self {
            Phy::Ht { mcs, .. } => MCS_TABLE[usize::from(mcs % 8)],
            Phy::Vht { mcs, .. } => MCS_TABLE[usize::from(mcs)],
            Phy::Erp { mbps } | Phy::Ofdm { mbps } => (0, 0, 0, mbps),
        }
    }

    /// N_DBPS: data bits per OFDM symbol (all streams).
    pub fn bits_per_symbol(self) -> u32 {
        self.bits_per_symbol_fraction().0
    }

    /// N_SS: spatial streams (HT MCS 8·k+i uses k+1 streams; VHT modes here use one).
    pub fn spatial_streams(self) -> u32 {
        match self {
            Phy::Ht { mcs, .. } => u32::from(mcs / 8) + 1,
            _ => 1,
        }
    }

    pub fn short_gi(self) -> bool {
        matches!(self, Phy::Ht { short_gi: true, .. } | Phy::Vht { short_gi: true, .. })
    }

    /// Data rate in bit/s: N_DBPS per 4 µs symbol (3.6 µs with short GI).
    pub fn data_rate_bps(self) -> f64 {
        let symbol_ns = if self.short_gi() { 3600.0 } else { 4000.0 };
        f64::from(self.bits_per_symbol()) * 1e9 / symbol_ns
    }

    /// N_ES: BCC encoders. HT uses two above 300 Mbit/s (19.3.11.2); VHT one per 600 Mbit/s
    /// at short GI, i.e. per 540 Mbit/s at long GI (Tables 21-30 ff. list N_ES per MCS, not per GI).
    pub fn encoders(self) -> u32 {
        let long_gi_mbps = self.bits_per_symbol() / 4;
        let per_encoder = match self {
            Phy::Ht { .. } => 300,
            Phy::Vht { .. } => 540,
            _ => return 1,
        };
        long_gi_mbps.div_ceil(per_encoder).max(1)
    }

    /// The rate of the non-HT reference for HT/VHT (Table 10-10), or the rate itself.
    fn reference_mbps(self) -> u32 {
        self.modulation().3
    }

    /// The PHY mode control responses (ACK, BlockAck) to a frame sent with this one use: the
    /// highest mandatory OFDM rate not above the (reference) data rate, in the same band.
    pub fn control_response(self) -> Phy {
        let reference = self.reference_mbps();
        let mbps = MANDATORY_OFDM_RATES.iter().copied().filter(|&r| r <= reference).max().unwrap_or(6);
        match self.band() {
            Band::Ghz2_4 => Phy::Erp { mbps },
            Band::Ghz5 => Phy::Ofdm { mbps },
        }
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
