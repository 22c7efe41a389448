//! 802.11w in captures: the IGTKs that message 3 and group message 1 carry, kept per
//! transmitter, and BIP verified on the group-addressed robust management frames
//! (Deauthentication, Disassociation, robust Action) that carry a Management MIC element.

use foldhash::HashMap;

use crate::error::{Error, HandshakeError, Result};
use crate::rsn::element::{kde_type, key_data_items, IgtkKde, KeyDataItem, IEEE_OUI};
use crate::rsn::{CipherSuite, RsnElementRepr};
use crate::suite::bip::{BipAlgorithm, BipReceiver, Igtk, IGTK_KEY_IDS};
use crate::suite::Pn;
use crate::wire::mgmt::{is_robust, MmeRepr};
use crate::wire::{Frame, MacAddr, Rules};

use super::Stats;

/// The IGTKs of every transmitter whose handshake carried one, with their replay counters.
#[derive(Default)]
pub(super) struct Integrity {
    receivers: HashMap<MacAddr, BipReceiver>,
}

impl Integrity {
    /// Install the IGTK KDE in decrypted Key Data, if any, as `transmitter`'s. Its BIP
    /// variant is the group management cipher of the RSN element beside it (message 3), else
    /// `announced` (the beacon's), else that of the transmitter's IGTK before (a group
    /// message 1 carries no RSN element), else the default BIP-CMAC-128. The same key again
    /// keeps its replay counter; an all-zero key or a bad KDE refuses the message.
    pub(super) fn learn(
        &mut self,
        transmitter: MacAddr,
        key_data: &[u8],
        announced: Option<CipherSuite>,
        stats: &mut Stats,
    ) -> Result<()> {
        let items = || key_data_items(key_data).filter_map(|i| i.ok());
        let kde = items().find_map(|i| match i {
            KeyDataItem::Kde { oui: IEEE_OUI, data_type: kde_type::IGTK, data } => Some(data),
            _ => None,
        });
        let Some(kde) = kde else { return Ok(()) };
        let in_key_data = items().find_map(|i| match i {
            KeyDataItem::Element { element, .. } => {
                RsnElementRepr::parse(element).ok().map(|(_, e)| e.group_mgmt_cipher_or_default())
            }
            KeyDataItem::Kde { .. } => None,
        });
        let receiver = self.receivers.entry(transmitter).or_default();
        let before = IGTK_KEY_IDS.iter().find_map(|&id| receiver.igtk(id)).map(|k| k.algorithm().cipher_suite());
        let cipher = in_key_data.or(announced).or(before).unwrap_or(CipherSuite::BipCmac128);
        let kde = IgtkKde::parse(kde)?;
        if kde.igtk.iter().all(|&b| b == 0) {
            return Err(HandshakeError::AllZeroKey.into());
        }
        let igtk = Igtk::new(BipAlgorithm::from_cipher_suite(cipher)?, kde.key_id, kde.igtk)?;
        if receiver.igtk(kde.key_id) != Some(&igtk) {
            stats.igtks += 1;
        }
        receiver.install(igtk, Pn::new(kde.ipn)?);
        Ok(())
    }

    /// Verify BIP on a management frame if it is group addressed, robust and ends in an
    /// MME; count the outcome. Other management frames are left alone.
    pub(super) fn check(&mut self, mpdu: &[u8], rules: Rules, stats: &mut Stats) {
        let Ok(frame) = Frame::new_checked(mpdu, rules) else { return };
        let fc = frame.frame_control();
        let body = frame.body();
        let carries_mme = [8, 16].iter().any(|&mic_len| MmeRepr::split_last(body, mic_len).is_ok());
        if !frame.addr1().is_group() || fc.protected() || !is_robust(fc.subtype(), body) || !carries_mme {
            return;
        }
        let Some(receiver) = frame.addr2().and_then(|ta| self.receivers.get_mut(&ta)) else {
            stats.bip_no_key += 1;
            return;
        };
        match receiver.verify(mpdu) {
            Ok(_) => stats.bip_verified += 1,
            Err(Error::Replay { .. }) => stats.bip_replays += 1,
            Err(Error::NoKey { .. }) => stats.bip_no_key += 1,
            Err(_) => stats.bip_failures += 1,
        }
    }
}
