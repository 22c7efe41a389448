//! `wlan model`, `wlan card` and `wlan protect-loop`: the airtime model's saturation
//! throughput, a card model's cost per frame, and the loop the MCU model's instruction
//! counts are measured on. None starts a WLAN.

use std::process::ExitCode;

use anyhow::{bail, Result};
use wlansec_wlan::card::CryptoModel;
use wlansec_wlan::security::SecurityMode;

use super::args::{CardArgs, ModelArgs, ProtectLoopArgs};

pub(super) fn protect_loop(args: ProtectLoopArgs) -> Result<ExitCode> {
    let mode: SecurityMode = args.suite.parse()?;
    let key: &[u8] = match mode {
        SecurityMode::Wep => b"abcdefghijklm",
        SecurityMode::Tkip => &[0x5a; 32],
        SecurityMode::Ccmp => &[0x5a; 16],
        _ => bail!("protect-loop measures the card suites: wep, tkip, ccmp"),
    };
    if args.size < 26 {
        bail!("--size must hold the 26-byte QoS data header");
    }
    // The portable suite (RustCrypto AES: constant-time fixsliced under aes_backend="soft"),
    // not the host engine that `SecurityMode::suite` picks for CCMP (AES-NI/VAES kernels).
    let suite: Box<dyn wlansec_core::suite::FrameSuite> = match mode {
        SecurityMode::Ccmp => Box::new(wlansec_core::suite::Ccmp128::new(key)?),
        _ => mode.suite(key)?,
    };
    let mut tx = wlansec_core::suite::Transmitter::new(suite, 0);
    let mut buf = vec![0u8; args.size + 32];
    for n in 0..args.frames {
        buf[..args.size].fill(n as u8);
        buf[..2].copy_from_slice(&[0x88, 0x01]);
        buf[4..10].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
        buf[10..16].copy_from_slice(&[2, 0, 0, 0, 0, 2]);
        buf[22..26].fill(0);
        tx.protect(&mut buf, args.size)?;
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn model(args: ModelArgs) -> Result<ExitCode> {
    use wlansec_wlan::airtime::{saturation, AccessCategory, Exchange, Phy};
    let mode: SecurityMode = args.security.parse()?;
    let phy: Phy = args.phy.parse().map_err(|e| anyhow::anyhow!("--phy: {e}"))?;
    let exchange = Exchange::aggregated(phy, AccessCategory::BestEffort, mode.overhead(), args.ip_bytes, args.ampdu)?;
    let s = saturation(&exchange, args.stations.max(1));
    let json = serde_json::json!({
        "security": mode.to_string(), "phy": phy.to_string(), "ip_bytes": args.ip_bytes, "stations": s.stations,
        "ampdu": args.ampdu,
        "throughput_bps": s.throughput_bps, "collision_probability": s.collision_probability,
        "success_time_us": exchange.success_time().as_secs_f64() * 1e6,
    });
    println!("{json}");
    Ok(ExitCode::SUCCESS)
}

pub(super) fn card(args: CardArgs) -> Result<ExitCode> {
    let model: CryptoModel = args.card.parse()?;
    let mut costs = Vec::new();
    for security in &args.security {
        let mode: SecurityMode = security.parse()?;
        for &mpdu_bytes in &args.mpdu_bytes {
            let cost_us = model.cost_us(mode, mpdu_bytes)?;
            costs.push(serde_json::json!({"security": mode.to_string(), "mpdu_bytes": mpdu_bytes, "cost_us": cost_us}));
        }
    }
    println!("{}", serde_json::json!({"card": model, "costs": costs}));
    Ok(ExitCode::SUCCESS)
}
