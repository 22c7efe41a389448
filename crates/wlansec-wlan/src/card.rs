//! Where the crypto runs. The frames are always protected for real (by the host engine or
//! the core's suites); what this module models is *when* a card-protected frame is ready:
//! the card's crypto engine handles one frame at a time, so frames queue behind it.
//!
//! * `hw`: a line-rate engine inline with the PHY: it ciphers the bits as they are clocked
//!   onto (or off) the air, so it adds no time of its own.
//! * `mcu:MHZ`: the portable software suite on an embedded core: instructions per frame
//!   (counted once with callgrind per suite and frame size, `data/mcu-instructions.json`,
//!   produced by `scripts/wlan-count-instructions.sh`) divided by the clock.
//! * `fixed:US`: a stated per-frame latency.
//!
//! The access point's crypto is `sw` (the host engine, real CPU cost, nothing modelled),
//! `rtl` (cycles per frame of the Verilog CCMP core ÷ its Fmax), or `verilog:MHZ`: no model
//! at all, the RTL itself ([`crate::verilog`]) seals and opens every CCMP frame, and the
//! time it takes is the cycles the RTL counted at MHZ.
//!
//! A card takes a frame from the host only when its transmit queue has room
//! ([`CryptoEngine::send`]): a frame the queue would drop never costs engine time.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::medium::Medium;
use crate::security::SecurityMode;
use crate::verilog::{self, Card};
use crate::{Error, Result};

/// Instruction counts per frame (suite → [(MPDU bytes, instructions)]), from callgrind.
const MCU_COUNTS: &str = include_str!("../data/mcu-instructions.json");

/// A per-frame crypto cost model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum CryptoModel {
    /// The host does the work; its cost is real, not modelled.
    Host,
    Hw,
    Mcu {
        mhz: f64,
    },
    Fixed {
        us: f64,
    },
    Rtl {
        cycles_per_block: f64,
        cycles_per_frame: f64,
        fmax_mhz: f64,
    },
    /// The access point's verilated RTL clocked at `mhz`: its cost is what it counts.
    Verilog {
        mhz: f64,
    },
}

impl FromStr for CryptoModel {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let number = |v: &str| {
            v.parse::<f64>()
                .ok()
                .filter(|x| *x > 0.0 && x.is_finite())
                .ok_or_else(|| Error::CryptoModelParameter(s.into()))
        };
        match s.split_once(':') {
            None if s == "hw" => Ok(CryptoModel::Hw),
            None if s == "sw" => Ok(CryptoModel::Host),
            None if s == "rtl" => rtl_from_reports(),
            Some(("mcu", v)) => Ok(CryptoModel::Mcu { mhz: number(v)? }),
            Some(("fixed", v)) => Ok(CryptoModel::Fixed { us: number(v)? }),
            Some(("verilog", v)) => Ok(CryptoModel::Verilog { mhz: number(v)? }),
            _ => Err(Error::UnknownCryptoModel(s.into())),
        }
    }
}

impl fmt::Display for CryptoModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CryptoModel::Host => f.write_str("sw"),
            CryptoModel::Hw => f.write_str("hw"),
            CryptoModel::Mcu { mhz } => write!(f, "mcu:{mhz}"),
            CryptoModel::Fixed { us } => write!(f, "fixed:{us}"),
            CryptoModel::Rtl { fmax_mhz, .. } => write!(f, "rtl@{fmax_mhz}MHz"),
            CryptoModel::Verilog { mhz } => write!(f, "verilog:{mhz}"),
        }
    }
}

/// The RTL model from the hardware reports (`hdl/reports/summary.json`): the CCMP core's
/// cycles per frame (fixed part and per 16-byte block) and its synthesized Fmax.
fn rtl_from_reports() -> Result<CryptoModel> {
    let path = std::env::var("WLANSEC_HDL_SUMMARY").unwrap_or_else(|_| "hdl/reports/summary.json".into());
    let text =
        std::fs::read_to_string(&path).map_err(Error::io(format!("rtl model needs {path} (make -C hdl reports)")))?;
    let report = |why: String| Error::RtlReport { path: path.clone(), why };
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| report(e.to_string()))?;
    let find = |key: &str| find_number(&json, key).ok_or_else(|| report(format!("no `{key}`")));
    Ok(CryptoModel::Rtl {
        cycles_per_block: find("cycles_per_block")?,
        cycles_per_frame: find("cycles_per_frame_overhead").unwrap_or(0.0),
        fmax_mhz: find("fmax_mhz")?,
    })
}

