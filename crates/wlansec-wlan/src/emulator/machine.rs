//! One node's machine, whatever its kind: the emulator, the UDP transport and the fuzz
//! targets drive the access point, the station and the IBSS station through it.

use crate::bss::{AccessPoint, Output, Station};
use crate::ibss::IbssStation;
use crate::Result;

/// One node's machine, whatever its kind (the UDP transport and the fuzz targets drive the
/// same ones). A few per process: their sizes differing does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Machine {
    Ap(AccessPoint),
    Sta(Station),
    Ibss(IbssStation),
}

impl Machine {
    pub fn start(&mut self, out: &mut Vec<Output>) -> Result<()> {
        match self {
            Machine::Ap(ap) => ap.beacon().map(|b| out.push(Output::Air(b))),
            Machine::Sta(s) => s.start(out),
            Machine::Ibss(s) => s.start(out),
        }
    }
    pub fn on_host(&mut self, frame: &[u8], out: &mut Vec<Output>) -> Result<()> {
        match self {
            Machine::Ap(ap) => ap.from_host(frame, out),
            Machine::Sta(s) => s.from_host(frame, out),
            Machine::Ibss(s) => s.from_host(frame, out),
        }
    }
    pub fn on_air(&mut self, mpdu: &[u8], out: &mut Vec<Output>) -> Result<()> {
        match self {
            Machine::Ap(ap) => ap.from_air(mpdu, out),
            Machine::Sta(s) => s.from_air(mpdu, out),
            Machine::Ibss(s) => s.from_air(mpdu, out),
        }
    }
    pub fn tick(&mut self, out: &mut Vec<Output>) -> Result<()> {
        match self {
            Machine::Ap(ap) => ap.tick(out),
            Machine::Sta(s) => s.tick(out),
            Machine::Ibss(s) => s.tick(out),
        }
    }
    pub(crate) fn is_ap(&self) -> bool {
        matches!(self, Machine::Ap(_))
    }
}
