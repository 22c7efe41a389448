//! The simulation's own speed: 1500-octet data frames (QoS data, 1500-octet body) sealed by
//! the verilated ccmp_axi and opened by ccmp_decap_axi, one core, wall time; frames per
//! second each way and the RTL's cycles per frame.
//!
//! `cargo run --release -p wlansec-rtl --example speed [FRAMES]`

use std::time::Instant;

use wlansec_core::gen::{self, ChaCha8Rng, SeedableRng, Shapes};
use wlansec_core::wire::Rules;
use wlansec_rtl::{Card, Outcome};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let frames: u64 = std::env::args().nth(1).map_or(Ok(2000), |n| n.parse())?;
    let mut card = Card::new()?;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut plain = Vec::new();
    gen::random_mpdu(&mut rng, Shapes { management: false }, 1500, &mut plain);
    let (tk, rules) = ([9u8; 16], Rules::default());
    let (mut sealed, mut opened) = (Vec::new(), Vec::new());
    let (mut seal_cycles, mut open_cycles) = (0, 0);
    let start = Instant::now();
    for pn in 1..=frames {
        let Outcome::Done { cycles, .. } = card.seal(&plain, &tk, 0, Some(pn), rules, &mut sealed)? else {
            return Err("the RTL did not seal the frame".into());
        };
        seal_cycles += cycles;
    }
    let sealing = start.elapsed().as_secs_f64();
    let start = Instant::now();
    for _ in 0..frames {
        let Outcome::Done { cycles, refused: false } = card.open(&sealed, &tk, rules, &mut opened)? else {
            return Err("the RTL did not open the frame".into());
        };
        open_cycles += cycles;
    }
    let opening = start.elapsed().as_secs_f64();
    println!(
        "{frames} frames of {} octets: sealed {:.0} frames/s ({} cycles each), opened {:.0} frames/s ({} cycles each)",
        plain.len(),
        frames as f64 / sealing,
        seal_cycles / frames,
        frames as f64 / opening,
        open_cycles / frames,
    );
    Ok(())
}
