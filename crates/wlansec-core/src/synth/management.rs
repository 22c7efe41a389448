//! The access point's management frames: beacons with the RSN (and FT) elements, open
//! authentication and association, and the 802.11w frames at the end of the capture.

use crate::error::{Error, Result};
use crate::gen::Rng;
use crate::rsn::element::ft::{self as ft_elements, FtElement};
use crate::rsn::element::owe::DhParameterRepr;
use crate::rsn::element::ElementKind;
use crate::rsn::{Akm, CipherSuite, MfpPolicy, RsnElementRepr};
use crate::suite::FrameSuite;
use crate::wire::mgmt::{
    capability, ActionRepr, AssociationRequestRepr, AssociationResponseRepr, AuthenticationRepr, BeaconRepr,
    DeauthenticationRepr, Elements, ElementsBuilder, ManagementBody, REASON_LEAVING, STATUS_SUCCESS,
    SUPPORTED_RATES_BG,
};
use crate::wire::{MacAddr, SequenceControl};

use super::{is_wep, Synth, MDID, R0KH_ID};

/// RSN Capabilities: Extended Key ID for Individually Addressed Frames (9.4.2.24.4).
const EXTENDED_KEY_ID: u16 = 1 << 13;

/// Action category SA Query (robust) and its Request and Response action codes (9.6.9).
const CATEGORY_SA_QUERY: u8 = 8;

const SA_QUERY_REQUEST: u8 = 0;

const SA_QUERY_RESPONSE: u8 = 1;

impl Synth {
    pub(super) fn rsn_element(&self) -> Result<Vec<u8>> {
        self.rsn_element_with(None)
    }

    /// The RSN element, with a PMKID (an FT station's PMKR1Name) when given.
    pub(super) fn rsn_element_with(&self, pmkid: Option<[u8; 16]>) -> Result<Vec<u8>> {
        let mut repr = RsnElementRepr::personal(self.config.cipher, self.config.cipher, self.config.akm);
        if self.config.pmf {
            repr = repr.with_mfp(MfpPolicy::Required, CipherSuite::BipCmac128);
        }
        repr.pmkids.extend(pmkid);
        if self.config.extended_key_id {
            repr.capabilities |= EXTENDED_KEY_ID;
        }
        repr.to_bytes(ElementKind::Rsn)
    }

    /// The Mobility Domain element of an FT network (MDID a1b2, FT over the DS).
    pub(super) fn mobility_domain(&self) -> Option<Vec<u8>> {
        self.config.akm.is_ft().then(|| vec![ft_elements::MOBILITY_DOMAIN_ID, 3, MDID[0], MDID[1], 0x01])
    }

    /// The Fast BSS Transition element of the association response (and the 4-way
    /// handshake of an initial mobility domain association): the AP is its own R0KH and R1KH.
    pub(super) fn fast_bss_transition(&self) -> Result<Vec<u8>> {
        let fte = FtElement { anonce: [0; 32], snonce: [0; 32], r0kh_id: Some(R0KH_ID), r1kh_id: Some(self.bssid.0) };
        let body = fte.to_body(self.fte_mic_len())?;
        let mut out = vec![ft_elements::FAST_BSS_TRANSITION_ID, body.len() as u8];
        out.extend_from_slice(&body);
        Ok(out)
    }

    pub(super) fn fte_mic_len(&self) -> usize {
        if self.config.akm == Akm::FtIeee8021xSha384 {
            24
        } else {
            16
        }
    }

    pub(super) fn management(&mut self, body: ManagementBody, da: MacAddr, sa: MacAddr) -> Result<()> {
        let sequence_control = SequenceControl::new(self.next_sequence(sa), 0);
        let mpdu = body.to_mpdu(da, sa, self.bssid, sequence_control)?;
        self.push(mpdu);
        Ok(())
    }

    /// SSID, rates, channel and (but on WEP networks) the RSN element.
    pub(super) fn elements(&self) -> Result<Vec<u8>> {
        let elements = ElementsBuilder::new()
            .ssid(&self.config.ssid)?
            .supported_rates(&SUPPORTED_RATES_BG)?
            .ds_parameter_set(6)?;
        let mut elements =
            if is_wep(self.config.cipher) { elements } else { elements.encoded(&self.rsn_element()?)? };
        if let Some(mde) = self.mobility_domain() {
            elements = elements.encoded(&mde)?;
        }
        Ok(elements.build())
    }

