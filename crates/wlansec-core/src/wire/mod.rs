//! Zero-copy views and validated representations of the formats that go on the air,
//! after smoltcp's `wire` layer: a `Frame` view checks its length once at construction so
//! its accessors never panic, and a `Repr` is the parsed, validated form that can be
//! emitted back.

pub mod ieee80211;
pub mod llc;
pub mod mgmt;
pub mod tdls;

pub use ieee80211::{Frame, FrameControl, FrameType, HeaderRepr, MacAddr, QosControl, Rules, SequenceControl};
pub use llc::EthernetRepr;
