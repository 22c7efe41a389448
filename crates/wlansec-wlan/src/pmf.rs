//! 802.11w Protected Management Frames (IEEE 802.11-2016 11.13, 12.6.3) for the access point
//! and its stations: what each side advertises (MFPC/MFPR), the negotiation at association,
//! robust management frames protected under the link's pairwise key when individually
//! addressed and with BIP under the IGTK when group addressed, the SA Query procedure
//! (11.13.2) that keeps a forged (re)association from tearing down a protected link, and
//! beacon protection (IEEE 802.11-2020 12.6.1.1): BIP on beacons under a BIGTK.

use std::fmt;
use std::str::FromStr;

use wlansec_core::gen::{ChaCha8Rng, Rng};
use wlansec_core::rsn::element::MfpPolicy;
use wlansec_core::rsn::{CipherSuite, RsnElementRepr, Secret};
use wlansec_core::suite::bip::{BipAlgorithm, BipReceiver, Igtk};
use wlansec_core::suite::{Pn, PnCounter};
use wlansec_core::wire::mgmt::{self, ActionRepr, ManagementBody};
use wlansec_core::wire::{Frame, MacAddr, Rules, SequenceControl};

use crate::security::LinkKeys;
use crate::{Error, Result};

/// The IGTK's Key ID: the first of the two (4 and 5) that 12.7.2 gives IGTKs.
pub const IGTK_KEY_ID: u16 = 4;
/// The BIGTK's Key ID: the first of the two (6 and 7) that beacon protection gives BIGTKs.
pub const BIGTK_KEY_ID: u16 = 6;
/// The Extended Capabilities element (9.4.2.26) with only bit 84, Beacon Protection
/// Enabled, set: ID 127, 11 octets, bit 4 of the eleventh.
pub const BEACON_PROTECTION_CAPABILITY: [u8; 13] = [127, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10];
/// Action category of SA Query (Table 9-76) and its two action codes (9.6.10).
const CATEGORY_SA_QUERY: u8 = 8;
const SA_QUERY_REQUEST: u8 = 0;
const SA_QUERY_RESPONSE: u8 = 1;
/// Association refused temporarily: an SA Query with the station's current association is
/// in progress (status 30).
pub const STATUS_REFUSED_TEMPORARILY: u16 = 30;
/// The two sides' management frame protection policies cannot meet (status 31).
pub const STATUS_ROBUST_MANAGEMENT_POLICY_VIOLATION: u16 = 31;
/// How long the access point waits for an SA Query Response before it takes the current
/// association to be gone (dot11AssociationSAQueryMaximumTimeout is 1000 TU in hostapd).
pub const SA_QUERY_TIMEOUT_MS: u64 = 1000;

/// `--pmf`: management frame protection off, offered, or required of every station.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Pmf {
    #[default]
    Off,
    Optional,
    Required,
}

impl Pmf {
    pub fn policy(self) -> MfpPolicy {
        match self {
            Pmf::Off => MfpPolicy::Disabled,
            Pmf::Optional => MfpPolicy::Optional,
            Pmf::Required => MfpPolicy::Required,
        }
    }
}

impl FromStr for Pmf {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "off" => Ok(Pmf::Off),
            "optional" => Ok(Pmf::Optional),
            "required" => Ok(Pmf::Required),
            other => Err(Error::UnknownPmf(other.into())),
        }
    }
}

impl fmt::Display for Pmf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Pmf::Off => "off",
            Pmf::Optional => "optional",
            Pmf::Required => "required",
        })
    }
}

/// Whether a link whose two RSN elements are these protects its management frames; an
/// error is the status-31 refusal.
pub fn negotiate(ap_rsne: &[u8], sta_rsne: &[u8]) -> Result<bool> {
    let (_, ap) = RsnElementRepr::parse(ap_rsne)?;
    let (_, sta) = RsnElementRepr::parse(sta_rsne)?;
    Ok(wlansec_core::rsn::element::negotiate_mfp(&ap, &sta)?)
}

/// A robust management frame for a peer of a protected link: protected under the link's
/// pairwise key (its Protected bit set; the suite builds the management nonce and AAD).
pub fn protect_unicast(keys: &mut LinkKeys, mut mpdu: Vec<u8>) -> Result<Vec<u8>> {
    let len = mpdu.len();
    mpdu.resize(len + keys.tx.suite().overhead(), 0);
    let len = keys.tx.protect(&mut mpdu, len)?;
    mpdu.truncate(len);
    Ok(mpdu)
}

/// The plaintext of a protected management frame from the peer of a link, checked under the
/// link's pairwise key and its management replay counter.
pub fn open_unicast(keys: &mut LinkKeys, mpdu: &[u8]) -> Result<Vec<u8>> {
    let mut buf = mpdu.to_vec();
    let done = keys.rx.open(&mut buf)?;
    buf.truncate(done.mpdu_len);
    Ok(buf)
}

/// The access point's integrity group key (the IGTK, or the BIGTK of its beacons) and its
/// IPN (BIPN) counter.
pub struct IntegrityGroup {
    igtk: Igtk,
    ipn: PnCounter,
}

impl IntegrityGroup {
    /// A fresh IGTK of the group management cipher `cipher` (a BIP variant).
    pub fn fresh(cipher: CipherSuite, rng: &mut ChaCha8Rng) -> Result<Self> {
        Self::fresh_under(cipher, IGTK_KEY_ID, rng)
    }

