"""Join times read from a capture of the air (`wlansec wlan up --pcap`), dissected by tshark, so
the reading does not come from the code under test. The emulator stamps each frame with the
host's monotonic clock at the frame's start on the medium: differences of those stamps are
real time, protocol computation included.

A station's **join time** runs from the first Authentication frame it sends to the EAPOL-Key
message 4 of 4 it sends: the frame after which both ends have installed the pairwise key, so
the controlled port is open (IEEE 802.11-2020 12.7.6). It splits into three phases that add
up to it:

* `auth`: to the last Authentication frame between the station and the access point before the
  station's Association Request (open system: 2 frames; SAE: commit and confirm each way,
  so the password element and both scalars' computation are in it);
* `assoc`: from there to the access point's Association Response (OWE's Diffie–Hellman is in it);
* `handshake`: from there to message 4 (the 4-way handshake).

Not the first protected data frame: a station sends its first one when its host has
something to send (IPv6 multicast listener reports, tens of milliseconds later), which says
nothing about the join."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

#: The frame fields read, in tshark's names (tshark 4.0 and later).
FIELDS = ["frame.time_relative", "wlan.fc.type_subtype", "wlan.sa", "wlan.da", "wlan_rsna_eapol.keydes.msgnr"]
AUTHENTICATION, ASSOCIATION_REQUEST, ASSOCIATION_RESPONSE = 0x0B, 0x00, 0x01
PHASES = ("auth", "assoc", "handshake")


class CaptureError(ValueError):
    """The capture does not hold a complete join of some station."""


@dataclass(frozen=True)
class Frame:
    time_s: float
    subtype: int
    sa: str
    da: str
    eapol_message: int | None


@dataclass(frozen=True)
class Join:
    """One station's join, its times in ms from its first Authentication frame."""
    station: str
    auth_ms: float
    assoc_ms: float
    handshake_ms: float

    @property
    def join_ms(self) -> float:
        return self.auth_ms + self.assoc_ms + self.handshake_ms


def frames(pcap: Path) -> list[Frame]:
    """The capture's management and EAPOL frames, in capture order (tshark's field output)."""
    argv = ["tshark", "-r", str(pcap), "-Y", "wlan.fc.type == 0 || eapol", "-T", "fields", "-E", "occurrence=f",
            *(a for f in FIELDS for a in ("-e", f))]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise CaptureError(f"tshark -r {pcap}: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return parse_fields(done.stdout)


def parse_fields(text: str) -> list[Frame]:
    """tshark's tab-separated FIELDS, one frame a line."""
    out = []
    for line in text.splitlines():
        cells = line.split("\t")
        if len(cells) < len(FIELDS) or not cells[0] or not cells[1]:
            continue
        msg = cells[4].strip()
        out.append(Frame(float(cells[0]), int(cells[1], 16) if cells[1].startswith("0x") else int(cells[1]),
                         cells[2].lower(), cells[3].lower(), int(msg) if msg else None))
    return out


def joins(captured: list[Frame]) -> list[Join]:
    """Every station's join (stations: the senders of Association Requests), in the order they
    first authenticated. A station whose join the capture does not hold to message 4 is an
    error, not a shorter join."""
    stations = list(dict.fromkeys(f.sa for f in captured if f.subtype == ASSOCIATION_REQUEST))
    if not stations:
        raise CaptureError("no Association Request in the capture: no station joined")
    out = []
    for sta in stations:
        try:
            start = next(f.time_s for f in captured if f.subtype == AUTHENTICATION and f.sa == sta)
            request = next(f.time_s for f in captured if f.subtype == ASSOCIATION_REQUEST and f.sa == sta)
            auth_end = max(f.time_s for f in captured if f.subtype == AUTHENTICATION and sta in (f.sa, f.da) and f.time_s <= request)
            response = next(f.time_s for f in captured if f.subtype == ASSOCIATION_RESPONSE and f.da == sta and f.time_s >= request)
            port_open = next(f.time_s for f in captured if f.eapol_message == 4 and f.sa == sta and f.time_s >= response)
        except (StopIteration, ValueError):
            raise CaptureError(f"the capture does not hold {sta}'s join from Authentication to EAPOL-Key message 4") from None
        out.append(Join(sta, 1e3 * (auth_end - start), 1e3 * (response - auth_end), 1e3 * (port_open - response)))
    return sorted(out, key=lambda j: next(f.time_s for f in captured if f.subtype == AUTHENTICATION and f.sa == j.station))


def metrics(found: list[Join]) -> dict:
    """A run's metrics: each phase and the join averaged over its stations, the slowest
    station's join, and every station's own times (kept in the raw JSON, not in runs.csv)."""
    n = len(found)
    return {"join_ms": sum(j.join_ms for j in found) / n,
            **{f"join_{phase}_ms": sum(getattr(j, f"{phase}_ms") for j in found) / n for phase in PHASES},
            "join_max_ms": max(j.join_ms for j in found), "join_stations": n,
            "stations": [{"station": j.station, "join_ms": j.join_ms, **{f"{p}_ms": getattr(j, f"{p}_ms") for p in PHASES}}
                         for j in found]}
