//! Hex arguments: parsed with a message that names the argument, keys kept in zeroizing
//! buffers.

use anyhow::{bail, Context, Result};
use zeroize::Zeroizing;

pub fn bytes(what: &str, text: &str) -> Result<Vec<u8>> {
    let clean: String = text.trim().chars().filter(|c| !matches!(c, ':' | ' ' | '-')).collect();
    if !clean.len().is_multiple_of(2) {
        bail!("bad hex in {what}: odd number of digits ({})", clean.len());
    }
    hex::decode(&clean).with_context(|| format!("bad hex in {what}"))
}

/// A key given as a hex argument; bad hex is an invalid argument (exit status 2).
pub fn key(what: &str, text: &str) -> Result<Zeroizing<Vec<u8>>> {
    bytes(what, text).map(Zeroizing::new).map_err(crate::usage::usage)
}

/// A 48-bit packet number, decimal or `0x`-prefixed hex (for clap).
pub fn packet_number(text: &str) -> std::result::Result<u64, String> {
    let value = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    }
    .map_err(|e| format!("not a number: {e}"))?;
    if value == 0 || value > wlansec_core::suite::Pn::MAX {
        return Err("a packet number is in 1..=2^48-1".into());
    }
    Ok(value)
}
