//! The first stage of the receive pipeline: what a received MPDU is.

use crate::error::{Error, Result};
use crate::wire::{Frame, HeaderRepr, MacAddr, Rules};

/// How a data frame is protected, read off its security header without a key.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Security {
    Plaintext,
    /// WEP: the IV's Ext IV bit is clear.
    Wep {
        key_id: u8,
    },
    /// TKIP, CCMP or GCMP: the Ext IV bit is set.
    ExtIv {
        key_id: u8,
    },
}

impl Security {
    pub fn key_id(self) -> Option<u8> {
        match self {
            Security::Plaintext => None,
            Security::Wep { key_id } | Security::ExtIv { key_id } => Some(key_id),
        }
    }
}

/// A data frame that carries an MSDU.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DataFrame {
    pub header: HeaderRepr,
    pub security: Security,
}

impl DataFrame {
    /// The transmitter.
    pub fn ta(&self) -> MacAddr {
        self.header.addr2
    }

    pub fn is_group(&self) -> bool {
        self.header.addr1.is_group()
    }

    /// Whether the frame belongs to the BSS `bssid`: its BSSID field (IEEE 802.11-2020
    /// Table 9-26), or for a 4-address (WDS) frame, which has none, its receiver or
    /// transmitter (the APs at the two ends of the link).
    pub fn in_bss(&self, bssid: MacAddr) -> bool {
        match self.header.bssid() {
            Some(own) => own == bssid,
            None => self.header.addr1 == bssid || self.header.addr2 == bssid,
        }
    }

    /// The BSS the frame belongs to, named as airdecap-ng does: A3 in an IBSS, the AP's
    /// address otherwise, the transmitter for a 4-address (WDS) frame.
    pub fn bss(&self) -> MacAddr {
        self.header.bssid().unwrap_or(self.header.addr2)
    }
}

/// What a received MPDU is, as far as the receive path cares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Class {
    Management {
        subtype: u8,
    },
    Data(DataFrame),
    /// Control frames and data subtypes without an MSDU (Null, QoS Null, CF-*).
    Other,
}

/// Classify one MPDU (no radiotap header, no FCS).
pub fn classify(mpdu: &[u8], rules: Rules) -> Result<Class> {
    let frame = Frame::new_checked(mpdu, rules)?;
    let fc = frame.frame_control();
    if fc.is_management() {
        return Ok(Class::Management { subtype: fc.subtype() });
    }
    // Data subtypes with bit 2 set carry no MSDU.
    if !fc.is_data() || fc.subtype() & 0x4 != 0 {
        return Ok(Class::Other);
    }
    let header = HeaderRepr::parse(&frame)?;
    let security = if fc.protected() {
        let body = frame.body();
        let octet = *body.get(3).ok_or(Error::Truncated { what: "security header", needed: 4, got: body.len() })?;
        let key_id = octet >> 6;
        if octet & 0x20 == 0 {
            Security::Wep { key_id }
        } else {
            Security::ExtIv { key_id }
        }
    } else {
        Security::Plaintext
    };
    Ok(Class::Data(DataFrame { header, security }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{FrameControl, FrameType, SequenceControl};

    fn data(protected: bool, body: &[u8]) -> Vec<u8> {
        let header = HeaderRepr {
            frame_control: FrameControl::new(FrameType::Data, 0).with_flag(FrameControl::PROTECTED, protected),
            duration: 0,
            addr1: MacAddr::BROADCAST,
            addr2: MacAddr([2, 0, 0, 0, 0, 1]),
            addr3: MacAddr([2, 0, 0, 0, 0, 9]),
            sequence_control: SequenceControl::new(1, 0),
            addr4: None,
            qos_control: None,
            ht_control: None,
        };
        let mut mpdu = vec![0u8; 24];
        header.emit(&mut mpdu, Rules::default()).unwrap();
        mpdu.extend_from_slice(body);
        mpdu
    }

    #[test]
    fn protection_and_key_id_come_from_the_security_header() {
        let rules = Rules::default();
        let Class::Data(d) = classify(&data(false, b"x"), rules).unwrap() else { panic!() };
        assert_eq!(d.security, Security::Plaintext);
        let Class::Data(d) = classify(&data(true, &[1, 0, 0, 0x20 | 0x40, 0, 0, 0, 0]), rules).unwrap() else {
            panic!()
        };
        assert_eq!(d.security, Security::ExtIv { key_id: 1 });
        assert!(d.is_group());
        let Class::Data(d) = classify(&data(true, &[1, 2, 3, 0xc0]), rules).unwrap() else { panic!() };
        assert_eq!(d.security, Security::Wep { key_id: 3 });
        assert!(matches!(classify(&data(true, &[1, 2]), rules), Err(Error::Truncated { .. })));
    }
}
