"""The network the experiments run on, behind one small interface.

* `WlanTestbed`: the emulated WLAN, `wlansec wlan up/down/status --json` (issue 7). Names and
  addresses are read from `status --json`, never guessed.
* `VethTestbed`: a stand-in of two network namespaces joined by a veth pair (no air, no
  security): it checks the laboratory's plumbing where the emulated WLAN is not available.

Both use only addresses inside namespaces they create and remove them in `down`.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: Where a run's claim on its testbed's name is held (see `Testbed.claim`).
LOCK_DIR = Path("/run/lock") if os.access("/run/lock", os.W_OK) else Path(tempfile.gettempdir())


class TestbedError(RuntimeError):
    pass


@dataclass
class Node:
    role: str
    namespace: str
    interface: str
    ipv4: str
    ipv6: str

    def addr(self, version: int) -> str:
        return (self.ipv4 if version == 4 else self.ipv6).split("/")[0]


def is_root() -> bool:
    return os.geteuid() == 0


def _run(argv: list[str], timeout: float = 60) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise TestbedError(f"{' '.join(argv)}: {(done.stderr or done.stdout).strip().splitlines()[-1:] or '?'}")
    return done.stdout


def claim_name(name: str):
    """Hold the testbed name `name` for the life of the process; the open lock file. Bringing a
    WLAN up first takes down any WLAN of that name, so two runs sharing a name would wreck each
    other's runs; the lock goes with the process, so a killed run leaves nothing to clean up."""
    lock = open(LOCK_DIR / f"wlansec-lab.{name}.lock", "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "?"
        lock.close()
        raise TestbedError(f"another wlansec-lab run (pid {holder}) is using the testbed named '{name}'; "
                           "wait for it, or give this run its own --name") from None
    lock.truncate(0)
    lock.write(str(os.getpid()))
    lock.flush()
    return lock


class Testbed:
    kind = "abstract"
    #: Whether `seed` shapes the network (the emulated medium's random losses and backoffs).
    seeded = False

    name = "abstract"

    def __init__(self, seed: int = 1) -> None:
        self.config: dict | None = None
        self.nodes: list[Node] = []
        self.seed = seed  # takes effect at the next bring-up
        self._claim = None

    def claim(self) -> None:
        """Hold this testbed's name for the life of the process (`claim_name`)."""
        self._claim = claim_name(self.name)

    # The pair every experiment uses: sender and receiver, both wireless hosts.
    @property
    def client(self) -> Node:
        return self.nodes[-2]

    @property
    def server(self) -> Node:
        return self.nodes[-1]

    def argv(self, node: Node, argv: list[str]) -> list[str]:
        return ["ip", "netns", "exec", node.namespace, *argv]

    def popen(self, node: Node, argv: list[str], **kw) -> subprocess.Popen:
        return subprocess.Popen(self.argv(node, argv), **kw)

    def run(self, node: Node, argv: list[str], timeout: float, **kw) -> subprocess.CompletedProcess:
        return subprocess.run(self.argv(node, argv), capture_output=True, text=True, timeout=timeout, **kw)

    def supports(self, config: dict) -> str | None:
        """None, or why this testbed cannot realise `config`."""
        return None

    def ensure(self, config: dict) -> None:
        """Bring the network up in `config`, reconfiguring only when it differs."""
        if self.config == config:
            return
        if self.config is not None:
            self.down()
        self.up(config)
        self.config = dict(config)

    def up(self, config: dict) -> None:
        raise NotImplementedError

    def down(self) -> None:
        raise NotImplementedError

    def status(self) -> dict | None:
        return None

    def release_error(self) -> dict | None:
        """The medium's release error since the last call (None: no emulated medium)."""
        return None

    def describe(self) -> dict:
        return {"kind": self.kind}

    def settings(self) -> dict:
        """What, besides the configuration, shapes a run on this testbed (part of a run's plan)."""
        return {"kind": self.kind}


class VethTestbed(Testbed):
    """Two namespaces NAME-a, NAME-b and a veth pair, 10.78.0.1–2/24 and fd78::1–2/64."""

    kind = "veth stand-in"

    def __init__(self, name: str = "wlsl") -> None:
        super().__init__()
        self.name = name

    def supports(self, config: dict) -> str | None:
        # A row labelled as the RTL's must come from the RTL: the stand-in has no access point.
        if config.get("ap_crypto"):
            return f"the veth stand-in has no access point to run `{config['ap_crypto']}`"
        if config.get("capture"):
            return "the veth stand-in has no air to capture (no joins)"
        return None

    def up(self, config: dict) -> None:
        if not is_root():
            raise TestbedError("the veth stand-in needs root (network namespaces)")
        self.down()
        a, b = f"{self.name}-a", f"{self.name}-b"
        for ns in (a, b):
            _run(["ip", "netns", "add", ns])
            _run(["ip", "-n", ns, "link", "set", "lo", "up"])
        _run(["ip", "link", "add", f"{self.name}a", "netns", a, "type", "veth", "peer", "name", f"{self.name}b", "netns", b])
        self.nodes = []
        for i, (ns, dev) in enumerate(((a, f"{self.name}a"), (b, f"{self.name}b")), start=1):
            _run(["ip", "-n", ns, "addr", "add", f"10.78.0.{i}/24", "dev", dev])
            _run(["ip", "-n", ns, "addr", "add", f"fd78::{i}/64", "dev", dev, "nodad"])
            _run(["ip", "-n", ns, "link", "set", dev, "up"])
            self.nodes.append(Node(f"host{i}", ns, dev, f"10.78.0.{i}/24", f"fd78::{i}/64"))

    def down(self) -> None:
        for ns in (f"{self.name}-a", f"{self.name}-b"):
            if os.path.exists(f"/run/netns/{ns}"):
                _run(["ip", "netns", "delete", ns])
        self.config = None

    def describe(self) -> dict:
        return {"kind": self.kind, "link": "veth pair (no air, no security: plumbing check only)",
                "nodes": [n.__dict__ for n in self.nodes]}


def request_polling_idle() -> int | None:
    """A PM QoS request for 0 µs CPU wake-up latency (idle CPUs poll instead of halting) that
    holds until the returned descriptor is closed; None where not permitted."""
    try:
        fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
    except OSError:
        return None
    os.write(fd, (0).to_bytes(4, sys.byteorder, signed=True))
    return fd


#: The emulator busy-waits this long before each release (`wlan up --release-spin-us`): a
#: timer wake-up lands 14–47 µs late on a virtual machine, a spin releases on time.
RELEASE_SPIN_US = 100


class WlanTestbed(Testbed):
    """`wlansec wlan` with an access point and `stations` stations; traffic flows between the
    last two stations through the access point (as in both studies)."""

    kind = "emulated WLAN"
    seeded = True

    def __init__(self, wlansec: str, name: str = "lab", stations: int = 2, seed: int = 1,
                 release_spin_us: int = RELEASE_SPIN_US, polling_idle: bool = True) -> None:
        super().__init__(seed)
        self.wlansec, self.name, self.stations = wlansec, name, stations
        self.release_spin_us, self.polling_idle = release_spin_us, polling_idle
        self._help: str | None = None
        self._idle_request: int | None = None
        self.last_status: dict | None = None
        #: Where a configuration with `capture` records the air (`wlan up --pcap`): complete
        #: once the WLAN is down.
        self.capture_path = LOCK_DIR / f"wlansec-lab.{name}.pcap"

    def _up_help(self) -> str:
        if self._help is None:
            self._help = _run([self.wlansec, "wlan", "up", "--help"])
        return self._help

    def supports(self, config: dict) -> str | None:
        if config.get("topology", "bss") != "bss" and "--topology" not in self._up_help():
            return "`wlansec wlan up` has no --topology option yet: only infrastructure (bss) is emulated"
        return None

    def up(self, config: dict) -> None:
        if not is_root():
            raise TestbedError("the emulated WLAN needs root (network namespaces, TAP)")
        if (why := self.supports(config)) is not None:
            raise TestbedError(why)
        argv = [self.wlansec, "wlan", "up", "--name", self.name, "--security", config["security"],
                "--phy", config.get("phy", "g54"), "--stations", str(config.get("stations", self.stations)),
                "--passphrase", config.get("passphrase", "wlansec-lab" if config["security"] != "wep" else "wlsec"),
                "--ssid", "wlansec-lab", "--seed", str(self.seed)]
        if config.get("topology", "bss") != "bss":
            argv += ["--topology", config["topology"]]
        if config.get("signal") == "poor":
            argv.append("--poor-signal")
        for option in ("card", "ap_crypto", "ampdu", "sae_pwe"):
            if config.get(option):
                argv += [f"--{option.replace('_', '-')}", config[option]]
        self.capture_path.unlink(missing_ok=True)  # a run never reads an earlier bring-up's capture
        if config.get("capture"):
            argv += ["--pcap", str(self.capture_path)]
        argv += ["--release-spin-us", str(config.get("release_spin_us", self.release_spin_us))]
        self._hold_polling_idle()
        subprocess.run([self.wlansec, "wlan", "down", "--name", self.name], capture_output=True, timeout=30)
        _run(argv, timeout=90)
        status = self.status()
        stations = [n for n in status["nodes"] if n["role"] != "ap"]
        self.nodes = [Node(n["role"], n["namespace"], n["interface"], n["ipv4"], n["ipv6"]) for n in stations]
        if len(self.nodes) < 2:
            raise TestbedError(f"wlan status lists {len(self.nodes)} station(s); the experiments need two")

    def down(self) -> None:
        subprocess.run([self.wlansec, "wlan", "down", "--name", self.name], capture_output=True, timeout=30)
        self.config = None
        if self._idle_request is not None:
            os.close(self._idle_request)
            self._idle_request = None

    def _hold_polling_idle(self) -> None:
        """While the WLAN is up, ask the kernel (PM QoS, /dev/cpu_dma_latency = 0 µs) to keep
        idle CPUs polling: waking a halted vCPU adds ~0.1 ms to an RTT and most of its spread
        (`wlansec_lab.floor`)."""
        if self.polling_idle and self._idle_request is None:
            self._idle_request = request_polling_idle()  # None where not permitted: settings() says so

    def status(self) -> dict:
        self.last_status = json.loads(_run([self.wlansec, "wlan", "status", "--name", self.name, "--json"], timeout=10))
        return self.last_status

    def release_error(self) -> dict | None:
        """The release error of the frames since the last call (or bring-up); a new window starts."""
        try:
            answer = _run([self.wlansec, "wlan", "status", "--name", self.name, "--json", "--reset-release-error"], timeout=10)
            self.last_status = json.loads(answer)
            return self.last_status.get("release_error")
        except (TestbedError, json.JSONDecodeError, subprocess.TimeoutExpired):
            return None

    def settings(self) -> dict:
        # The medium's seed is the runner's, per round (runner.medium_seed, in the plan).
        return {"kind": self.kind, "stations": self.stations, "release_spin_us": self.release_spin_us,
                "polling_idle": self.polling_idle and os.access("/dev/cpu_dma_latency", os.W_OK)}

    def describe(self) -> dict:
        s = self.last_status or {}
        return {"kind": self.kind, "name": self.name, "stations": self.stations, "medium_seed": self.seed,
                "security": s.get("security"), "ampdu": s.get("ampdu"), "phy": s.get("phy"), "link": s.get("link"),
                "frame_error_rate": s.get("frame_error_rate"), "topology": s.get("topology"),
                "crypto": {n["role"]: n.get("crypto") for n in s.get("nodes", [])},
                "medium": s.get("medium")}


def make_testbed(kind: str, wlansec: str, name: str | None = None, stations: int = 2) -> Testbed:
    """The testbed `wlansec-lab run --testbed KIND` means: `wlan` (the emulated WLAN) or `veth`
    (the stand-in); `name` None keeps the kind's default name."""
    named = {"name": name} if name else {}
    return VethTestbed(**named) if kind == "veth" else WlanTestbed(wlansec, stations=stations, **named)
