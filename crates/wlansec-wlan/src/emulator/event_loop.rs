//! The emulator's I/O: one epoll loop over the nodes' TAPs, a timerfd armed for the next
//! deadline, a signalfd (SIGINT, SIGTERM, SIGHUP) and the control socket; the capture and
//! the release log it writes; the monotonic clock. What each event does is
//! [`State`]'s.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::time::Instant;

use wlansec_core::capture::pcap;
use wlansec_core::capture::radiotap::minimal_header;
use wlansec_core::capture::LinkType;

use super::config::Config;
use super::control::control_socket;
use super::state::{Io, State};
use crate::netns;
use crate::{Error, Result};

const TOKEN_TIMER: u64 = u64::MAX;
const TOKEN_SIGNAL: u64 = u64::MAX - 1;
const TOKEN_CONTROL: u64 = u64::MAX - 2;

/// The emulated WLAN as one process: its state, and the descriptors its events come from.
pub struct Emulator {
    state: State,
    host: Host,
    epoll: OwnedFd,
    timer: OwnedFd,
    signals: OwnedFd,
    control: UnixListener,
    started: Instant,
    stop: bool,
}

/// The world outside the state: the clock, the nodes' TAPs, the capture and the release log.
struct Host {
    taps: Vec<OwnedFd>,
    pcap: Option<pcap::Writer<io::BufWriter<File>>>,
    release_log: Option<io::BufWriter<File>>,
    /// The clock at start: the release log's times count from it.
    origin_ns: u64,
}

impl Io for Host {
    fn now_ns(&mut self) -> u64 {
        now_ns()
    }

    /// Busy-wait: the deadline is within the spin window, closer than a timer wakes.
    fn wait_until(&mut self, deadline_ns: u64) -> u64 {
        loop {
            let now = now_ns();
            if now >= deadline_ns {
                return now;
            }
            std::hint::spin_loop();
        }
    }

    fn to_host(&mut self, node: usize, frame: &[u8]) {
        // SAFETY: `frame` is a live slice of `frame.len()` bytes and the descriptor is our own
        // open TAP (an `OwnedFd`); a failed write only loses the frame, as on a real link.
        unsafe { libc::write(self.taps[node].as_raw_fd(), frame.as_ptr().cast(), frame.len()) };
    }

    fn capture(&mut self, start_ns: u64, mpdu: &[u8]) {
        if let Some(w) = self.pcap.as_mut() {
            let mut rec = minimal_header(false).to_vec();
            rec.extend_from_slice(mpdu);
            let _ = w.write(start_ns, &rec);
        }
    }

    fn log_release(&mut self, intended_ns: u64, actual_ns: u64, node: usize, bytes: usize) {
        if let Some(w) = self.release_log.as_mut() {
            let error = actual_ns as i64 - intended_ns as i64;
            let (intended, actual) = (intended_ns - self.origin_ns, actual_ns - self.origin_ns);
            let _ = writeln!(w, "{intended},{actual},{error},{node},{bytes}");
        }
    }
}

fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec that outlives the call, and CLOCK_MONOTONIC
    // is always supported: clock_gettime only writes it.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn os(ret: libc::c_int, what: &'static str) -> Result<libc::c_int> {
    if ret < 0 {
        return Err(Error::last_os(what));
    }
    Ok(ret)
}

impl Emulator {
    /// Open the TAPs in the (already created) namespaces, configure them and get ready.
    pub fn new(config: Config) -> Result<Self> {
        let mut taps = Vec::new();
        let state = State::new(config, |addrs| {
            taps.push(netns::open_tap(&addrs.namespace)?);
            netns::configure(Some(&addrs.namespace), netns::INTERFACE, addrs)
        })?;
        let config = state.config();
        let pcap = match &config.pcap {
            Some(path) => Some(
                pcap::Writer::new(
                    io::BufWriter::new(File::create(path).map_err(Error::io(format!("create {}", path.display())))?),
                    LinkType::Radiotap,
                )
                .map_err(Error::io(format!("write {}", path.display())))?,
            ),
            None => None,
        };
        let release_log = match &config.release_log {
            Some(path) => {
                let mut w =
                    io::BufWriter::new(File::create(path).map_err(Error::io(format!("create {}", path.display())))?);
                writeln!(w, "intended_ns,actual_ns,error_ns,node,bytes")
                    .map_err(Error::io(format!("write {}", path.display())))?;
                Some(w)
            }
            None => None,
        };
        let dir = config.state_dir();
        std::fs::create_dir_all(&dir).map_err(Error::io(format!("create {}", dir.display())))?;
        let sock = control_socket(&config.name);
        let _ = std::fs::remove_file(&sock);
        let control = UnixListener::bind(&sock).map_err(Error::io(format!("bind {}", sock.display())))?;
        control.set_nonblocking(true).map_err(Error::io("control socket: set non-blocking"))?;
        let (epoll, timer, signals) = Self::fds()?;
        let emulator = Emulator {
            state,
            host: Host { taps, pcap, release_log, origin_ns: now_ns() },
            epoll,
            timer,
            signals,
            control,
            started: Instant::now(),
            stop: false,
        };
        emulator.register()?;
        Ok(emulator)
    }