    /// A fresh BIGTK, for beacons, of the group management cipher `cipher`.
    pub fn fresh_for_beacons(cipher: CipherSuite, rng: &mut ChaCha8Rng) -> Result<Self> {
        Self::fresh_under(cipher, BIGTK_KEY_ID, rng)
    }

    fn fresh_under(cipher: CipherSuite, key_id: u16, rng: &mut ChaCha8Rng) -> Result<Self> {
        let algorithm = BipAlgorithm::from_cipher_suite(cipher)?;
        let mut key = [0u8; 32];
        let key = &mut key[..algorithm.key_len()];
        rng.fill_bytes(key);
        let igtk = Igtk::new(algorithm, key_id, key)?;
        key.fill(0);
        Ok(IntegrityGroup { igtk, ipn: PnCounter::default() })
    }

    pub fn key_id(&self) -> u16 {
        self.igtk.key_id()
    }

    pub fn key(&self) -> &Secret {
        self.igtk.key()
    }

    /// The IPN the IGTK KDE announces: the last one used (stations accept only above it).
    pub fn ipn(&self) -> u64 {
        self.ipn.last()
    }

    /// A group-addressed robust management frame (or a beacon) with its MME appended.
    pub fn protect(&mut self, mut mpdu: Vec<u8>) -> Result<Vec<u8>> {
        let len = mpdu.len();
        mpdu.resize(len + self.igtk.overhead(), 0);
        let len = self.igtk.protect(&mut mpdu, len, self.ipn.next_pn()?)?;
        mpdu.truncate(len);
        Ok(mpdu)
    }
}

/// A station's side of a protected link: the IGTK it installed, and the BIP check of
/// group-addressed robust frames; or, as the station's second receiver, the BIGTK and the
/// check of beacons.
#[derive(Default)]
pub struct IntegrityReceiver {
    bip: BipReceiver,
    installed: bool,
}

impl IntegrityReceiver {
    /// Whether a key is installed: from then on every frame it covers must verify.
    pub fn installed(&self) -> bool {
        self.installed
    }

    /// Install the IGTK (or BIGTK) `igtk` of the group management cipher `cipher`.
    pub fn install(&mut self, cipher: CipherSuite, key_id: u16, igtk: &Secret, ipn: u64) -> Result<()> {
        let algorithm = BipAlgorithm::from_cipher_suite(cipher)?;
        self.bip.install(Igtk::new(algorithm, key_id, igtk.as_bytes())?, Pn::new(ipn)?);
        self.installed = true;
        Ok(())
    }

    /// Whether a group-addressed robust management frame carries a valid, fresh MME.
    pub fn verify(&mut self, mpdu: &[u8]) -> Result<()> {
        self.bip.verify(mpdu)?;
        Ok(())
    }
}

/// An SA Query Request or Response (9.6.10) with its transaction identifier.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SaQuery {
    Request([u8; 2]),
    Response([u8; 2]),
}

impl SaQuery {
    /// The SA Query an Action body is, if it is one.
    pub fn parse(action: &ActionRepr<'_>) -> Option<SaQuery> {
        if action.category != CATEGORY_SA_QUERY {
            return None;
        }
        match action.details {
            [SA_QUERY_REQUEST, a, b] => Some(SaQuery::Request([*a, *b])),
            [SA_QUERY_RESPONSE, a, b] => Some(SaQuery::Response([*a, *b])),
            _ => None,
        }
    }

    /// The unprotected MPDU of this SA Query from `sa` to `da` in `bssid`.
    pub fn to_mpdu(self, da: MacAddr, sa: MacAddr, bssid: MacAddr, sc: SequenceControl) -> Result<Vec<u8>> {
        let details = match self {
            SaQuery::Request([a, b]) => [SA_QUERY_REQUEST, a, b],
            SaQuery::Response([a, b]) => [SA_QUERY_RESPONSE, a, b],
        };
        let action = ActionRepr { category: CATEGORY_SA_QUERY, details: &details };
        Ok(ManagementBody::Action(action).to_mpdu(da, sa, bssid, sc)?)
    }
}

/// A received management frame, after protection was dealt with: its plaintext MPDU (the
/// frame itself when it came unprotected) and whether it came protected.
pub struct Received {
    pub mpdu: Vec<u8>,
    pub protected: bool,
}

impl Received {
    /// A management frame from the peer of a link: opened under the link's keys when it
    /// is protected (refused when there are none), taken as it is when not.
    pub fn from_peer(keys: Option<&mut LinkKeys>, mpdu: &[u8]) -> Result<Self> {
        let frame = Frame::new_checked(mpdu, Rules::default())?;
        if !frame.frame_control().protected() {
            return Ok(Received { mpdu: mpdu.to_vec(), protected: false });
        }
        let keys = keys.ok_or(Error::Frame(wlansec_core::Error::NoKey { group: false }))?;
        Ok(Received { mpdu: open_unicast(keys, mpdu)?, protected: true })
    }

    /// The body and subtype of the plaintext frame.
    pub fn body(&self) -> Result<(u8, &[u8])> {
        let frame = Frame::new_checked(&self.mpdu[..], Rules::default())?;
        let subtype = frame.frame_control().subtype();
        let header_len = frame.header_len();
        Ok((subtype, &self.mpdu[header_len..]))
    }

    /// Whether this is a robust management frame that arrived unprotected on a link that
    /// protects them: a forgery to drop (11.13).
    pub fn unprotected_robust(&self, link_protects: bool) -> bool {
        link_protects && !self.protected && self.body().is_ok_and(|(subtype, body)| mgmt::is_robust(subtype, body))
    }
}
