//! TKIP countermeasures (IEEE 802.11-2016 12.5.2.4), as the access point and a station both
//! run them: two Michael MIC failures within 60 s stop TKIP for 60 s (the access point sends
//! every station away and admits none; a station leaves and stays away).

use wlansec_core::suite::{Countermeasure, MicFailureMonitor};

/// TKIP countermeasures: the failures of the last 60 s, and until when they are in force.
#[derive(Default)]
pub(crate) struct Countermeasures {
    monitor: MicFailureMonitor,
    until_ms: Option<u64>,
}

impl Countermeasures {
    /// How long countermeasures last.
    const DURATION_MS: u64 = 60_000;

    /// A Michael MIC failure at `now_ms`: whether it starts countermeasures.
    pub(crate) fn failure(&mut self, now_ms: u64) -> bool {
        let activate = self.monitor.mic_failure(now_ms) == Countermeasure::Activate;
        if activate {
            self.until_ms = Some(now_ms + Self::DURATION_MS);
        }
        activate
    }

    pub(crate) fn active(&self, now_ms: u64) -> bool {
        self.until_ms.is_some_and(|until| now_ms < until)
    }
}
