//! The handshakes the tracker follows: the 4-way handshake (a PTK installed only once
//! message 2's MIC verifies under one of the PMKs), the group key handshake and message 3's
//! GTK, and the TDLS TPK handshake of a direct link.

use core::hash::BuildHasher;

use crate::error::{Error, HandshakeError, Result};
use crate::rsn::eapol::{self, DescriptorType, EapolKey, KeyInfo, Message};
use crate::rsn::element::ft::{self as ft_elements, FtElement};
use crate::rsn::element::{kde_type, key_data_items, GtkKde, KeyDataItem, IEEE_OUI};
use crate::rsn::kdf::ft;
use crate::rsn::tdls::TpkMessage;
use crate::rsn::{derive_ptk_with, Akm, AkmKeys, CipherSuite, KeyDescriptorVersion, RsnElementRepr, Secret};
use crate::wire::mgmt::STATUS_SUCCESS;
use crate::wire::tdls::{SetupAction, SetupRepr, TdlsFrame};
use crate::wire::{HeaderRepr, MacAddr};

use super::{link_id, rx_key, Handshake, HandshakeId, KeyTracker, Links, Network, PairwiseKey, Stats, PENDING_M2};

/// A checked view of an EAPOL-Key frame whose Key MIC field length the frame does not say:
/// the length `hint` gives (the network's AKM), else the first that fits.
fn eapol_view(eapol: &[u8], hint: Option<usize>) -> Option<EapolKey<&[u8]>> {
    hint.into_iter().chain([16, 24, 32]).find_map(|len| EapolKey::new_checked_with_mic_len(eapol, len).ok())
}

/// The pairwise cipher and AKM a message 2 names in its RSN/WPA element, else what the
/// network announced, else what the key descriptor version implies.
fn suites_of(key_data: &[u8], version: KeyDescriptorVersion, network: &Network) -> (CipherSuite, Akm) {
    let element = key_data_items(key_data).filter_map(|i| i.ok()).find_map(|i| match i {
        KeyDataItem::Element { element, .. } => RsnElementRepr::parse(element).ok(),
        KeyDataItem::Kde { .. } => None,
    });
    let by_version = match version {
        // The AKM-defined version is most often SAE's.
        KeyDescriptorVersion::AkmDefined => (CipherSuite::Ccmp128, Akm::Sae),
        KeyDescriptorVersion::HmacMd5Rc4 => (CipherSuite::Tkip, Akm::Psk),
        KeyDescriptorVersion::HmacSha1Aes => (CipherSuite::Ccmp128, Akm::Psk),
        KeyDescriptorVersion::AesCmac => (CipherSuite::Ccmp128, Akm::PskSha256),
    };
    let from_element = element.map(|(_, e)| (e.pairwise_ciphers.first().copied(), e.akms.first().copied()));
    let (cipher, akm) = from_element.unwrap_or((network.pairwise, network.akm));
    (cipher.unwrap_or(by_version.0), akm.unwrap_or(by_version.1))
}

/// The group cipher: from the RSN element in message 3's Key Data, else the pairwise one.
fn group_cipher_of(
    key_data: &[u8],
    version: KeyDescriptorVersion,
    network: &Network,
    pairwise: Option<CipherSuite>,
) -> CipherSuite {
    let from_element = key_data_items(key_data).filter_map(|i| i.ok()).find_map(|i| match i {
        KeyDataItem::Element { element, .. } => RsnElementRepr::parse(element).ok().map(|(_, e)| e.group_cipher),
        KeyDataItem::Kde { .. } => None,
    });
    from_element.or(pairwise).or(network.pairwise).unwrap_or(if version == KeyDescriptorVersion::HmacMd5Rc4 {
        CipherSuite::Tkip
    } else {
        CipherSuite::Ccmp128
    })
}

