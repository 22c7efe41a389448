//! How a stream target cuts its input into frames: each frame is prefixed with its length
//! (two octets, big-endian), and the last one takes what is left when its length runs past
//! the end. A length prefix (not a separator) lets the fuzzer grow and shrink one frame
//! without disturbing the others.

/// Frames a stream target feeds at most: a handshake and some traffic, while each input
/// still runs in microseconds.
pub const MAX_FRAMES: usize = 64;

/// The frames of `data`, at most [`MAX_FRAMES`].
pub fn frames(mut data: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        let (len, rest) = data.split_first_chunk::<2>()?;
        let (frame, after) = rest.split_at(usize::from(u16::from_be_bytes(*len)).min(rest.len()));
        data = after;
        Some(frame)
    })
    .take(MAX_FRAMES)
}

/// A fuzz target: its name (of `fuzz_targets/<name>.rs` and `corpus/<name>/`) and its body.
pub type Target = (&'static str, fn(&[u8]));
