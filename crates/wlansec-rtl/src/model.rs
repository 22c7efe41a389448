//! One verilated peripheral, stepped a clock cycle at a time through src/shim.cpp, and the
//! bus transactions a driver makes on it: AXI4-Lite register reads and writes, and a frame
//! streamed in on `s_axis` while the one that comes out on `m_axis` is collected.

use std::ffi::{c_int, c_void};
use std::ptr::NonNull;

use crate::{Error, Result};

/// Which design a model simulates (src/shim.cpp's numbering).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Design {
    /// `ccmp_axi`: encapsulation.
    Encap = 0,
    /// `ccmp_decap_axi`: decapsulation.
    Decap = 1,
    /// `ccmp_axi` with build.rs's one-bit mutation (the Protected bit left clear).
    EncapMutant = 2,
}

/// The ports a driver sets (mirrors `Inputs` in src/shim.cpp). 128-bit data: octet i of a
/// beat in bits 8i+7..8i, 32-bit words little end first.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
struct Inputs {
    s_axis_tdata: [u32; 4],
    wdata: u32,
    s_axis_tkeep: u16,
    aresetn: u8,
    awvalid: u8,
    awaddr: u8,
    wvalid: u8,
    wstrb: u8,
    bready: u8,
    arvalid: u8,
    araddr: u8,
    rready: u8,
    s_axis_tvalid: u8,
    s_axis_tlast: u8,
    m_axis_tready: u8,
}

/// The ports a driver reads, as the clock edge samples them (mirrors `Outputs`).
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
struct Outputs {
    m_axis_tdata: [u32; 4],
    rdata: u32,
    m_axis_tkeep: u16,
    awready: u8,
    wready: u8,
    bresp: u8,
    bvalid: u8,
    arready: u8,
    rresp: u8,
    rvalid: u8,
    s_axis_tready: u8,
    m_axis_tvalid: u8,
    m_axis_tlast: u8,
    m_axis_tuser: u8,
}

#[cfg(verilated)]
unsafe extern "C" {
    fn wlansec_rtl_new(which: c_int) -> *mut c_void;
    fn wlansec_rtl_free(model: *mut c_void);
    fn wlansec_rtl_cycle(model: *mut c_void, inputs: *const Inputs, outputs: *mut Outputs);
}

/// The models are not built: every call says so.
#[cfg(not(verilated))]
mod absent {
    use super::*;
    pub(super) unsafe fn wlansec_rtl_new(_: c_int) -> *mut c_void {
        std::ptr::null_mut()
    }
    pub(super) unsafe fn wlansec_rtl_free(_: *mut c_void) {}
    pub(super) unsafe fn wlansec_rtl_cycle(_: *mut c_void, _: *const Inputs, _: *mut Outputs) {}
}
#[cfg(not(verilated))]
use absent::*;

/// AXI4-Lite response OKAY.
const OKAY: u8 = 0;
/// Cycles a register access may take before the bus is taken as hung.
const BUS_TIMEOUT: u64 = 64;

/// What came out of the peripheral for one frame.
#[derive(Debug, PartialEq, Eq)]
pub struct Transfer {
    /// `m_axis_tuser` on the last beat (decapsulation: the frame is refused).
    pub tuser: bool,
}

/// One verilated peripheral and its clock.
pub struct Peripheral {
    model: NonNull<c_void>,
    inputs: Inputs,
    outputs: Outputs,
    cycles: u64,
}

impl Peripheral {
    /// A model of `design`, held in reset for three cycles and released.
    pub fn new(design: Design) -> Result<Self> {
        // SAFETY: wlansec_rtl_new takes any number and returns a model it owns or null.
        let model = NonNull::new(unsafe { wlansec_rtl_new(design as c_int) }).ok_or(Error::NotBuilt)?;
        let mut p = Peripheral { model, inputs: Inputs::default(), outputs: Outputs::default(), cycles: 0 };
        for _ in 0..3 {
            p.cycle();
        }
        p.inputs.aresetn = 1;
        Ok(p)
    }