/// What the FT key hierarchy of a message 2 is named by: the SSID the network announced,
/// the MDID of the Mobility Domain element and the key holders of the Fast BSS Transition
/// element the message carries (from the association response, 12.7.6.3); the R0KH-ID
/// is returned apart, owned.
fn ft_ids<'a>(key_data: &[u8], network: &'a Network, akm: Akm, spa: MacAddr) -> Result<(ft::Ids<'a>, Vec<u8>)> {
    let ssid =
        network.ssid.as_deref().ok_or(Error::Unsupported("FT handshake of a network whose SSID was not seen"))?;
    let mut mdid = None;
    let mut fte = None;
    let fte_mic_len = if akm == Akm::FtIeee8021xSha384 { 24 } else { 16 };
    for item in key_data_items(key_data).filter_map(|i| i.ok()) {
        if let KeyDataItem::Element { id, element } = item {
            match id {
                ft_elements::MOBILITY_DOMAIN_ID => mdid = Some(ft_elements::mdid(&element[2..])?),
                ft_elements::FAST_BSS_TRANSITION_ID => fte = Some(FtElement::parse(&element[2..], fte_mic_len)?),
                _ => {}
            }
        }
    }
    let missing = Error::Malformed("FT message 2 without its Mobility Domain and FT elements");
    let (Some(mdid), Some(fte)) = (mdid, fte) else { return Err(missing) };
    let (Some(r0kh_id), Some(r1kh_id)) = (fte.r0kh_id, fte.r1kh_id) else { return Err(missing) };
    Ok((ft::Ids { ssid, mdid, r0kh_id: &[], r1kh_id, spa }, r0kh_id.to_vec()))
}

/// Message 3 under Extended Key ID: move its PTK to the Key ID its Key ID KDE names.
fn place_by_key_id(links: &mut Links, (aa, spa): HandshakeId, tk: &Secret, key_data: &[u8]) {
    let key_id = key_data_items(key_data).filter_map(|i| i.ok()).find_map(|i| match i {
        KeyDataItem::Kde { oui: IEEE_OUI, data_type: kde_type::KEY_ID, data: [id, ..] } => Some(id & 1),
        _ => None,
    });
    let (Some(key_id), Some(link)) = (key_id, links.get_mut(&link_id(aa, spa))) else { return };
    if let Some(at) = link.holds(tk).filter(|&at| at != usize::from(key_id)) {
        link.keys[usize::from(key_id)] = link.keys[at].take();
    }
    link.extended_key_id = Some(key_id);
}

impl KeyTracker {
    /// Follow one EAPOL-Key frame of a handshake. Bad messages are counted and ignored:
    /// they never install a key.
    pub(in crate::decrypt) fn handshake(&mut self, header: &HeaderRepr, eapol: &[u8], stats: &mut Stats) {
        if self.try_handshake(header, eapol, stats).is_err() {
            stats.bad_handshake_messages += 1;
        }
    }

    pub(super) fn try_handshake(&mut self, header: &HeaderRepr, eapol: &[u8], stats: &mut Stats) -> Result<()> {
        if self.keys.pmks.is_empty() {
            return Ok(());
        }
        let ta = header.addr2;
        let ra = header.addr1;
        let bss = header.bssid().unwrap_or(header.addr2);
        let hint = self.networks.get(&bss).and_then(Network::mic_len);
        // Other EAPOL frames (EAP, Start, Logoff) are not part of a key handshake.
        let Some(view) = eapol_view(eapol, hint) else {
            return Ok(());
        };
        let frame = view.frame().to_vec();
        self.link_entry(link_id(ta, ra));
        match view.message() {
            Message::FourWay1 => self.new_anonce((ta, ra), bss, view.nonce(), stats),
            Message::FourWay2 => {
                let id = (ra, ta);
                let handshake = self.handshake_entry(id);
                if handshake.anonce.is_none() {
                    if handshake.pending_m2.len() == PENDING_M2 {
                        handshake.pending_m2.remove(0);
                    }
                    handshake.pending_m2.push(frame);
                    return Ok(());
                }
                self.message2(id, bss, &frame, stats)
            }
            Message::FourWay3 => {
                let id = (ta, ra);
                if self.handshakes.get(&id).and_then(|h| h.anonce) != Some(view.nonce()) {
                    self.new_anonce(id, bss, view.nonce(), stats)?;
                }
                self.group_key_message(id, bss, &frame, stats)
            }
            Message::Group1 => self.group_key_message((ta, ra), bss, &frame, stats),
            Message::FourWay4 | Message::Group2 | Message::Request => Ok(()),
        }
    }

