//! The EAPOL-Key handshakes: the 4-way handshake per station (plain, or protected in a
//! re-authentication), the group key handshake of a rekey, and the keys they install.

use crate::error::{Error, Result};
use crate::gen::Rng;
use crate::rsn::eapol::{self, DescriptorType, EapolKeyRepr, KeyInfo, ETHERTYPE_EAPOL};
use crate::rsn::element::{kde_type, KeyDataBuilder};
use crate::rsn::kdf::ft;
use crate::rsn::{derive_ptk_with, KeyDescriptorVersion, KeyIntegrity, Ptk, Secret};
use crate::wire::llc;
use crate::wire::mgmt::{DeauthenticationRepr, ManagementBody, REASON_LEAVING};
use crate::wire::{HeaderRepr, MacAddr, Rules};

use super::{transmitter, Synth, MDID, R0KH_ID};

/// The Key ID of pairwise keys under Extended Key ID.
const PAIRWISE_KEY_ID: u8 = 1;

impl Synth {
    pub(super) fn descriptor_version(&self) -> KeyDescriptorVersion {
        self.keys.descriptor_version(self.config.cipher)
    }

    pub(super) fn integrity(&self) -> KeyIntegrity {
        self.keys.integrity_of(self.descriptor_version())
    }

    /// The frame's bytes, its Key MIC field as long as the AKM's MIC, signed under `kck`.
    pub(super) fn signed(&self, repr: &EapolKeyRepr<'_>, kck: &[u8]) -> Result<Vec<u8>> {
        repr.to_signed_bytes_with(self.integrity(), kck)
    }

