//! EAPOL-Key requests from the supplicant (IEEE 802.11-2016 12.7.2): the Michael MIC
//! Failure Report, an EAPOL-Key frame with Request, Error, Key MIC and Secure set (Key Type
//! pairwise when the failure was under the pairwise key), signed with the KCK. Requests
//! carry the supplicant's own replay counter, which must increase from one to the next.

use super::{frame, Authenticator, Supplicant};
use crate::error::{Error, HandshakeError, Result};
use crate::rsn::eapol::{EapolKey, KeyInfo, Message};
use crate::rsn::Event;

impl Supplicant {
    /// A Michael MIC Failure Report for a failure under the pairwise key (`pairwise`) or the
    /// group key, signed with the KCK of the PTK in force.
    pub fn mic_failure_report(&mut self, pairwise: bool) -> Result<Vec<u8>> {
        let ptk = self.ptk.as_ref().ok_or(HandshakeError::NotEstablished)?;
        self.request_counter += 1;
        let key_type = if pairwise { KeyInfo::PAIRWISE } else { 0 };
        let flags = KeyInfo::REQUEST | KeyInfo::ERROR | KeyInfo::MIC | KeyInfo::SECURE | key_type;
        let integrity = self.integrity();
        frame(self.version, flags, 0, self.request_counter, [0; 32], 0, &[])
            .to_signed_bytes_with(integrity, ptk.kck.as_bytes())
    }
}

impl Authenticator {
    /// A request from the supplicant: verified under the PTK in force and the request
    /// replay counter; a MIC failure report becomes [`Event::MicFailureReported`].
    pub(super) fn request(&mut self, bytes: &[u8], view: &EapolKey<&[u8]>) -> Result<Vec<Event>> {
        let info = view.key_info();
        let ptk = self.ptk().ok_or(HandshakeError::Unexpected { expected: None, got: Message::Request })?;
        self.verify_mic(ptk, bytes)?;
        let counter = view.replay_counter();
        if let Some(last) = self.last_request.filter(|&last| counter <= last) {
            return Err(Error::Replay { pn: counter, last });
        }
        if !info.has(KeyInfo::ERROR) {
            return Err(Error::Unsupported("EAPOL-Key request other than a Michael MIC failure report"));
        }
        self.last_request = Some(counter);
        Ok(vec![Event::MicFailureReported { pairwise: info.has(KeyInfo::PAIRWISE) }])
    }
}

#[cfg(test)]
mod tests {
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::rsn::eapol;
    use crate::rsn::element::{ElementKind, RsnElementRepr};
    use crate::rsn::kdf::{Pmk, Secret};
    use crate::rsn::{Akm, CipherSuite, Params};
    use crate::wire::MacAddr;

    fn params() -> Params {
        let rsne = RsnElementRepr::personal(CipherSuite::Tkip, CipherSuite::Tkip, Akm::Psk)
            .to_bytes(ElementKind::Rsn)
            .unwrap();
        Params {
            akm: Akm::Psk,
            pairwise: CipherSuite::Tkip,
            group: CipherSuite::Tkip,
            aa: MacAddr([2, 0, 0, 0, 0, 1]),
            spa: MacAddr([2, 0, 0, 0, 0, 2]),
            ap_rsne: rsne.clone(),
            sta_rsne: rsne,
        }
    }

    /// An authenticator and a supplicant of a TKIP network after the 4-way handshake.
    fn established() -> (Authenticator, Supplicant) {
        let pmk = Pmk::from_bytes(&[7; 32]).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let gtk = Secret::from_slice(&[9; 32]).unwrap();
        let mut auth = Authenticator::new(params(), pmk.clone(), 1, gtk).unwrap();
        let mut supp = Supplicant::new(params(), pmk).unwrap();
        let mut to_supp = auth.start(&mut rng).unwrap();
        while let Some(Event::Send(frame)) = to_supp.pop() {
            let answers = supp.receive(&frame, &mut rng).unwrap();
            to_supp = answers
                .into_iter()
                .filter_map(|e| if let Event::Send(f) = e { Some(f) } else { None })
                .flat_map(|f| auth.receive(&f).unwrap())
                .filter(|e| matches!(e, Event::Send(_)))
                .collect();
        }
        assert!(auth.ptk().is_some() && supp.ptk().is_some());
        (auth, supp)
    }

    #[test]
    fn a_signed_report_is_accepted_once_and_names_its_key() {
        let (mut auth, mut supp) = established();
        let report = supp.mic_failure_report(false).unwrap();
        let view = EapolKey::new_checked(&report[..]).unwrap();
        assert_eq!(view.message(), Message::Request);
        assert_eq!(view.key_info().version().unwrap(), eapol::KeyDescriptorVersion::HmacMd5Rc4);
        assert_eq!(auth.receive(&report).unwrap(), vec![Event::MicFailureReported { pairwise: false }]);
        assert!(matches!(auth.receive(&report), Err(Error::Replay { .. })), "a replayed report");
        let pairwise = supp.mic_failure_report(true).unwrap();
        assert_eq!(auth.receive(&pairwise).unwrap(), vec![Event::MicFailureReported { pairwise: true }]);
    }

    #[test]
    fn a_forged_or_early_report_is_refused() {
        let (mut auth, mut supp) = established();
        let mut forged = supp.mic_failure_report(true).unwrap();
        forged[90] ^= 1;
        assert_eq!(auth.receive(&forged), Err(Error::MicFailure));
        let mut fresh = Supplicant::new(params(), Pmk::from_bytes(&[7; 32]).unwrap()).unwrap();
        assert!(matches!(fresh.mic_failure_report(true), Err(Error::Handshake(HandshakeError::NotEstablished))));
    }
}