    pub(super) fn beacon(&mut self) -> Result<()> {
        let elements = self.elements()?;
        let beacon = BeaconRepr {
            timestamp: self.records.len() as u64 * 200,
            beacon_interval: 100,
            capability: capability::ESS | capability::PRIVACY,
            elements: Elements::new(&elements),
        };
        self.management(ManagementBody::Beacon(beacon), MacAddr::BROADCAST, self.bssid)
    }

    /// Open authentication, association and (for RSN) the 4-way handshake.
    pub(super) fn associate(&mut self, i: usize) -> Result<()> {
        let sta = self.stations[i].mac;
        let ap = self.bssid;
        let capability = capability::ESS | capability::PRIVACY;
        let auth = |transaction_sequence| {
            ManagementBody::Authentication(AuthenticationRepr::open_system(transaction_sequence, STATUS_SUCCESS))
        };
        self.management(auth(1), ap, sta)?;
        self.management(auth(2), sta, ap)?;
        let mut elements = self.elements()?;
        if self.config.akm == Akm::Owe {
            // OWE Diffie-Hellman Parameter element: group 19 and a public key (x-coordinate).
            let mut public = [0u8; 32];
            self.rng.fill_bytes(&mut public);
            elements.extend_from_slice(&DhParameterRepr { group: 19, public_key: &public }.to_bytes()?);
        }
        let request = AssociationRequestRepr {
            capability,
            listen_interval: 10,
            current_ap: None,
            elements: Elements::new(&elements),
        };
        self.management(ManagementBody::AssociationRequest(request), ap, sta)?;
        let mut rates = ElementsBuilder::new().supported_rates(&SUPPORTED_RATES_BG)?.build();
        if let Some(mde) = self.mobility_domain() {
            rates.extend_from_slice(&mde);
            rates.extend_from_slice(&self.fast_bss_transition()?);
        }
        let response = AssociationResponseRepr {
            capability,
            status: STATUS_SUCCESS,
            aid: 1 + i as u16,
            elements: Elements::new(&rates),
        };
        self.management(ManagementBody::AssociationResponse(response), sta, ap)?;
        if is_wep(self.config.cipher) {
            return Ok(());
        }
        self.four_way_handshake(i, false)
    }

    /// 802.11w at the end of the capture: an SA Query Request and Response under each
    /// station's PTK, a protected Deauthentication of station 0, then a broadcast
    /// Deauthentication protected with BIP.
    pub(super) fn protected_management(&mut self) -> Result<()> {
        let ap = self.bssid;
        for i in 0..self.stations.len() {
            let sta = self.stations[i].mac;
            let transaction = (i as u16 + 1).to_le_bytes();
            for (from_ap, action) in [(true, SA_QUERY_REQUEST), (false, SA_QUERY_RESPONSE)] {
                let details = [action, transaction[0], transaction[1]];
                let body = ManagementBody::Action(ActionRepr { category: CATEGORY_SA_QUERY, details: &details });
                let (da, sa) = if from_ap { (sta, ap) } else { (ap, sta) };
                self.protected_management_frame(Some(i), from_ap, body, da, sa)?;
            }
        }
        let deauthentication = ManagementBody::Deauthentication(DeauthenticationRepr { reason: REASON_LEAVING });
        self.protected_management_frame(Some(0), true, deauthentication, self.stations[0].mac, ap)?;
        self.protected_management_frame(None, true, deauthentication, MacAddr::BROADCAST, ap)
    }

    /// One robust management frame from `sa` to `da`: under the station's PTK when
    /// `station` is given, else group addressed with BIP's MME.
    pub(super) fn protected_management_frame(
        &mut self,
        station: Option<usize>,
        from_ap: bool,
        body: ManagementBody,
        da: MacAddr,
        sa: MacAddr,
    ) -> Result<()> {
        let sequence_control = SequenceControl::new(self.next_sequence(sa), 0);
        let mut mpdu = body.to_mpdu(da, sa, self.bssid, sequence_control)?;
        let len = mpdu.len();
        let len = match station {
            Some(i) => {
                let tx = self.tx(Some(i), from_ap)?;
                mpdu.resize(len + tx.suite().overhead(), 0);
                tx.protect(&mut mpdu, len)?
            }
            None => {
                let (igtk, ipn) = self.igtk.as_mut().ok_or(Error::Malformed("no IGTK"))?;
                mpdu.resize(len + igtk.overhead(), 0);
                igtk.protect(&mut mpdu, len, ipn.next_pn()?)?
            }
        };
        mpdu.truncate(len);
        self.push(mpdu);
        Ok(())
    }
}
