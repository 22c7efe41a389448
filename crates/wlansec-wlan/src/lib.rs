//! wlansec-wlan: the emulated WLAN — 802.11 airtime model, the virtual-time medium, and the
//! access point and stations that carry real traffic between network namespaces.