    pub(super) fn eapol_repr<'a>(
        &self,
        flags: u16,
        replay: u64,
        nonce: [u8; 32],
        key_data: &'a [u8],
    ) -> EapolKeyRepr<'a> {
        EapolKeyRepr {
            protocol_version: 2,
            descriptor_type: DescriptorType::Rsn,
            key_info: KeyInfo::new(self.descriptor_version(), flags),
            key_length: self.config.cipher.tk_len().unwrap_or(16) as u16,
            replay_counter: replay,
            nonce,
            key_iv: [0; 16],
            key_rsc: 0,
            mic: [0; 16],
            key_data,
        }
    }

    /// Encrypted Key Data with a fresh Key IV (RC4 needs one; AES key wrap ignores it).
    pub(super) fn encrypted_key_data(&mut self, ptk: &Ptk, plain: &[u8]) -> Result<([u8; 16], Vec<u8>)> {
        let mut iv = [0u8; 16];
        if self.descriptor_version() == KeyDescriptorVersion::HmacMd5Rc4 {
            self.rng.fill_bytes(&mut iv);
        }
        let data = eapol::encrypt_key_data(self.descriptor_version(), ptk.kek.as_bytes(), &iv, plain)?;
        Ok((iv, data))
    }

    /// The 4-way handshake of station `i`; `ptk_rekey`: a new PTK in the same association,
    /// which under Extended Key ID takes the other Key ID while the station goes on sending
    /// under the old one (the AP takes the new one at once), so both are in use.
    pub(super) fn four_way_handshake(&mut self, i: usize, ptk_rekey: bool) -> Result<()> {
        self.four_way_handshake_in(i, ptk_rekey, false)
    }

    /// ... with its EAPOL frames `protected` under the PTK in use (a re-authentication).
    pub(super) fn four_way_handshake_in(&mut self, i: usize, ptk_rekey: bool, protected: bool) -> Result<()> {
        let pairwise_key_id = match (self.config.extended_key_id, ptk_rekey) {
            (false, _) => 0,
            (true, false) => PAIRWISE_KEY_ID,
            (true, true) => 1 - self.stations[i].key_id,
        };
        let pmk = self.pmk.as_ref().ok_or(Error::Malformed("no PMK"))?;
        let (aa, spa) = (self.bssid, self.stations[i].mac);
        let mut anonce = [0u8; 32];
        let mut snonce = [0u8; 32];
        self.rng.fill_bytes(&mut anonce);
        self.rng.fill_bytes(&mut snonce);
        let tk_len = self.config.cipher.tk_len().ok_or(Error::Unsupported("cipher without a key length"))?;
        let (ptk, rsn, ft_elements) = if self.config.akm.is_ft() {
            let ssid = self.config.ssid.clone();
            let ids = ft::Ids { ssid: &ssid, mdid: MDID, r0kh_id: R0KH_ID, r1kh_id: aa.0, spa };
            let (ptk, pmk_r1_name) = ft::derive_ptk(&self.keys, pmk.as_bytes(), &ids, tk_len, aa, &anonce, &snonce)?;
            // Messages 2 and 3 name PMKR1Name and carry the MDE and FTE (12.7.6.3).
            let mut elements = self.mobility_domain().unwrap_or_default();
            elements.extend_from_slice(&self.fast_bss_transition()?);
            (ptk, self.rsn_element_with(Some(pmk_r1_name))?, elements)
        } else {
            (derive_ptk_with(pmk, &self.keys, tk_len, aa, spa, &anonce, &snonce)?, self.rsn_element()?, Vec::new())
        };
        let kck = ptk.kck.as_bytes().to_vec();
        let r = self.stations[i].replay_counter + 1;
        self.stations[i].replay_counter = r + 1;
        let (key_id, gtk) = self.gtk.clone().ok_or(Error::Malformed("no GTK"))?;

        let m1 = self.signed(&self.eapol_repr(KeyInfo::PAIRWISE | KeyInfo::ACK, r, anonce, &[]), &kck)?;
        let m2_data = [rsn.as_slice(), &ft_elements].concat();
        let mut m2 = self.eapol_repr(KeyInfo::PAIRWISE | KeyInfo::MIC, r, snonce, &m2_data);
        m2.key_length = 0;
        let m2 = self.signed(&m2, &kck)?;
        let mut plain = KeyDataBuilder::new().element(&rsn).gtk(key_id, true, gtk.as_bytes())?;
        if self.config.extended_key_id {
            plain = plain.kde(kde_type::KEY_ID, &[pairwise_key_id, 0])?;
        }
        if let Some((igtk, ipn)) = &self.igtk {
            plain = plain.igtk(igtk.key_id(), ipn.last(), igtk.key().as_bytes())?;
        }
        let plain = plain.element(&ft_elements).build();
        let (iv, data) = self.encrypted_key_data(&ptk, &plain)?;
        let flags3 = KeyInfo::PAIRWISE
            | KeyInfo::INSTALL
            | KeyInfo::ACK
            | KeyInfo::MIC
            | KeyInfo::SECURE
            | KeyInfo::ENCRYPTED_KEY_DATA;
        let mut m3 = self.eapol_repr(flags3, r + 1, anonce, &data);
        m3.key_iv = iv;
        let m3 = self.signed(&m3, &kck)?;
        let mut m4 = self.eapol_repr(KeyInfo::PAIRWISE | KeyInfo::MIC | KeyInfo::SECURE, r + 1, [0; 32], &[]);
        m4.key_length = 0;
        let m4 = self.signed(&m4, &kck)?;

        for (from_ap, message) in [(true, m1), (false, m2), (true, m3), (false, m4)] {
            if protected {
                let (header, body) = self.eapol_mpdu_parts(self.stations[i].mac, from_ap, &message)?;
                self.send_protected(Some(i), from_ap, header, &body)?;
            } else {
                self.eapol_plain(i, from_ap, &message)?;
            }
        }
        let tk = ptk.tk.as_bytes();
        let st = &mut self.stations[i];
        st.ap_tx = Some(transmitter(self.config.cipher, tk, pairwise_key_id)?);
        if !ptk_rekey {
            st.sta_tx = Some(transmitter(self.config.cipher, tk, pairwise_key_id)?);
        }
        st.key_id = pairwise_key_id;
        st.ptk = Some(ptk);
        Ok(())
    }

    /// An EAPOL frame in a non-QoS data frame, sent in the clear (before keys exist).
    pub(super) fn eapol_plain(&mut self, i: usize, from_ap: bool, eapol: &[u8]) -> Result<()> {
        let sta = self.stations[i].mac;
        let (header, body) = self.eapol_mpdu_parts(sta, from_ap, eapol)?;
        let mut mpdu = vec![0u8; header.header_len()];
        header.emit(&mut mpdu, Rules::default())?;
        mpdu.extend_from_slice(&body);
        self.push(mpdu);
        Ok(())
    }

    pub(super) fn eapol_mpdu_parts(
        &mut self,
        sta: MacAddr,
        from_ap: bool,
        eapol: &[u8],
    ) -> Result<(HeaderRepr, Vec<u8>)> {
        let (da, sa) = if from_ap { (sta, self.bssid) } else { (self.bssid, sta) };
        let header = self.data_header(da, sa, from_ap, None, false);
        let mut body = vec![0u8; llc::SNAP_HEADER_LEN];
        llc::emit_snap(ETHERTYPE_EAPOL, &mut body)?;
        body.extend_from_slice(eapol);
        Ok((header, body))
    }

    pub(super) fn new_gtk(&mut self, key_id: u8) -> Result<()> {
        let len = self.config.cipher.tk_len().ok_or(Error::Unsupported("group cipher without a key length"))?;
        let mut gtk = vec![0u8; len];
        self.rng.fill_bytes(&mut gtk);
        let secret = Secret::from_slice(&gtk)?;
        self.group_tx = Some(transmitter(self.config.cipher, &gtk, key_id)?);
        self.gtk = Some((key_id, secret));
        Ok(())
    }

    /// A new GTK, sent to every station with the group key handshake under its PTK; then
    /// station 0 leaves and associates again (a fresh PTK).
    pub(super) fn rekey(&mut self) -> Result<()> {
        let key_id = if self.gtk.as_ref().is_some_and(|(k, _)| *k == 1) { 2 } else { 1 };
        self.new_gtk(key_id)?;
        let (key_id, gtk) = self.gtk.clone().ok_or(Error::Malformed("no GTK"))?;
        for i in 0..self.stations.len() {
            let ptk = self.stations[i].ptk.take().ok_or(Error::Malformed("station without a PTK"))?;
            let kck = ptk.kck.as_bytes().to_vec();
            let r = self.stations[i].replay_counter + 1;
            self.stations[i].replay_counter = r;
            let plain = KeyDataBuilder::new().gtk(key_id, true, gtk.as_bytes())?.build();
            let (iv, data) = self.encrypted_key_data(&ptk, &plain)?;
            let flags = KeyInfo::ACK | KeyInfo::MIC | KeyInfo::SECURE | KeyInfo::ENCRYPTED_KEY_DATA;
            let mut g1 = self.eapol_repr(flags, r, [0; 32], &data);
            g1.key_iv = iv;
            let g1 = self.signed(&g1, &kck)?;
            let mut g2 = self.eapol_repr(KeyInfo::MIC | KeyInfo::SECURE, r, [0; 32], &[]);
            g2.key_length = 0;
            let g2 = self.signed(&g2, &kck)?;
            self.stations[i].ptk = Some(ptk);
            let sta = self.stations[i].mac;
            for (from_ap, eapol) in [(true, g1), (false, g2)] {
                let (header, body) = self.eapol_mpdu_parts(sta, from_ap, &eapol)?;
                self.send_protected(Some(i), from_ap, header, &body)?;
            }
        }
        if self.config.extended_key_id {
            return self.four_way_handshake(0, true);
        }
        let sta = self.stations[0].mac;
        let deauthentication = DeauthenticationRepr { reason: REASON_LEAVING };
        self.management(ManagementBody::Deauthentication(deauthentication), sta, self.bssid)?;
        self.associate(0)
    }
}