    /// Message 1 (or a message 3 whose ANonce is new): take the ANonce and try the
    /// messages 2 that were waiting for it.
    pub(super) fn new_anonce(
        &mut self,
        id: HandshakeId,
        bss: MacAddr,
        anonce: [u8; 32],
        stats: &mut Stats,
    ) -> Result<()> {
        let handshake = self.handshake_entry(id);
        if handshake.anonce.is_some_and(|a| a != anonce) && !handshake.older_anonces.contains(&handshake.anonce) {
            handshake.older_anonces.rotate_right(1);
            handshake.older_anonces[0] = handshake.anonce;
        }
        handshake.anonce = Some(anonce);
        for m2 in std::mem::take(&mut handshake.pending_m2) {
            self.message2(id, bss, &m2, stats)?;
        }
        Ok(())
    }

    /// The handshake `id`, created if new, marked as used now.
    pub(super) fn handshake_entry(&mut self, id: HandshakeId) -> &mut Handshake {
        let now = self.now();
        let handshake = self.handshakes.entry(id).or_default();
        handshake.used = now;
        handshake
    }

    /// Derive the PTK for a message 2 under each PMK and install the one whose MIC
    /// verifies. Of a pair's two
    /// IBSS handshakes, the one whose authenticator has the larger address keys the link
    /// (IEEE 802.11-2020 12.6.10.1); a smaller one keys it only until then.
    pub(super) fn message2(&mut self, id: HandshakeId, bss: MacAddr, frame: &[u8], stats: &mut Stats) -> Result<()> {
        let network = self.networks.get(&bss).cloned().unwrap_or_default();
        let (aa, spa) = id;
        let handshake = self
            .handshakes
            .get_mut(&id)
            .ok_or(HandshakeError::Unexpected { expected: Some(Message::FourWay1), got: Message::FourWay2 })?;
        let view = eapol_view(frame, network.mic_len()).ok_or(Error::Malformed("EAPOL-Key message 2"))?;
        let version = view.key_info().version()?;
        let (cipher, akm) = suites_of(view.key_data(), version, &network);
        // Bounded: an AKM suite selector is any 32-bit number.
        if !self.akms_seen.contains(&akm) && self.akms_seen.len() < 16 {
            self.akms_seen.push(akm);
        }
        let keys = AkmKeys::of(akm, network.dh_group)?;
        let tk_len = cipher.tk_len().ok_or(Error::Unsupported("pairwise cipher with no known TK length"))?;
        let anonce = handshake
            .anonce
            .ok_or(HandshakeError::Unexpected { expected: Some(Message::FourWay1), got: Message::FourWay2 })?;
        let snonce = view.nonce();
        let ft_ids = if akm.is_ft() { Some(ft_ids(view.key_data(), &network, akm, spa)?) } else { None };
        let integrity = keys.integrity_of(version);
        let mut verified = None;
        let anonces = [Some(anonce)].into_iter().chain(handshake.older_anonces).flatten();
        'anonces: for anonce in anonces {
            for (i, pmk) in self.keys.pmks.iter().enumerate() {
                let ptk = match &ft_ids {
                    Some((ids, r0kh_id)) => {
                        let ids = ft::Ids { r0kh_id, ..ids.clone() };
                        ft::derive_ptk(&keys, pmk.as_bytes(), &ids, tk_len, aa, &anonce, &snonce)?.0
                    }
                    None => derive_ptk_with(pmk, &keys, tk_len, aa, spa, &anonce, &snonce)?,
                };
                if eapol::verify_mic_with(integrity, ptk.kck.as_bytes(), frame).is_ok() {
                    verified = Some((i, ptk));
                    break 'anonces;
                }
            }
        }
        let Some((pmk_index, ptk)) = verified else {
            stats.mic_mismatches += 1;
            return Err(Error::MicFailure);
        };
        let tk = ptk.tk.clone();
        let fingerprint = self.fingerprints.hash_one(tk.as_bytes()).max(1);
        let counter = view.replay_counter();
        let link = self.links.get(&link_id(aa, spa));
        let current = link.is_some_and(|l| l.holds(&tk).is_some());
        // A key is replaced only by a fresh handshake: a TK the link never had, under a
        // Replay Counter above the last verified one (a verbatim replay of an older
        // handshake would put its key back with fresh replay counters, and the frames sent
        // under it would open a second time).
        let stale = handshake.verified_counter.is_some_and(|last| counter <= last)
            || link.is_some_and(|l| l.installed_before(fingerprint));
        if stale && !current {
            stats.replayed_handshakes += 1;
            return Err(HandshakeError::Unexpected { expected: None, got: Message::FourWay2 }.into());
        }
        stats.handshakes += 1;
        handshake.verified_counter = Some(handshake.verified_counter.map_or(counter, |last| last.max(counter)));
        handshake.cipher = Some(cipher);
        handshake.ptk = Some(ptk);
        handshake.keys = Some(keys);
        // The handshake proves the network: the SSID its PMK was derived from (else the one
        // announced until now) and its suites stay whatever beacons say later.
        let ssid = self.keys.ssid_of_pmk(pmk_index).map(<[u8]>::to_vec);
        let now = self.now();
        let network = self.networks.entry(bss).or_default();
        network.used = now;
        network.proven = true;
        if ssid.is_some() {
            network.ssid = ssid;
        }
        let rules = self.rules;
        let link = self.link_entry(link_id(aa, spa));
        let preferred = link.authenticator.is_none_or(|current| aa >= current);
        if preferred && !current {
            // With Extended Key ID the new PTK takes the other Key ID (message 3 says which);
            // the old one stays for the frames still sent under it.
            let index = link.extended_key_id.map_or(0, |last| usize::from(1 - (last & 1)));
            link.install(index, PairwiseKey::new(cipher, tk, rules)?, fingerprint);
        }
        if preferred {
            link.authenticator = Some(aa);
        }
        link.ended = false;
        Ok(())
    }

    /// Message 3 or group message 1 from authenticator `id.0`: verify its MIC under the KCK
    /// of a handshake between the two (its own; a group message 1 in an IBSS may come
    /// under the pair's other one), decrypt the Key Data under that KEK and install the
    /// GTK it carries as the sender's.
    pub(super) fn group_key_message(
        &mut self,
        id: HandshakeId,
        bss: MacAddr,
        frame: &[u8],
        stats: &mut Stats,
    ) -> Result<()> {
        let network = self.networks.get(&bss).cloned().unwrap_or_default();
        let mut candidates = [id, (id.1, id.0)]
            .into_iter()
            .filter_map(|h| self.handshakes.get(&h))
            .filter(|h| h.ptk.is_some())
            .peekable();
        if candidates.peek().is_none() {
            return Ok(());
        }
        let verifies = |h: &Handshake| {
            let (Some(ptk), Some(keys)) = (&h.ptk, &h.keys) else { return false };
            let view = EapolKey::new_checked_with_mic_len(frame, keys.mic_len());
            let Some(version) = view.ok().and_then(|v| v.key_info().version().ok()) else { return false };
            eapol::verify_mic_with(keys.integrity_of(version), ptk.kck.as_bytes(), frame).is_ok()
        };
        let handshake = candidates.find(|h| verifies(h)).ok_or(Error::MicFailure)?;
        let (Some(ptk), Some(keys)) = (&handshake.ptk, &handshake.keys) else {
            return Ok(());
        };
        let view = EapolKey::new_checked_with_mic_len(frame, keys.mic_len())?;
        let info = view.key_info();
        let version = info.version()?;
        if !info.has(KeyInfo::ENCRYPTED_KEY_DATA) && view.descriptor_type()? == DescriptorType::Rsn {
            return Ok(());
        }
        let plain = eapol::decrypt_key_data(version, ptk.kek.as_bytes(), &view.key_iv(), view.key_data())?;
        if info.has(KeyInfo::PAIRWISE) {
            place_by_key_id(&mut self.links, id, &ptk.tk, &plain);
        }
        let group_cipher = group_cipher_of(&plain, version, &network, handshake.cipher);
        let (key_id, gtk) = if view.descriptor_type()? == DescriptorType::Wpa {
            // WPA (pre-RSN) group message 1: the Key Data is the bare GTK.
            if info.has(KeyInfo::PAIRWISE) {
                return Ok(());
            }
            let len = usize::from(view.key_length()).min(plain.len());
            (info.wpa_key_index(), Secret::from_slice(&plain[..len])?)
        } else {
            let kde = key_data_items(&plain)
                .filter_map(|i| i.ok())
                .find_map(|i| match i {
                    KeyDataItem::Kde { oui, data_type, data } if oui == IEEE_OUI && data_type == kde_type::GTK => {
                        Some(data)
                    }
                    _ => None,
                })
                .ok_or(HandshakeError::NoGtk)?;
            let kde = GtkKde::parse(kde)?;
            (kde.key_id, Secret::from_slice(kde.gtk)?)
        };
        if gtk.is_all_zero() {
            return Err(HandshakeError::AllZeroKey.into());
        }
        if view.descriptor_type()? == DescriptorType::Rsn {
            self.integrity.learn(id.0, &plain, network.group_mgmt, stats)?;
        }
        let now = self.now();
        let group = self.groups.entry(id.0).or_default();
        group.used = now;
        let slot = &mut group.keys[usize::from(key_id & 3)];
        if slot.as_ref().is_some_and(|(k, _)| *k == gtk) {
            return Ok(());
        }
        let gtk_len = group_cipher.tk_len().unwrap_or(gtk.len());
        let rx = rx_key(group_cipher, &gtk.as_bytes()[..gtk_len.min(gtk.len())], None, self.rules)?;
        *slot = Some((gtk, rx));
        stats.group_keys += 1;
        Ok(())
    }

    /// Follow a TDLS frame that two stations exchange through the AP. A Setup Response or
    /// Confirm gives the TPK (from its FTE's nonces and its Link Identifier); when its FTE
    /// MIC verifies under the TPK-KCK, the TPK-TK keys the direct link between the peers,
    /// the initiator taking the authenticator's place so each direction has its own replay
    /// counters. A MIC that does not verify installs nothing and is counted.
    pub(in crate::decrypt) fn tdls(&mut self, payload: &[u8], stats: &mut Stats) {
        // 85: success, the peer in power save mode (9.4.1.9), which tshark accepts too.
        const SUCCESS_POWER_SAVE: u16 = 85;
        let Ok(frame) = TdlsFrame::new_checked(payload) else { return };
        let Ok(setup) = SetupRepr::parse(&frame) else { return };
        if setup.action == SetupAction::Request || ![STATUS_SUCCESS, SUCCESS_POWER_SAVE].contains(&setup.status) {
            return;
        }
        match self.tpk_handshake(&setup, stats) {
            Ok(()) => {}
            Err(Error::MicFailure) => stats.tdls_mic_failures += 1,
            Err(_) => stats.bad_handshake_messages += 1,
        }
    }

    pub(super) fn tpk_handshake(&mut self, setup: &SetupRepr<'_>, stats: &mut Stats) -> Result<()> {
        let message = TpkMessage::find(setup.elements)?;
        let tpk = message.tpk()?;
        message.verify(tpk.kck.as_bytes(), setup.action)?;
        let fingerprint = self.fingerprint(&tpk.tk);
        let rules = self.rules;
        let link = self.link_entry(link_id(message.link.initiator, message.link.responder));
        // The same setup frame is seen twice (to the AP and from it), a Confirm after its
        // Response: the key installed once keeps its replay counters. A replayed older setup
        // installs its TPK no second time.
        if link.holds(&tpk.tk).is_none() {
            if link.installed_before(fingerprint) {
                stats.replayed_handshakes += 1;
                return Ok(());
            }
            link.extended_key_id = None;
            link.keys[1] = None;
            link.install(0, PairwiseKey::new(message.pairwise, tpk.tk, rules)?, fingerprint);
            stats.tdls_keys += 1;
        }
        link.authenticator = Some(message.link.initiator);
        link.ended = false;
        Ok(())
    }
}
