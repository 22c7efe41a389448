use super::*;
use crate::wire::Frame;

/// A beacon captured from a WPA/WPA2 access point (SSID "ARV751993725C"), as the
/// MPDU of `expected_packet1` in libtins' tests/src/radiotap_test.cpp (radiotap
/// header and FCS removed; the FCS, kept below, checks the transcription).
const CAPTURED_BEACON: &str = concat!(
    "80000000ffffffffffff7c4fb593725c7c4fb593725c80684751383d91080000",
    "64001104000d41525637353139393337323543010882848b961224486c030101",
    "32040c18306007064e4c20010d14330820010203040506073308210506070809",
    "0a0bdd0e0050f204104a00011010440001020504000100002a01042d1a6c0017",
    "ffff0000000000000000000000000000000000000000003d1601030100000000",
    "0000000000000000000000000000007f0101dd180050f20101000050f2020100",
    "0050f20201000050f202000030140100000fac020100000fac040100000fac02",
    "0100dd180050f2020101000003a4000027a4000042435e0062322f000b050000",
    "277a12dd1e00904c336c0017ffff000000000000000000000000000000000000",
    "000000dd1a00904c3401030100000000000000000000000000000000000000",
);
const CAPTURED_BEACON_FCS: [u8; 4] = [145, 139, 60, 178];

fn mac(last: u8) -> MacAddr {
    MacAddr([0x02, 0, 0, 0, 0, last])
}

#[test]
fn captured_beacon_parses_and_emits_back_unchanged() {
    let mpdu = hex::decode(CAPTURED_BEACON).unwrap();
    assert_eq!(crc32fast::hash(&mpdu).to_le_bytes(), CAPTURED_BEACON_FCS);
    let frame = Frame::new_checked(&mpdu[..], Rules::default()).unwrap();
    assert_eq!(frame.frame_control().subtype(), subtype::BEACON);
    let body = ManagementBody::parse(subtype::BEACON, frame.body()).unwrap();
    let ManagementBody::Beacon(beacon) = body else { panic!("not a beacon: {body:?}") };
    assert_eq!(beacon.timestamp, 0x0891_3d38_5147);
    assert_eq!(beacon.beacon_interval, 100);
    assert_eq!(beacon.capability, 0x0411);
    assert_ne!(beacon.capability & capability::PRIVACY, 0);
    let elements = body.elements().unwrap();
    assert_eq!(elements.ssid(), Some(&b"ARV751993725C"[..]));
    assert_eq!(elements.supported_rates(), Some(&[0x82, 0x84, 0x8b, 0x96, 0x12, 0x24, 0x48, 0x6c][..]));
    let rsn = elements.rsn().unwrap();
    assert_eq!((rsn.len(), &rsn[..4]), (22, &[48, 20, 1, 0][..]));
    // The WPS vendor element (type 4) comes first; only type 1 is WPA.
    let wpa = elements.wpa().unwrap();
    assert_eq!((wpa.len(), &wpa[..6]), (26, &[221, 24, 0x00, 0x50, 0xf2, 1][..]));
    assert_eq!(elements.iter().count(), 19);
    assert!(elements.iter().all(|e| e.is_ok()));

    let again = body.to_mpdu(frame.addr1(), mac(1), mac(2), SequenceControl(0)).unwrap();
    assert_eq!(&again[24..], frame.body());
}

