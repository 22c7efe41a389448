//! The multi-core engine: frames are sharded by (station, replay class — the TID for QoS
//! data) across worker threads, each of which protects its shard in order with the
//! multi-buffer engine. PNs are assigned before sharding, in submission order, from each
//! station's single transmit counter (the PN belongs to the key, not the TID), and a shard
//! never reorders its frames, so every TID leaves in PN order, as the receiver's per-TID
//! replay counters require.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::suite::mpdu::{Pn, ReplayClass, PN_HEADER_LEN};
use crate::suite::PnCounter;
use crate::wire::{Frame, Rules};

use super::batch::{Engine, MpduJob};
use super::enhanced::MIC_LEN;
use super::key::{Key, Mode};

/// Identifies a station (its pairwise key) within the engine.
pub type StationId = u32;

struct Station {
    key: Key,
    key_id: u8,
    pn: PnCounter,
}

/// Frames per multi-buffer batch inside a worker.
const BATCH: usize = 64;

pub struct ShardedEngine {
    threads: usize,
    engine: Engine,
    rules: Rules,
    stations: HashMap<StationId, Station>,
}

impl ShardedEngine {
    /// An engine on `threads` worker threads (at least one).
    pub fn new(threads: usize, engine: Engine) -> Self {
        ShardedEngine {
            threads: threads.max(1),
            engine,
            rules: Rules::default(),
            stations: HashMap::new(),
        }
    }

    /// Install (or replace) a station's pairwise key; its PN restarts at 1.
    pub fn add_station(&mut self, station: StationId, tk: &[u8], mode: Mode) -> Result<()> {
        self.stations.insert(
            station,
            Station {
                key: Key::new(tk, mode)?,
                key_id: 0,
                pn: PnCounter::default(),
            },
        );
        Ok(())
    }

    /// Protect plaintext MPDUs, each for a station; results come back in submission order.
    pub fn protect_all(
        &mut self,
        frames: Vec<(StationId, Vec<u8>)>,
    ) -> Result<Vec<Result<Vec<u8>>>> {
        let mut shards: Vec<Vec<Pending>> = (0..self.threads).map(|_| Vec::new()).collect();
        let mut results: Vec<Result<Vec<u8>>> = Vec::with_capacity(frames.len());
        for (index, (station_id, mpdu)) in frames.into_iter().enumerate() {
            let station = self
                .stations
                .get_mut(&station_id)
                .ok_or(Error::Unsupported("frame for a station without a key"))?;
            let class = match Frame::new_checked(&mpdu[..], self.rules) {
                Ok(frame) => ReplayClass::of(&frame),
                Err(e) => {
                    results.push(Err(e));
                    continue;
                }
            };
            let pn = match station.pn.next_pn() {
                Ok(pn) => pn,
                Err(e) => {
                    results.push(Err(e));
                    continue;
                }
            };
            let shard = shard_of(station_id, class, self.threads);
            shards[shard].push((index, station_id, pn, mpdu));
            results.push(Ok(Vec::new()));
        }
        let stations = &self.stations;
        let (engine, rules) = (self.engine, self.rules);
        let done: Vec<Vec<(usize, Result<Vec<u8>>)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = shards
                .into_iter()
                .map(|shard| scope.spawn(move || protect_shard(engine, rules, stations, shard)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("worker threads do not panic"))
                .collect()
        });
        for (index, result) in done.into_iter().flatten() {
            results[index] = result;
        }
        Ok(results)
    }
}

fn shard_of(station: StationId, class: ReplayClass, threads: usize) -> usize {
    // Multiplicative hash so consecutive stations and TIDs spread over the workers.
    let key = (u64::from(station) << 5) | class.index() as u64;
    ((key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % threads as u64) as usize
}

type Pending = (usize, StationId, Pn, Vec<u8>);

fn protect_shard(
    engine: Engine,
    rules: Rules,
    stations: &HashMap<StationId, Station>,
    shard: Vec<Pending>,
) -> Vec<(usize, Result<Vec<u8>>)> {
    let mut out = Vec::with_capacity(shard.len());
    let mut shard = shard.into_iter().peekable();
    while shard.peek().is_some() {
        let mut chunk: Vec<(usize, StationId, Pn, usize, Vec<u8>)> = shard
            .by_ref()
            .take(BATCH)
            .map(|(index, station, pn, mut buf)| {
                let len = buf.len();
                buf.resize(len + PN_HEADER_LEN + MIC_LEN, 0);
                (index, station, pn, len, buf)
            })
            .collect();
        let mut jobs: Vec<MpduJob> = chunk
            .iter_mut()
            .map(|(_, station, pn, len, buf)| {
                let station = &stations[station];
                MpduJob::new(&station.key, buf, *len, *pn, station.key_id)
            })
            .collect();
        engine.protect_mpdus(&mut jobs, rules);
        let lens: Vec<Result<usize>> = jobs.into_iter().map(|j| j.result).collect();
        for ((index, _, _, _, mut buf), len) in chunk.into_iter().zip(lens) {
            out.push((
                index,
                len.map(|len| {
                    buf.truncate(len);
                    buf
                }),
            ));
        }
    }
    out
}