    /// Clock cycles since the model was made.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// One rising edge with the inputs as they are; `outputs` then holds what it sampled.
    fn cycle(&mut self) {
        // SAFETY: `model` came from wlansec_rtl_new and is freed only in Drop; the two
        // structs are repr(C) mirrors of the shim's and live across the call.
        unsafe { wlansec_rtl_cycle(self.model.as_ptr(), &self.inputs, &mut self.outputs) };
        self.cycles += 1;
    }

    /// Write `value` to the register at byte address `addr`.
    pub fn write(&mut self, addr: u8, value: u32) -> Result<()> {
        let i = &mut self.inputs;
        (i.awvalid, i.awaddr, i.wvalid, i.wdata, i.wstrb, i.bready) = (1, addr, 1, value, 0xf, 1);
        for _ in 0..BUS_TIMEOUT {
            self.cycle();
            let (i, o) = (&mut self.inputs, self.outputs);
            if i.awvalid == 1 && o.awready == 1 {
                i.awvalid = 0;
            }
            if i.wvalid == 1 && o.wready == 1 {
                i.wvalid = 0;
            }
            if o.bvalid == 1 {
                i.bready = 0;
                return if o.bresp == OKAY { Ok(()) } else { Err(Error::Bus { addr, resp: o.bresp }) };
            }
        }
        Err(Error::Hung("a register write"))
    }

    /// Read the register at byte address `addr`.
    pub fn read(&mut self, addr: u8) -> Result<u32> {
        let i = &mut self.inputs;
        (i.arvalid, i.araddr, i.rready) = (1, addr, 1);
        for _ in 0..BUS_TIMEOUT {
            self.cycle();
            let (i, o) = (&mut self.inputs, self.outputs);
            if i.arvalid == 1 && o.arready == 1 {
                i.arvalid = 0;
            }
            if o.rvalid == 1 {
                i.rready = 0;
                return if o.rresp == OKAY { Ok(o.rdata) } else { Err(Error::Bus { addr, resp: o.rresp }) };
            }
        }
        Err(Error::Hung("a register read"))
    }

    /// Stream `frame` in on `s_axis` and collect the frame that comes out on `m_axis` into
    /// `out`, within `budget` cycles; None when none came out by then (the peripheral dropped
    /// the frame, or holds it).
    pub fn transfer(&mut self, frame: &[u8], out: &mut Vec<u8>, budget: u64) -> Option<Transfer> {
        let mut beats = frame.chunks(16).peekable();
        let mut beat = beats.next();
        self.inputs.m_axis_tready = 1;
        for _ in 0..budget {
            if let Some(octets) = beat {
                let mut data = [0u8; 16];
                data[..octets.len()].copy_from_slice(octets);
                let i = &mut self.inputs;
                for (w, word) in data.chunks_exact(4).enumerate() {
                    i.s_axis_tdata[w] = u32::from_le_bytes(word.try_into().expect("4 octets"));
                }
                i.s_axis_tkeep = ((1u32 << octets.len()) - 1) as u16;
                i.s_axis_tlast = u8::from(beats.peek().is_none());
                i.s_axis_tvalid = 1;
            } else {
                self.inputs.s_axis_tvalid = 0;
            }
            self.cycle();
            let o = self.outputs;
            if self.inputs.s_axis_tvalid == 1 && o.s_axis_tready == 1 {
                beat = beats.next();
            }
            if o.m_axis_tvalid == 1 {
                let data: Vec<u8> = o.m_axis_tdata.iter().flat_map(|w| w.to_le_bytes()).collect();
                out.extend_from_slice(&data[..o.m_axis_tkeep.count_ones() as usize]);
                if o.m_axis_tlast == 1 {
                    self.inputs.s_axis_tvalid = 0;
                    self.inputs.m_axis_tready = 0;
                    return Some(Transfer { tuser: o.m_axis_tuser == 1 });
                }
            }
        }
        self.inputs.s_axis_tvalid = 0;
        self.inputs.m_axis_tready = 0;
        None
    }
}

impl Drop for Peripheral {
    fn drop(&mut self) {
        // SAFETY: `model` came from wlansec_rtl_new and is not used after this.
        unsafe { wlansec_rtl_free(self.model.as_ptr()) }
    }
}
