use super::*;

fn qos_data_4addr_htc() -> HeaderRepr {
    HeaderRepr {
        frame_control: FrameControl::new(FrameType::Data, 8)
            .with_flag(FrameControl::TO_DS, true)
            .with_flag(FrameControl::FROM_DS, true)
            .with_flag(FrameControl::ORDER, true),
        duration: 0x1234,
        addr1: MacAddr([1; 6]),
        addr2: MacAddr([2; 6]),
        addr3: MacAddr([3; 6]),
        sequence_control: SequenceControl::new(0x123, 4),
        addr4: Some(MacAddr([4; 6])),
        qos_control: Some(QosControl(0x0085)),
        ht_control: Some(0xdead_beef),
    }
}

#[test]
fn emit_parse_round_trip_every_optional_field() {
    let repr = qos_data_4addr_htc();
    let mut buf = [0u8; 64];
    let len = repr.emit(&mut buf, Rules::default()).unwrap();
    assert_eq!(len, 36);
    let frame = Frame::new_checked(&buf[..len], Rules::default()).unwrap();
    assert_eq!(frame.header_len(), 36);
    assert_eq!(HeaderRepr::parse(&frame).unwrap(), repr);
    assert_eq!(frame.qos_control().unwrap().tid(), 5);
    assert!(frame.qos_control().unwrap().amsdu_present());
    assert_eq!(frame.sequence_control().unwrap().fragment_number(), 4);
    assert_eq!(frame.sequence_control().unwrap().sequence_number(), 0x123);
}

#[test]
fn order_bit_means_htc_only_after_80211n() {
    let repr = qos_data_4addr_htc();
    let mut buf = [0u8; 64];
    repr.emit(&mut buf, Rules::default()).unwrap();
    let old = Frame::new_checked(&buf[..36], Rules::IEEE80211I_2004).unwrap();
    assert_eq!(old.header_len(), 32);
    assert_eq!(old.ht_control(), None);
    assert!(repr.emit(&mut buf, Rules::IEEE80211I_2004).is_err());
}

#[test]
fn truncated_headers_are_refused_at_every_length() {
    let repr = qos_data_4addr_htc();
    let mut buf = [0u8; 36];
    repr.emit(&mut buf, Rules::default()).unwrap();
    for len in 0..36 {
        assert!(matches!(Frame::new_checked(&buf[..len], Rules::default()), Err(Error::Truncated { .. })));
    }
}

#[test]
fn inconsistent_repr_is_refused() {
    let mut repr = qos_data_4addr_htc();
    repr.addr4 = None;
    assert!(repr.emit(&mut [0u8; 64], Rules::default()).is_err());
    let mut repr = qos_data_4addr_htc();
    repr.qos_control = None;
    assert!(repr.emit(&mut [0u8; 64], Rules::default()).is_err());
    assert!(matches!(qos_data_4addr_htc().emit(&mut [0u8; 10], Rules::default()), Err(Error::BufferTooSmall { .. })));
}

#[test]
fn control_frames_have_short_headers() {
    let ack = FrameControl::new(FrameType::Control, ACK_SUBTYPE).0.to_le_bytes();
    let mut buf = [0u8; 10];
    buf[..2].copy_from_slice(&ack);
    let frame = Frame::new_checked(&buf[..], Rules::default()).unwrap();
    assert_eq!(frame.header_len(), 10);
    assert_eq!(frame.addr2(), None);
    assert!(HeaderRepr::parse(&frame).is_err());
}

#[test]
fn addresses_follow_the_ds_bits() {
    let mut repr = qos_data_4addr_htc();
    assert_eq!((repr.da(), repr.sa(), repr.bssid()), (MacAddr([3; 6]), MacAddr([4; 6]), None));
    repr.frame_control = repr.frame_control.with_flag(FrameControl::FROM_DS, false);
    assert_eq!((repr.da(), repr.sa(), repr.bssid()), (MacAddr([3; 6]), MacAddr([2; 6]), Some(MacAddr([1; 6]))));
    repr.frame_control = FrameControl::new(FrameType::Data, 0).with_flag(FrameControl::FROM_DS, true);
    assert_eq!((repr.da(), repr.sa(), repr.bssid()), (MacAddr([1; 6]), MacAddr([3; 6]), Some(MacAddr([2; 6]))));
}

#[test]
fn mac_addresses_parse_and_print() {
    let mac: MacAddr = "00:1b:2C:3d:4e:5f".parse().unwrap();
    assert_eq!(mac.to_string(), "00:1b:2c:3d:4e:5f");
    assert!("00:1b:2c:3d:4e".parse::<MacAddr>().is_err());
    assert!("00:1b:2c:3d:4e:5f:00".parse::<MacAddr>().is_err());
    assert!("0g:1b:2c:3d:4e:5f".parse::<MacAddr>().is_err());
}
