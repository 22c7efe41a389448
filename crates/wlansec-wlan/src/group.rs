//! Group keys as hostapd keeps them. The sending side ([`GroupKeys`]) sends group frames
//! under one key and, while a new GTK is being handed out, keeps sending under the old one
//! until every station has confirmed the new one (hostapd's SETKEYS/SETKEYSDONE); a GTK's
//! Key RSC is the last PN its transmitter sent. The receiving side ([`GroupRx`]) holds a key
//! per Key ID, so both GTKs are accepted during the switch, each installed with the Key RSC
//! it came with: group frames sent before a station joined are replays to it.

use wlansec_core::gen::{ChaCha8Rng, Rng};
use wlansec_core::rsn::Secret;
use wlansec_core::rx::RxKey;
use wlansec_core::suite::Transmitter;
use wlansec_core::wire::{Frame, Rules};

use crate::node::{AnyTransmitter, Credential};
use crate::security::SecurityMode;
use crate::verilog::CcmpOn;
use crate::Result;

/// A fresh random GTK of `mode` and its transmitter under `key_id`, running `on` the host or
/// a card.
pub(crate) fn fresh_gtk(
    mode: SecurityMode,
    key_id: u8,
    rng: &mut ChaCha8Rng,
    on: &CcmpOn,
) -> Result<(Secret, AnyTransmitter)> {
    let mut g = [0u8; 32];
    rng.fill_bytes(&mut g);
    let gtk = Secret::from_slice(&g[..mode.gtk_len()])?;
    g.fill(0);
    let tx = on.group_tx(mode, gtk.as_bytes(), key_id)?;
    Ok((gtk, tx))
}

/// The group key a sender of a network with `credential` sends broadcasts under, and its
/// transmitter: a fresh random GTK for an RSN network (the authenticator's), the shared key
/// for WEP, none when open.
pub(crate) fn first_key(
    credential: &Credential,
    mode: SecurityMode,
    rng: &mut ChaCha8Rng,
    on: &CcmpOn,
) -> Result<(Option<Secret>, Option<AnyTransmitter>)> {
    Ok(match credential {
        Credential::None => (None, None),
        Credential::Wep(key) => (None, Some(Transmitter::new(SecurityMode::Wep.suite(key)?, 0))),
        Credential::Psk(_) | Credential::Sae(_) | Credential::Owe => {
            let (gtk, tx) = fresh_gtk(mode, 1, rng, on)?;
            (Some(gtk), Some(tx))
        }
    })
}

/// One GTK: its Key ID, the key, and which rotation made it (0: the first).
pub(crate) struct Gtk {
    pub key_id: u8,
    pub key: Secret,
    pub generation: u64,
}

/// The group keys of a sender (an access point or IBSS station): the transmitter group
/// frames go out under now, the GTK it belongs to (none for WEP's static key), and during a
/// rotation the next GTK with its own, still unused, transmitter.
pub(crate) struct GroupKeys {
    tx: AnyTransmitter,
    gtk: Option<Gtk>,
    next: Option<(Gtk, AnyTransmitter)>,
    /// Where the rotations' GTKs run.
    on: CcmpOn,
}

impl GroupKeys {
    /// The group keys a network's credential calls for (none when open), running `on` the
    /// host or a card.
    pub(crate) fn of(
        credential: &Credential,
        mode: SecurityMode,
        rng: &mut ChaCha8Rng,
        on: CcmpOn,
    ) -> Result<Option<Self>> {
        let (gtk, tx) = first_key(credential, mode, rng, &on)?;
        let gtk = gtk.map(|key| Gtk { key_id: 1, key, generation: 0 });
        Ok(tx.map(|tx| GroupKeys { tx, gtk, next: None, on }))
    }

    /// The transmitter group frames go out under now.
    pub(crate) fn tx(&mut self) -> &mut AnyTransmitter {
        &mut self.tx
    }

    /// The GTK handed to stations now (the next one during a rotation) and its Key RSC.
    pub(crate) fn distributed(&self) -> Option<(&Gtk, u64)> {
        match &self.next {
            Some((gtk, tx)) => Some((gtk, tx.last_pn())),
            None => self.gtk.as_ref().map(|gtk| (gtk, self.tx.last_pn())),
        }
    }

    /// Start a rotation: a fresh GTK under the other Key ID (1 and 2 alternate), handed out
    /// from now on but not yet sent under. A rotation during a rotation replaces the next
    /// GTK. Returns false for a static key, which does not rotate.
    pub(crate) fn begin_rotation(&mut self, mode: SecurityMode, rng: &mut ChaCha8Rng) -> Result<bool> {
        let Some((current, _)) = self.distributed() else { return Ok(false) };
        let generation = current.generation + 1;
        let key_id = match (&self.next, &self.gtk) {
            (Some((next, _)), _) => next.key_id,
            (None, Some(gtk)) if gtk.key_id == 1 => 2,
            _ => 1,
        };
        let (key, tx) = fresh_gtk(mode, key_id, rng, &self.on)?;
        self.next = Some((Gtk { key_id, key, generation }, tx));
        Ok(true)
    }

    /// The generation of the GTK being handed out, while a rotation waits for confirmations.
    pub(crate) fn pending(&self) -> Option<u64> {
        self.next.as_ref().map(|(gtk, _)| gtk.generation)
    }

    /// End a rotation: group frames go out under the next GTK from now on.
    pub(crate) fn switch(&mut self) {
        if let Some((gtk, tx)) = self.next.take() {
            self.gtk = Some(gtk);
            self.tx = tx;
        }
    }
}

/// The group keys a receiver holds, one per Key ID (0..=3).
#[derive(Default)]
pub(crate) struct GroupRx {
    keys: [Option<RxKey>; 4],
}

impl GroupRx {
    /// Install `key` under `key_id` (0..=3), replacing the key that had that Key ID.
    pub(crate) fn install(&mut self, key_id: u8, key: RxKey) {
        if let Some(slot) = self.keys.get_mut(usize::from(key_id)) {
            *slot = Some(key);
        }
    }

    pub(crate) fn clear(&mut self) {
        self.keys = Default::default();
    }

    /// The key a protected group MPDU names with its Key ID (the top bits of the fourth
    /// octet of every suite's security header), if installed.
    pub(crate) fn for_frame(&mut self, mpdu: &[u8]) -> Option<&mut RxKey> {
        let frame = Frame::new_checked(mpdu, Rules::default()).ok()?;
        let key_id = frame.body().get(3)? >> 6;
        self.keys[usize::from(key_id)].as_mut()
    }
}