#[test]
fn every_body_round_trips() {
    let elements = ElementsBuilder::new()
        .ssid(b"net")
        .unwrap()
        .supported_rates(&SUPPORTED_RATES_BG)
        .unwrap()
        .ds_parameter_set(6)
        .unwrap()
        .encoded(&[48, 2, 1, 0])
        .unwrap()
        .build();
    let elements = Elements::new(&elements);
    let bodies = [
        ManagementBody::Beacon(BeaconRepr { timestamp: 1 << 40, beacon_interval: 100, capability: 0x11, elements }),
        ManagementBody::ProbeResponse(BeaconRepr { timestamp: 7, beacon_interval: 50, capability: 2, elements }),
        ManagementBody::ProbeRequest(ProbeRequestRepr { elements }),
        ManagementBody::Authentication(AuthenticationRepr::open_system(2, STATUS_SUCCESS)),
        ManagementBody::AssociationRequest(AssociationRequestRepr {
            capability: 0x11,
            listen_interval: 10,
            current_ap: None,
            elements,
        }),
        ManagementBody::ReassociationRequest(AssociationRequestRepr {
            capability: 0x11,
            listen_interval: 10,
            current_ap: Some(mac(9)),
            elements,
        }),
        ManagementBody::AssociationResponse(AssociationResponseRepr { capability: 1, status: 0, aid: 1, elements }),
        ManagementBody::ReassociationResponse(AssociationResponseRepr {
            capability: 1,
            status: 17,
            aid: 2007,
            elements: Elements::default(),
        }),
        ManagementBody::Deauthentication(DeauthenticationRepr { reason: REASON_LEAVING }),
        ManagementBody::Disassociation(DeauthenticationRepr { reason: 8 }),
        ManagementBody::Action(ActionRepr { category: 3, details: &[0, 1, 2] }),
    ];
    for body in bodies {
        let mpdu = body.to_mpdu(mac(1), mac(2), mac(3), SequenceControl::new(42, 0)).unwrap();
        let frame = Frame::new_checked(&mpdu[..], Rules::default()).unwrap();
        assert!(frame.frame_control().is_management());
        assert_eq!((frame.addr1(), frame.addr2(), frame.addr3()), (mac(1), Some(mac(2)), Some(mac(3))));
        assert_eq!(frame.body().len(), body.buffer_len());
        let parsed = ManagementBody::parse(frame.frame_control().subtype(), frame.body()).unwrap();
        assert_eq!(parsed, body);
        // Every shorter body fails with a typed error or parses, never panics.
        for cut in 0..frame.body().len() {
            if let Ok(short) = ManagementBody::parse(body.subtype(), &frame.body()[..cut]) {
                let _ = short.elements().map(|e| e.iter().count());
            }
        }
    }
}

#[test]
fn known_bodies_have_their_published_bytes() {
    let auth = AuthenticationRepr::open_system(1, STATUS_SUCCESS);
    let mut buf = [0u8; 6];
    assert_eq!(auth.emit(&mut buf), Ok(6));
    assert_eq!(buf, [0, 0, 1, 0, 0, 0]);
    let resp = AssociationResponseRepr { capability: 0x11, status: 0, aid: 1, elements: Elements::default() };
    assert_eq!(resp.emit(&mut buf), Ok(6));
    assert_eq!(buf, [0x11, 0, 0, 0, 0x01, 0xc0]);
    assert_eq!(DeauthenticationRepr::parse(&[15, 0]), Ok(DeauthenticationRepr { reason: 15 }));
}

#[test]
fn truncated_input_gives_typed_errors() {
    assert!(matches!(BeaconRepr::parse(&[0; 11]), Err(Error::Truncated { needed: 12, got: 11, .. })));
    assert!(matches!(AssociationRequestRepr::parse_reassociation(&[0; 9]), Err(Error::Truncated { .. })));
    assert!(matches!(ActionRepr::parse(&[]), Err(Error::Truncated { .. })));
    assert!(matches!(ManagementBody::parse(9, &[]), Err(Error::Unsupported(_))));
    let mut buf = [0u8; 5];
    assert!(matches!(AuthenticationRepr::open_system(1, 0).emit(&mut buf), Err(Error::BufferTooSmall { .. })));
    let too_big = AssociationResponseRepr { capability: 0, status: 0, aid: 0x4000, elements: Elements::default() };
    assert!(matches!(too_big.emit(&mut [0; 6]), Err(Error::Malformed(_))));

    // Two good elements, then one cut short: the walk yields both, then one error.
    let list = [0, 1, b'x', 1, 0, 48, 5, 1];
    let items: Vec<_> = Elements::new(&list).iter().collect();
    assert_eq!(items.len(), 3);
    assert!(matches!(items[2], Err(Error::Truncated { what: "element", needed: 7, got: 3 })));
    assert_eq!(Elements::new(&list).ssid(), Some(&b"x"[..]));
    assert_eq!(Elements::new(&list).rsn(), None);
    assert!(matches!(Elements::new(&[7]).iter().next(), Some(Err(Error::Truncated { .. }))));
    assert!(ElementsBuilder::new().element(0, &[0; 256]).is_err());
    assert!(ElementsBuilder::new().encoded(&[48, 3, 1, 0]).is_err());
}
