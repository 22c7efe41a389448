//! The emulated WLAN as one process: the access point and stations (`bss`), each on a TAP
//! interface inside its namespace, joined by the virtual-time [`Medium`](crate::medium::Medium).
//! One epoll loop reads the TAPs, runs the crypto models, starts transmissions when the
//! medium says so and releases each frame to its receiver at its virtual-time deadline,
//! logging intended vs actual release. A Unix socket answers `status`, `down` and
//! `inject replay|tamper`.
//!
//! * `config`: what `wlan up` decided, read back from the state directory.
//! * `event_loop`: the I/O (epoll, TAPs, timerfd, signalfd, control socket, clock,
//!   capture and release log) and real-time scheduling.
//! * `state`: what each event does, without I/O (testable in virtual time).
//! * `machine`: one node's machine, whatever its kind.
//! * `status`: what `wlan status` reports.
//! * `control`: the control socket's path and client.

mod config;
mod control;
mod event_loop;
mod machine;
mod state;
mod status;

pub use config::{state_dir, Config};
pub use control::{control, control_socket};
pub use event_loop::Emulator;
pub use machine::Machine;
pub use status::{NodeStatus, ReleaseError, Status};
