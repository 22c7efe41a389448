//! BIP in capture decryption (802.11w): the decryptor keeps the IGTK that message 3 and
//! group message 1 carry and verifies the group-addressed robust management frames, counting
//! the verified, forged, replayed and keyless ones.

use wlansec_core::decrypt::{Decryptor, Keys, OutputForm, Stats};
use wlansec_core::gen::{ChaCha8Rng, SeedableRng};
use wlansec_core::rsn::eapol::ETHERTYPE_EAPOL;
use wlansec_core::rsn::element::{ElementKind, RsnElementRepr};
use wlansec_core::rsn::{
    pmk_from_passphrase, Akm, Authenticator, CipherSuite, Event, MfpPolicy, Params, Secret, Supplicant,
};
use wlansec_core::suite::bip::{BipAlgorithm, Igtk};
use wlansec_core::suite::Pn;
use wlansec_core::wire::mgmt::{ActionRepr, DeauthenticationRepr, ManagementBody};
use wlansec_core::wire::{llc, FrameControl, FrameType, HeaderRepr, MacAddr, Rules, SequenceControl};

const AP: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 1]);
const STA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 2]);
const PASSPHRASE: &str = "correct horse battery";
const SSID: &[u8] = b"wlansec-pmf";

fn eapol_mpdu(from_ap: bool, eapol: &[u8]) -> Vec<u8> {
    let (flag, a1, a2) = if from_ap { (FrameControl::FROM_DS, STA, AP) } else { (FrameControl::TO_DS, AP, STA) };
    let header = HeaderRepr {
        frame_control: FrameControl::new(FrameType::Data, 0).with_flag(flag, true),
        duration: 0,
        addr1: a1,
        addr2: a2,
        addr3: AP,
        sequence_control: SequenceControl::new(1, 0),
        addr4: None,
        qos_control: None,
        ht_control: None,
    };
    let mut mpdu = vec![0u8; header.header_len() + llc::SNAP_HEADER_LEN];
    let h = header.emit(&mut mpdu, Rules::default()).unwrap();
    llc::emit_snap(ETHERTYPE_EAPOL, &mut mpdu[h..]).unwrap();
    mpdu.extend_from_slice(eapol);
    mpdu
}

fn sends(events: &[Event]) -> Vec<Vec<u8>> {
    events.iter().filter_map(|e| if let Event::Send(b) = e { Some(b.clone()) } else { None }).collect()
}

/// A BIP-protected broadcast management frame from the AP.
fn protected(body: ManagementBody<'_>, igtk: &Igtk, ipn: u64) -> Vec<u8> {
    let mut mpdu = body.to_mpdu(MacAddr::BROADCAST, AP, AP, SequenceControl::new(ipn as u16, 0)).unwrap();
    let len = mpdu.len();
    mpdu.resize(len + igtk.overhead(), 0);
    igtk.protect(&mut mpdu, len, Pn::new(ipn).unwrap()).unwrap();
    mpdu
}

fn deauth(igtk: &Igtk, ipn: u64) -> Vec<u8> {
    protected(ManagementBody::Deauthentication(DeauthenticationRepr { reason: 7 }), igtk, ipn)
}

/// The capture: a deauth before any key, the 4-way handshake (IGTK Key ID 4), valid,
/// forged and replayed deauths, a group rekey to IGTK Key ID 5, frames under both keys.
fn capture(algorithm: BipAlgorithm) -> Vec<Vec<u8>> {
    let rsne = RsnElementRepr::personal(CipherSuite::Ccmp128, CipherSuite::Ccmp128, Akm::PskSha256)
        .with_mfp(MfpPolicy::Required, algorithm.cipher_suite())
        .to_bytes(ElementKind::Rsn)
        .unwrap();
    let params = Params {
        akm: Akm::PskSha256,
        pairwise: CipherSuite::Ccmp128,
        group: CipherSuite::Ccmp128,
        aa: AP,
        spa: STA,
        ap_rsne: rsne.clone(),
        sta_rsne: rsne,
    };
    let key = |byte: u8| vec![byte; algorithm.key_len()];
    let pmk = pmk_from_passphrase(PASSPHRASE, SSID).unwrap();
    let gtk = Secret::from_slice(&[0x5a; 16]).unwrap();
    let mut a = Authenticator::new(params.clone(), pmk.clone(), 1, gtk)
        .unwrap()
        .with_igtk(4, Secret::from_slice(&key(0x11)).unwrap(), 100)
        .unwrap();
    let mut s = Supplicant::new(params, pmk).unwrap();
    let igtk4 = Igtk::new(algorithm, 4, &key(0x11)).unwrap();
    let igtk5 = Igtk::new(algorithm, 5, &key(0x22)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut air = vec![deauth(&igtk4, 50)]; // no IGTK yet: no key
    let m1 = sends(&a.start(&mut rng).unwrap()).remove(0);
    let m2 = sends(&s.receive(&m1, &mut rng).unwrap()).remove(0);
    let m3 = sends(&a.receive(&m2).unwrap()).remove(0);
    let m4 = sends(&s.receive(&m3, &mut rng).unwrap()).remove(0);
    a.receive(&m4).unwrap();
    air.extend([(true, &m1), (false, &m2), (true, &m3), (false, &m4)].map(|(ap, m)| eapol_mpdu(ap, m)));
    air.push(deauth(&igtk4, 100)); // replay: not above the IPN of the KDE
    air.push(deauth(&igtk4, 101)); // verified
    let mut forged = deauth(&igtk4, 102);
    forged[24] ^= 0x01; // the reason code
    air.push(forged); // failure
    air.push(deauth(&igtk4, 101)); // replay
    let sa_query = [0u8, 0xab, 0xcd];
    air.push(protected(ManagementBody::Action(ActionRepr { category: 8, details: &sa_query }), &igtk4, 103));
    air.push(deauth(&igtk5, 1)); // Key ID 5 not installed yet: no key
    a.set_igtk(5, Secret::from_slice(&key(0x22)).unwrap(), 0).unwrap();
    let g1 = sends(&a.rekey_group(2, Secret::from_slice(&[0x77; 16]).unwrap(), 0).unwrap()).remove(0);
    let g2 = sends(&s.receive(&g1, &mut rng).unwrap()).remove(0);
    air.extend([eapol_mpdu(true, &g1), eapol_mpdu(false, &g2)]);
    air.push(deauth(&igtk5, 1)); // verified
    air.push(deauth(&igtk4, 104)); // the old key still verifies its own frames
                                   // Neither group addressed nor robust nor carrying an MME: not counted.
    let unicast = ManagementBody::Deauthentication(DeauthenticationRepr { reason: 7 });
    air.push(unicast.to_mpdu(STA, AP, AP, SequenceControl::new(3, 0)).unwrap());
    air
}

#[test]
fn bip_frames_in_a_capture_are_verified_and_counted() {
    for algorithm in BipAlgorithm::ALL {
        let pmk = pmk_from_passphrase(PASSPHRASE, SSID).unwrap();
        let mut d = Decryptor::new(Keys::pmk(pmk), None, None, OutputForm::Ethernet).unwrap();
        for mpdu in capture(algorithm) {
            let _ = d.process(&mpdu, |_| -> Result<(), ()> { Ok(()) });
        }
        let s = d.stats();
        let want = Stats { igtks: 2, bip_verified: 4, bip_failures: 1, bip_replays: 2, bip_no_key: 2, ..s };
        assert_eq!(s, want, "{algorithm:?}");
        assert_eq!((s.handshakes, s.group_keys, s.bad_handshake_messages), (1, 2, 0), "{algorithm:?}");
    }
}
