//! The study's data files, generated deterministically: text-like (compressible,
//! natural-language-like words) at its text sizes and video-like (incompressible payload in
//! MPEG-TS packets) at its video sizes. The same name gives the same bytes on every machine.

use anyhow::{anyhow, Result};
use wlansec_core::gen::{below, ChaCha8Rng, Rng, SeedableRng};

/// Text file sizes of the study, in kilobytes (1 KB = 1000 octets).
pub const TEXT_KB: [u32; 6] = [321, 694, 1327, 2492, 4211, 7139];
/// Video file sizes of the study (its F1, F2, F3), in kilobytes.
pub const VIDEO_KB: [u32; 3] = [4006, 4415, 5073];

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Kind {
    Text,
    Video,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Video => "video",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct DataFile {
    pub kind: Kind,
    pub kb: u32,
}

impl DataFile {
    /// E.g. `text-321KB`, `video-4006KB`.
    pub fn name(&self) -> String {
        format!("{}-{}KB", self.kind.name(), self.kb)
    }

    pub fn len(&self) -> usize {
        self.kb as usize * 1000
    }

    pub fn generate(&self) -> Vec<u8> {
        let mut rng = ChaCha8Rng::seed_from_u64(u64::from(self.kb) << 8 | self.kind as u64);
        match self.kind {
            Kind::Text => text(&mut rng, self.len()),
            Kind::Video => video(&mut rng, self.len()),
        }
    }
}

/// Every data file of the study.
pub fn all() -> Vec<DataFile> {
    let text = TEXT_KB.iter().map(|&kb| DataFile { kind: Kind::Text, kb });
    text.chain(VIDEO_KB.iter().map(|&kb| DataFile { kind: Kind::Video, kb })).collect()
}

/// Parses `text-321`, `text-321KB`, `video-4006KB`, ... into one of [`all`].
pub fn find(name: &str) -> Result<DataFile> {
    let want = name.trim_end_matches("KB").trim_end_matches("kb");
    all().into_iter().find(|f| format!("{}-{}", f.kind.name(), f.kb) == want).ok_or_else(|| {
        anyhow!("unknown data file {name:?}: expected text-{{{}}}KB or video-{{{}}}KB", join(&TEXT_KB), join(&VIDEO_KB))
    })
}

fn join(kb: &[u32]) -> String {
    kb.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

const ONSETS: [&str; 20] =
    ["", "b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "w", "th", "st", "pr", "ch", "sh"];
const VOWELS: [&str; 8] = ["a", "e", "i", "o", "u", "ea", "ou", "ai"];
const CODAS: [&str; 10] = ["", "", "n", "r", "s", "t", "nd", "st", "ll", "ng"];
const VOCABULARY: usize = 3000;

/// Words with Zipf-distributed frequencies in sentences and paragraphs: as redundant as
/// English prose to a compressor, without shipping a corpus.
fn text(rng: &mut ChaCha8Rng, len: usize) -> Vec<u8> {
    let words: Vec<String> = (0..VOCABULARY)
        .map(|_| {
            let syllables = 1 + below(rng, 3);
            (0..syllables)
                .map(|_| {
                    let pick =
                        |rng: &mut ChaCha8Rng, set: &[&str]| set[below(rng, set.len() as u64) as usize].to_owned();
                    pick(rng, &ONSETS) + &pick(rng, &VOWELS) + &pick(rng, &CODAS)
                })
                .collect()
        })
        .collect();
    // Cumulative Zipf weights 1/rank, scaled to u64 for sampling by binary search.
    let harmonic: f64 = (1..=VOCABULARY).map(|r| 1.0 / r as f64).sum();
    let mut acc = 0.0;
    let cumulative: Vec<u64> = (1..=VOCABULARY)
        .map(|r| {
            acc += 1.0 / r as f64 / harmonic;
            (acc.min(1.0) * u64::MAX as f64) as u64
        })
        .collect();

    let mut out = Vec::with_capacity(len + 64);
    while out.len() < len {
        let sentences = 3 + below(rng, 5);
        for _ in 0..sentences {
            let n = 5 + below(rng, 16);
            for i in 0..n {
                let x = rng.next_u64();
                let word = &words[cumulative.partition_point(|&c| c < x).min(VOCABULARY - 1)];
                if i == 0 {
                    let mut chars = word.chars();
                    if let Some(first) = chars.next() {
                        out.extend(first.to_uppercase().to_string().bytes());
                        out.extend(chars.as_str().bytes());
                    }
                } else {
                    out.push(b' ');
                    out.extend(word.bytes());
                }
                if i + 1 < n && below(rng, 10) == 0 {
                    out.push(b',');
                }
            }
            out.extend(b". ");
        }
        out.pop();
        out.push(b'\n');
    }
    out.truncate(len);
    out
}

/// MPEG-TS transport packet length.
pub const TS_PACKET: usize = 188;
const TS_SYNC: u8 = 0x47;
const VIDEO_PID: u16 = 0x0100;
/// A PAT (PID 0) every this many packets, as muxers repeat it for receivers joining late.
const PAT_EVERY: usize = 40;

/// 188-octet transport packets (sync 0x47, PID, continuity counter) carrying random
/// payload, which stands in for compressed video; the last packet is cut at the file size.
fn video(rng: &mut ChaCha8Rng, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len.div_ceil(TS_PACKET) * TS_PACKET];
    let mut continuity = [0u8; 2];
    for (n, packet) in out.chunks_mut(TS_PACKET).enumerate() {
        let pat = n % PAT_EVERY == 0;
        let (pid, cc) = if pat { (0, &mut continuity[0]) } else { (VIDEO_PID, &mut continuity[1]) };
        // Payload unit start on PATs and at the start of every ~32-packet PES (a frame).
        let start = pat || n % 32 == 1;
        packet[0] = TS_SYNC;
        packet[1] = (u8::from(start) << 6) | (pid >> 8) as u8;
        packet[2] = pid as u8;
        packet[3] = 0x10 | *cc; // payload only
        *cc = (*cc + 1) & 0x0f;
        if pat {
            // pointer, table 0, section length 13, TS id 1, version 0, program 1 → PMT PID 0x1000.
            packet[4..17].copy_from_slice(&[0, 0, 0xb0, 0x0d, 0, 1, 0xc1, 0, 0, 0, 1, 0xf0, 0]);
            packet[17..].fill(0xff);
        } else {
            rng.fill_bytes(&mut packet[4..]);
        }
    }
    out.truncate(len);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_names_and_determinism() {
        for f in all() {
            assert_eq!(find(&f.name()).unwrap(), f);
        }
        let f = find("video-4006").unwrap();
        let a = f.generate();
        assert_eq!(a.len(), 4_006_000);
        assert_eq!(a, f.generate());
        assert!(a.chunks(TS_PACKET).all(|p| p[0] == TS_SYNC));
        let t = find("text-321KB").unwrap().generate();
        assert_eq!(t.len(), 321_000);
        assert!(t.iter().all(|b| b.is_ascii_alphabetic() || b" ,.\n".contains(b)));
        assert!(find("text-322").is_err());
    }
}