fn find_number(v: &serde_json::Value, key: &str) -> Option<f64> {
    match v {
        serde_json::Value::Object(m) => {
            m.get(key).and_then(|x| x.as_f64()).or_else(|| m.values().find_map(|x| find_number(x, key)))
        }
        serde_json::Value::Array(a) => a.iter().find_map(|x| find_number(x, key)),
        _ => None,
    }
}

/// Instructions the MCU needs for one frame of `mpdu_bytes` under `suite`, interpolated
/// linearly between the counted sizes.
pub fn mcu_instructions(suite: &str, mpdu_bytes: usize) -> Option<f64> {
    let json: serde_json::Value = serde_json::from_str(MCU_COUNTS).ok()?;
    let points: Vec<(f64, f64)> = json
        .get("counts")?
        .get(suite)?
        .as_array()?
        .iter()
        .filter_map(|p| Some((p.get(0)?.as_f64()?, p.get(1)?.as_f64()?)))
        .collect();
    let x = mpdu_bytes as f64;
    let pair = points.windows(2).find(|w| x <= w[1].0).or_else(|| points.windows(2).last())?;
    let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
    Some(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
}

impl CryptoModel {
    /// Modelled microseconds to protect (or unprotect) one MPDU; 0 when this model adds
    /// nothing (host crypto, a line-rate card, or no crypto at all). The Verilog card has no
    /// model: each frame costs what its RTL counted ([`CryptoEngine`] asks it).
    pub fn cost_us(&self, mode: SecurityMode, mpdu_bytes: usize) -> Result<f64> {
        if mode == SecurityMode::Open {
            return Ok(0.0);
        }
        Ok(match self {
            CryptoModel::Host | CryptoModel::Hw => 0.0,
            CryptoModel::Verilog { .. } => {
                return Err(Error::Verilog("its cost is the cycles its RTL counts for each frame, not a model".into()))
            }
            CryptoModel::Fixed { us } => *us,
            CryptoModel::Mcu { mhz } => {
                let mode = mode.to_string();
                let instructions = mcu_instructions(&mode, mpdu_bytes).ok_or(Error::NoMcuCounts(mode))?;
                instructions / mhz
            }
            CryptoModel::Rtl { cycles_per_block, cycles_per_frame, fmax_mhz } => {
                let blocks = mpdu_bytes.div_ceil(16) as f64;
                (cycles_per_frame + cycles_per_block * blocks) / fmax_mhz
            }
        })
    }

    /// [`CryptoModel::cost_us`] in whole nanoseconds, the emulator's clock.
    pub fn cost_ns(&self, mode: SecurityMode, mpdu_bytes: usize) -> Result<u64> {
        Ok((self.cost_us(mode, mpdu_bytes)? * 1e3) as u64)
    }
}

/// A crypto engine that serialises frames: each starts when the previous one is done.
#[derive(Clone)]
pub struct CryptoEngine {
    pub model: CryptoModel,
    /// The Verilog card that seals and opens the frames (model `verilog:MHZ`).
    card: Option<Card>,
    free_at_ns: u64,
    pub frames: u64,
    pub busy_ns: u64,
}

impl CryptoEngine {
    pub fn new(model: CryptoModel) -> Self {
        CryptoEngine { model, card: None, free_at_ns: 0, frames: 0, busy_ns: 0 }
    }

    /// The engine of `verilog:MHZ`: `card` does the work and counts its cycles.
    pub fn on_card(model: CryptoModel, card: Card) -> Self {
        CryptoEngine { card: Some(card), ..CryptoEngine::new(model) }
    }

    pub fn card(&self) -> Option<&Card> {
        self.card.as_ref()
    }

    /// When a frame handed over at `now_ns` is done.
    pub fn done_at(&mut self, now_ns: u64, mode: SecurityMode, mpdu_bytes: usize) -> Result<u64> {
        let cost = self.model.cost_ns(mode, mpdu_bytes)?;
        Ok(self.occupy(now_ns, cost))
    }

    /// When a frame handed over at `now_ns` is done that took the card `cycles` clock cycles.
    pub fn done_after_cycles(&mut self, now_ns: u64, cycles: u64) -> u64 {
        let mhz = match self.model {
            CryptoModel::Verilog { mhz } => mhz,
            _ => f64::INFINITY,
        };
        self.occupy(now_ns, (cycles as f64 * 1e3 / mhz) as u64)
    }

    /// Busy for `cost_ns` from `now_ns`, or from when the frame before is done.
    fn occupy(&mut self, now_ns: u64, cost_ns: u64) -> u64 {
        if cost_ns == 0 {
            return now_ns;
        }
        let start = now_ns.max(self.free_at_ns);
        self.free_at_ns = start + cost_ns;
        self.frames += 1;
        self.busy_ns += cost_ns;
        self.free_at_ns
    }

    /// Hand sender `from`'s MPDU, given to the card at `now_ns`, through this engine (when
    /// it is protected) onto `medium`; false when the sender's queue is full and the frame
    /// is dropped (counted by the medium) without costing the engine anything: an engine
    /// charged for dropped frames would run ahead of real time under overload and make the
    /// frames it does queue wait behind work that never reaches the air.
    pub fn send(
        &mut self,
        medium: &mut Medium,
        from: usize,
        mpdu: Vec<u8>,
        protected: bool,
        now_ns: u64,
        mode: SecurityMode,
    ) -> Result<bool> {
        if medium.is_full(from) {
            return Ok(medium.enqueue(from, mpdu, now_ns));
        }
        let ready = match (&self.card, protected) {
            (_, false) => now_ns,
            // The card sealed it (a protected frame it did not seal would cost nothing).
            (Some(card), true) => {
                let cycles = verilog::seal_cycles(card, &mpdu).unwrap_or(0);
                self.done_after_cycles(now_ns, cycles)
            }
            (None, true) => self.done_at(now_ns, mode, mpdu.len())?,
        };
        Ok(medium.enqueue(from, mpdu, ready))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_parse_and_cost_what_they_say() {
        assert_eq!("hw".parse::<CryptoModel>().unwrap().cost_ns(SecurityMode::Ccmp, 1500).unwrap(), 0);
        assert_eq!("fixed:20000".parse::<CryptoModel>().unwrap().cost_ns(SecurityMode::Tkip, 64).unwrap(), 20_000_000);
        assert_eq!("fixed:5".parse::<CryptoModel>().unwrap().cost_ns(SecurityMode::Open, 64).unwrap(), 0);
        let verilog = "verilog:104".parse::<CryptoModel>().unwrap();
        assert_eq!((verilog.to_string(), &verilog), ("verilog:104".into(), &CryptoModel::Verilog { mhz: 104.0 }));
        assert!(verilog.cost_ns(SecurityMode::Ccmp, 1500).is_err(), "the Verilog card has no cost model");
        for bad in ["mcu:", "mcu:-3", "fixed:abc", "gpu", "verilog:0", "verilog"] {
            assert!(bad.parse::<CryptoModel>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_engine_serialises_frames() {
        let mut e = CryptoEngine::new(CryptoModel::Fixed { us: 10.0 });
        assert_eq!(e.done_at(0, SecurityMode::Ccmp, 100).unwrap(), 10_000);
        assert_eq!(e.done_at(1_000, SecurityMode::Ccmp, 100).unwrap(), 20_000);
        assert_eq!(e.done_at(50_000, SecurityMode::Ccmp, 100).unwrap(), 60_000);
    }

    #[test]
    fn the_verilog_card_costs_its_cycles_at_its_clock() {
        let mut e = CryptoEngine::new(CryptoModel::Verilog { mhz: 104.0 });
        assert_eq!(e.done_after_cycles(0, 1040), 10_000);
        assert_eq!(e.done_after_cycles(5_000, 104), 11_000, "a frame waits for the one ahead");
        assert_eq!((e.frames, e.busy_ns), (2, 11_000));
    }

    #[test]
    fn mcu_counts_grow_with_frame_size() {
        for suite in ["wep", "tkip", "ccmp"] {
            let small = mcu_instructions(suite, 100).unwrap();
            let large = mcu_instructions(suite, 1500).unwrap();
            assert!(large > small && small > 0.0, "{suite}");
        }
        // Portable AES costs hundreds of instructions per byte of CCMP (two AES blocks per
        // 16 bytes); counts of a few per byte would be AES-NI, not what an MCU runs.
        assert!(mcu_instructions("ccmp", 1536).unwrap() / 1536.0 > 100.0);
    }

    #[test]
    fn an_mcu_costs_its_instructions_over_its_clock() {
        let mcu = CryptoModel::Mcu { mhz: 88.0 };
        // 128 and 256 bytes are counted sizes (71,902 and 134,917 CCMP instructions); 192 lies halfway.
        assert_eq!(mcu.cost_us(SecurityMode::Ccmp, 128).unwrap(), 71_902.0 / 88.0);
        assert_eq!(mcu.cost_us(SecurityMode::Ccmp, 192).unwrap(), 103_409.5 / 88.0);
        assert_eq!(mcu.cost_ns(SecurityMode::Ccmp, 128).unwrap(), 817_068); // 817.068 µs
        assert_eq!(mcu.cost_us(SecurityMode::Open, 128).unwrap(), 0.0);
    }

    /// One sender offered ten times what the air carries, every frame handed through
    /// `card`: the IP throughput delivered (bit/s) and the analytical one-sender saturation.
    fn overloaded_sender(phy: &str, card: &str) -> (f64, f64) {
        use crate::airtime::{mpdu_bytes, saturation, AccessCategory, Exchange, LinkProfile, Phy, FCS_BYTES};
        let (phy, mode, ip) = (phy.parse::<Phy>().unwrap(), SecurityMode::Ccmp, 1500);
        let exchange = Exchange::new(phy, AccessCategory::BestEffort, mode.overhead(), ip).unwrap();
        let model = saturation(&exchange, 1).throughput_bps;
        let mut mpdu = vec![0u8; mpdu_bytes(ip, mode.overhead(), true) - FCS_BYTES];
        (mpdu[0], mpdu[1], mpdu[4]) = (0x88, 0x41, 0x02);
        let every_ns = (ip as f64 * 8.0 / (10.0 * model) * 1e9) as u64;
        let mut medium = Medium::new(LinkProfile::clear(phy), 2, 128, 5);
        let mut engine = CryptoEngine::new(card.parse().unwrap());
        let (end, mut next_arrival, mut delivered) = (2_000_000_000u64, 0u64, 0u64);
        loop {
            let now = medium.next_start().map_or(next_arrival, |t| t.min(next_arrival));
            if now > end {
                break;
            }
            if now == next_arrival {
                engine.send(&mut medium, 0, mpdu.clone(), true, now, mode).unwrap();
                next_arrival += every_ns;
            }
            delivered += medium.advance(now).iter().filter(|t| t.delivered).count() as u64;
        }
        (delivered as f64 * ip as f64 * 8.0 / (end as f64 / 1e9), model)
    }

    #[test]
    fn an_overloaded_card_delivers_what_the_air_or_the_card_carries() {
        // A line-rate card, and one fast enough for the air, must not lower saturation
        // throughput (the bug: dropped frames were charged to the engine, 0.27 of the model).
        for (phy, card) in [("n-mcs7-40", "hw"), ("g54", "hw"), ("g54", "fixed:100")] {
            let (measured, model) = overloaded_sender(phy, card);
            assert!((0.95..1.05).contains(&(measured / model)), "{phy} {card}: {measured} vs {model}");
        }
        // A card slower than the air delivers one frame per engine time.
        for (phy, card) in [("g54", "fixed:1000"), ("n-mcs7-40", "mcu:1000")] {
            let (measured, model) = overloaded_sender(phy, card);
            let mpdu =
                crate::airtime::mpdu_bytes(1500, SecurityMode::Ccmp.overhead(), true) - crate::airtime::FCS_BYTES;
            let cost_ns = card.parse::<CryptoModel>().unwrap().cost_ns(SecurityMode::Ccmp, mpdu).unwrap() as f64;
            let card_bps = 1500.0 * 8.0 / (cost_ns / 1e9);
            assert!(card_bps < model, "{card} must be slower than the air");
            assert!((0.97..1.01).contains(&(measured / card_bps)), "{phy} {card}: {measured} vs {card_bps}");
        }
    }
}
