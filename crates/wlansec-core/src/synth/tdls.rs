//! The TDLS direct link between two stations: the TPK handshake relayed through the AP,
//! then frames sent direct under the TPK.

use crate::error::{Error, Result};
use crate::gen::Rng;
use crate::rsn::element::ft::{self as ft_elements, FtElement};
use crate::rsn::element::ElementKind;
use crate::rsn::element::IEEE_OUI;
use crate::rsn::tdls::TpkMessage;
use crate::rsn::{Akm, CipherSuite, RsnElementRepr};
use crate::tx;
use crate::wire::llc;
use crate::wire::mgmt::{capability, Elements, STATUS_SUCCESS};
use crate::wire::tdls::{
    LinkIdRepr, SetupAction, SetupRepr, TimeoutIntervalRepr, ETHERTYPE_TDLS, TIMEOUT_KEY_LIFETIME,
};
use crate::wire::{FrameControl, FrameType, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};

use super::{transmitter, Synth, Tx};

/// A TDLS direct link: its two stations and the TPK each sends under.
pub(super) struct DirectLink {
    initiator: MacAddr,
    responder: MacAddr,
    initiator_tx: Tx,
    responder_tx: Tx,
}

impl DirectLink {
    pub(super) fn carries(&self, src: MacAddr, dst: MacAddr) -> bool {
        (src, dst) == (self.initiator, self.responder) || (src, dst) == (self.responder, self.initiator)
    }
}

/// AKM 00-0F-AC:7, TDLS: the AKM of a TDLS setup's RSN element.
const AKM_TDLS: Akm = Akm::Other { oui: IEEE_OUI, suite_type: 7 };

/// The TPK's lifetime the setups propose, in seconds (at least 300: 12.7.8.4.2).
const TPK_LIFETIME: u32 = 3600;

impl Synth {
    /// The TPK handshake between stations `i` (initiator) and `j` (responder), each frame
    /// sent through the AP as a data frame (to the AP under the sender's PTK, then from the
    /// AP under the receiver's): Setup Request (SNonce), Response (ANonce and its FTE MIC),
    /// Confirm (its FTE MIC); then both install the TPK-TK for the direct link.
    pub(super) fn tdls_setup(&mut self, i: usize, j: usize) -> Result<()> {
        let (initiator, responder) = (self.stations[i].mac, self.stations[j].mac);
        let mut snonce = [0u8; 32];
        let mut anonce = [0u8; 32];
        self.rng.fill_bytes(&mut snonce);
        self.rng.fill_bytes(&mut anonce);
        let rsn = RsnElementRepr::personal(CipherSuite::GroupAddressedTrafficNotAllowed, self.config.cipher, AKM_TDLS);
        let rsne = rsn.to_bytes(ElementKind::Rsn)?;
        let timeout = TimeoutIntervalRepr { interval_type: TIMEOUT_KEY_LIFETIME, value: TPK_LIFETIME }.to_bytes();
        let link = LinkIdRepr { bssid: self.bssid, initiator, responder }.to_bytes();
        let elements = |anonce: [u8; 32]| -> Result<Vec<u8>> {
            let fte = FtElement { anonce, snonce, r0kh_id: None, r1kh_id: None }.to_body(16)?;
            let fte = [&[ft_elements::FAST_BSS_TRANSITION_ID, fte.len() as u8][..], &fte].concat();
            Ok([&rsne[..], &fte, &timeout, &link].concat())
        };
        // The FTE's MIC field: after the RSNE and the FTE's ID, Length and MIC Control.
        let mic_at = rsne.len() + 4;
        let request = elements([0; 32])?;
        let mut signed = elements(anonce)?;
        let message = TpkMessage::find(Elements::new(&signed))?;
        let tpk = message.tpk()?;
        let response_mic = message.mic(tpk.kck.as_bytes(), SetupAction::Response)?;
        let confirm_mic = message.mic(tpk.kck.as_bytes(), SetupAction::Confirm)?;
        let dialog_token = 1;
        let capability = capability::ESS | capability::PRIVACY;
        let setup = |action, elements: &[u8]| {
            SetupRepr { action, status: STATUS_SUCCESS, dialog_token, capability, elements: Elements::new(elements) }
                .emit_vec()
        };
        let request = setup(SetupAction::Request, &request)?;
        signed[mic_at..mic_at + 16].copy_from_slice(&response_mic);
        let response = setup(SetupAction::Response, &signed)?;
        signed[mic_at..mic_at + 16].copy_from_slice(&confirm_mic);
        let confirm = setup(SetupAction::Confirm, &signed)?;
        for (from, to, payload) in [(i, j, request), (j, i, response), (i, j, confirm)] {
            self.through_ap(from, to, ETHERTYPE_TDLS, &payload)?;
        }
        let tk = tpk.tk.as_bytes();
        self.tdls = Some(DirectLink {
            initiator,
            responder,
            initiator_tx: transmitter(self.config.cipher, tk, 0)?,
            responder_tx: transmitter(self.config.cipher, tk, 0)?,
        });
        Ok(())
    }

    /// A payload of `ethertype` from station `from` to station `to`, relayed by the AP.
    pub(super) fn through_ap(&mut self, from: usize, to: usize, ethertype: u16, payload: &[u8]) -> Result<()> {
        let (sa, da) = (self.stations[from].mac, self.stations[to].mac);
        let mut msdu = vec![0u8; llc::SNAP_HEADER_LEN];
        llc::emit_snap(ethertype, &mut msdu)?;
        msdu.extend_from_slice(payload);
        let header = self.data_header(da, sa, false, None, false);
        self.send_protected(Some(from), false, header, &msdu)?;
        let header = self.data_header(da, sa, true, None, false);
        self.send_protected(Some(to), true, header, &msdu)
    }

    /// An MSDU on the TDLS direct link: A1 the receiving peer, A2 the sending one, A3 the
    /// BSSID, no DS bits, under the TPK.
    pub(super) fn send_direct(&mut self, src: MacAddr, dst: MacAddr, tid: Option<u8>, msdu: &[u8]) -> Result<()> {
        let header = HeaderRepr {
            frame_control: FrameControl::new(FrameType::Data, if tid.is_some() { 8 } else { 0 }),
            duration: 44,
            addr1: dst,
            addr2: src,
            addr3: self.bssid,
            sequence_control: SequenceControl::new(self.next_sequence(src), 0),
            addr4: None,
            qos_control: tid.map(|t| QosControl(u16::from(t))),
            ht_control: None,
        };
        let link = self.tdls.as_mut().ok_or(Error::Malformed("no TDLS direct link"))?;
        let tx = if src == link.initiator { &mut link.initiator_tx } else { &mut link.responder_tx };
        let mpdu = tx::whole(header, msdu, Some(tx), Rules::default())?;
        self.push(mpdu);
        Ok(())
    }
}