    fn fds() -> Result<(OwnedFd, OwnedFd, OwnedFd)> {
        // SAFETY: each call gets valid constant flags; `os` turns a negative return into an
        // error before `from_raw_fd`, so every `OwnedFd` takes a fresh descriptor that nothing
        // else owns. `set` is a zeroed (valid, then emptied) sigset_t on our stack, and
        // sigprocmask only blocks the three signals the signalfd then reads.
        unsafe {
            let epoll = OwnedFd::from_raw_fd(os(libc::epoll_create1(libc::EPOLL_CLOEXEC), "epoll_create1")?);
            let timer = OwnedFd::from_raw_fd(os(
                libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC),
                "timerfd_create",
            )?);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGINT);
            libc::sigaddset(&mut set, libc::SIGTERM);
            libc::sigaddset(&mut set, libc::SIGHUP);
            libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            let signals =
                OwnedFd::from_raw_fd(os(libc::signalfd(-1, &set, libc::SFD_NONBLOCK | libc::SFD_CLOEXEC), "signalfd")?);
            Ok((epoll, timer, signals))
        }
    }

    fn watch(&self, fd: RawFd, token: u64) -> Result<()> {
        let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: token };
        // SAFETY: our own epoll descriptor, a descriptor that stays open as long as the
        // emulator (it owns both), and a valid event the kernel copies.
        os(unsafe { libc::epoll_ctl(self.epoll.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) }, "epoll_ctl")?;
        Ok(())
    }

    fn register(&self) -> Result<()> {
        for (i, tap) in self.host.taps.iter().enumerate() {
            self.watch(tap.as_raw_fd(), i as u64)?;
        }
        self.watch(self.timer.as_raw_fd(), TOKEN_TIMER)?;
        self.watch(self.signals.as_raw_fd(), TOKEN_SIGNAL)?;
        self.watch(self.control.as_raw_fd(), TOKEN_CONTROL)
    }

    /// Real-time priority and 1 ns timer slack where the system permits; says what it got.
    pub fn tune_scheduling() -> String {
        // SAFETY: PR_SET_TIMERSLACK takes one integer argument (the rest are ignored zeros)
        // and changes only this thread's timer slack.
        let slack = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) } == 0;
        let param = libc::sched_param { sched_priority: 10 };
        // SAFETY: `param` is a valid sched_param that outlives the call; pid 0 is this process,
        // and a refusal (no privilege) is reported, not relied on.
        let rt = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } == 0;
        format!(
            "timer slack 1 ns: {}, SCHED_FIFO 10: {}",
            if slack { "yes" } else { "no" },
            if rt { "yes" } else { "no (not permitted)" }
        )
    }

    /// Start the stations and run until `down`, SIGINT/SIGTERM/SIGHUP.
    pub fn run(&mut self) -> Result<()> {
        self.state.start(&mut self.host);
        let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; 64];
        while !self.stop {
            self.state.service(now_ns(), &mut self.host);
            self.arm_timer()?;
            // SAFETY: `events` is a live buffer of `events.len()` (64) epoll_event entries, the
            // most the kernel writes; the epoll descriptor is our own.
            let n = unsafe { libc::epoll_wait(self.epoll.as_raw_fd(), events.as_mut_ptr(), events.len() as i32, 1000) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(Error::Io { what: "epoll_wait".into(), source: e });
            }
            for ev in &events[..n as usize] {
                match ev.u64 {
                    TOKEN_TIMER => {
                        let mut buf = [0u8; 8];
                        // SAFETY: `buf` has the 8 bytes a timerfd read writes (its expiry
                        // count), and the timerfd is our own.
                        unsafe { libc::read(self.timer.as_raw_fd(), buf.as_mut_ptr().cast(), 8) };
                    }
                    TOKEN_SIGNAL => self.stop = true,
                    TOKEN_CONTROL => self.accept_control(),
                    i => self.read_tap(i as usize),
                }
            }
        }
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        if let Some(w) = self.host.pcap.take() {
            w.into_inner().flush().map_err(Error::io("flush the capture"))?;
        }
        if let Some(mut w) = self.host.release_log.take() {
            w.flush().map_err(Error::io("flush the release log"))?;
        }
        Ok(())
    }

    /// Every frame waiting on node `i`'s TAP, handed to the node.
    fn read_tap(&mut self, i: usize) {
        let mut buf = vec![0u8; 65536];
        loop {
            // SAFETY: `buf` is a live, writable buffer of `buf.len()` bytes, and the TAP
            // descriptor is our own (non-blocking: an empty queue returns -1).
            let n = unsafe { libc::read(self.host.taps[i].as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            self.state.on_host(i, &buf[..n as usize], &mut self.host);
        }
    }

    /// Wake at the state's next deadline (an absolute CLOCK_MONOTONIC time).
    fn arm_timer(&mut self) -> Result<()> {
        let next = self.state.next_deadline();
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec {
                tv_sec: (next / 1_000_000_000) as libc::time_t,
                tv_nsec: (next % 1_000_000_000) as libc::c_long,
            },
        };
        os(
            // SAFETY: our own timerfd, a valid itimerspec that outlives the call (a nanosecond
            // field below 10⁹), and no old value asked for (null).
            unsafe {
                libc::timerfd_settime(self.timer.as_raw_fd(), libc::TFD_TIMER_ABSTIME, &spec, std::ptr::null_mut())
            },
            "timerfd_settime",
        )?;
        Ok(())
    }

    fn accept_control(&mut self) {
        while let Ok((stream, _)) = self.control.accept() {
            let _ = stream.set_nonblocking(false);
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(2)));
            let _ = self.answer(stream);
        }
    }

    /// Read one command line from `stream` and write the state's one-line answer.
    fn answer(&mut self, stream: UnixStream) -> io::Result<()> {
        let mut line = String::new();
        BufReader::new(&stream).read_line(&mut line)?;
        let uptime_s = self.started.elapsed().as_secs_f64();
        let answer = self.state.answer(line.trim(), uptime_s, &mut self.host).map_err(io::Error::other)?;
        self.stop |= answer.stop;
        let mut stream = stream;
        stream.write_all(answer.reply.as_bytes())?;
        stream.write_all(b"\n")
    }
}
