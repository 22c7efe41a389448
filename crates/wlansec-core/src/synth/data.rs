//! Data frames: the headers between the AP and its stations (and the WDS bridge), and an
//! Ethernet frame carried as a whole MPDU or as fragments.

use crate::error::Result;
use crate::gen::below;
use crate::tx;
use crate::wire::llc;
use crate::wire::{FrameControl, FrameType, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};

use super::Synth;

impl Synth {
    /// A data header between the AP and a station (DS bits by direction), or a 4-address one
    /// from station 0.
    pub(super) fn data_header(
        &mut self,
        da: MacAddr,
        sa: MacAddr,
        from_ap: bool,
        tid: Option<u8>,
        wds: bool,
    ) -> HeaderRepr {
        let mut fc = FrameControl::new(FrameType::Data, if tid.is_some() { 8 } else { 0 });
        let (a1, a2, a3, a4) = match (from_ap, wds) {
            (true, false) => {
                fc = fc.with_flag(FrameControl::FROM_DS, true);
                (da, self.bssid, sa, None)
            }
            (false, false) => {
                fc = fc.with_flag(FrameControl::TO_DS, true);
                (self.bssid, sa, da, None)
            }
            // Station 0 bridges a wired segment: it relays that segment's frames to the AP
            // as 4-address frames under its own pairwise key.
            (_, true) => {
                fc = fc.with_flag(FrameControl::FROM_DS, true).with_flag(FrameControl::TO_DS, true);
                (self.bssid, self.stations[0].mac, da, Some(sa))
            }
        };
        HeaderRepr {
            frame_control: fc,
            duration: 44,
            addr1: a1,
            addr2: a2,
            addr3: a3,
            sequence_control: SequenceControl::new(self.next_sequence(a2), 0),
            addr4: a4,
            qos_control: tid.map(|t| QosControl(u16::from(t))),
            ht_control: None,
        }
    }

    /// Carry one Ethernet frame over the air.
    pub(super) fn carry(&mut self, frame: &[u8]) -> Result<()> {
        let mut msdu = vec![0u8; frame.len() + llc::SNAP_HEADER_LEN];
        let (eth, len) = llc::ethernet_to_msdu(frame, &mut msdu)?;
        msdu.truncate(len);
        let station_of = |mac: MacAddr| self.stations.iter().position(|s| s.mac == mac);
        let tid = (below(&mut self.rng, 2) == 0).then(|| below(&mut self.rng, 8) as u8);
        let (station, from_ap, wds) = if let Some(i) = station_of(eth.src) {
            (Some(i), false, false)
        } else if eth.dst.is_group() {
            (None, true, false)
        } else if let Some(i) = station_of(eth.dst) {
            (Some(i), true, false)
        } else {
            (Some(0), false, true)
        };
        if self.tdls.as_ref().is_some_and(|l| l.carries(eth.src, eth.dst)) {
            self.frames_sent += 1;
            return self.send_direct(eth.src, eth.dst, tid, &msdu);
        }
        let header = self.data_header(eth.dst, eth.src, from_ap, tid, wds);
        self.frames_sent += 1;
        // 4-address frames are not fragmented: tshark 4.0 leaves fragmented ones encrypted,
        // so they could not be cross-checked.
        let fragment =
            station.is_some() && !wds && self.config.fragment_every > 0 && msdu.len() > self.config.fragment_size && {
                self.unicast_sent += 1;
                self.unicast_sent.is_multiple_of(self.config.fragment_every)
            };
        if !fragment {
            return self.send_protected(station, from_ap, header, &msdu);
        }
        let fragment_size = self.config.fragment_size;
        let tx = Some(self.tx(station, from_ap)?);
        for mpdu in tx::fragments(header, &msdu, tx, fragment_size, Rules::default())? {
            self.push(mpdu);
        }
        Ok(())
    }

    /// Protect one MPDU with the station's pairwise key (or the group key) and record it.
    pub(super) fn send_protected(
        &mut self,
        station: Option<usize>,
        from_ap: bool,
        header: HeaderRepr,
        body: &[u8],
    ) -> Result<()> {
        let mpdu = tx::whole(header, body, Some(self.tx(station, from_ap)?), Rules::default())?;
        self.push(mpdu);
        Ok(())
    }
}
