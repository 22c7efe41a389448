"""Plots of `wlansec bench ciphers --json FILE` in the 2009 study's layouts, and the study's
published energy ratios beside ours.

    python -m wlansec_lab.ciphers results.json --out out/ciphers

Writes throughput.png (per algorithm, text and video), energy.png (µJ/byte, encrypt and
decrypt), time_vs_size.png, key_size.png (where a cipher ran at more than one key size) and ratios.md, and prints the ratio table with a
one-line reading of where today's CPU changes the study's conclusion.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import matplotlib.pyplot as plt

from wlansec_lab import PUBLISHED
from wlansec_lab.plotstyle import PUBLISHED as PUBLISHED_COLOUR, save

STUDY = PUBLISHED / "cipher_power_wireless_2009.json"

#: The study's algorithms at its default key sizes (CBC, as .NET defaults), then today's.
ALGORITHMS = [
    ("AES", 128, "CBC"), ("DES", 64, "CBC"), ("3DES", 168, "CBC"), ("RC2", 64, "CBC"),
    ("Blowfish", 128, "CBC"), ("RC6", 128, "CBC"),
    ("ChaCha20-Poly1305", 256, "AEAD"), ("AES-GCM", 128, "AEAD"), ("RC4", 128, "WEP-frames"),
    ("CCMP", 128, "CCMP-frames"),
]
STUDY_ALGORITHMS = ALGORITHMS[:6]


def label(cipher: str, bits: int, mode: str) -> str:
    return f"{cipher}-{bits}" if mode in ("CBC", "AEAD", "WEP-frames", "CCMP-frames") else f"{cipher}-{bits}-{mode}"


#: The study's six ciphers at its key sizes, in its order: the one list every report section's
#: cipher rows come from (AES-128, DES-64, 3DES-168, RC2-64, Blowfish-128, RC6-128, all CBC).
STUDY_CIPHERS = tuple(label(*a) for a in STUDY_ALGORITHMS)


def load(path: Path) -> dict:
    return json.loads(Path(path).read_text())


def kind_of(data: str) -> str | None:
    return data.split("-", 1)[0] if data.startswith(("text-", "video-")) else None


def aggregate(records: list[dict]) -> dict:
    """(cipher, bits, mode, kind, direction) → totals over every file of that kind, the
    study's way: throughput = total bytes / total time."""
    acc: dict = defaultdict(lambda: {"bytes": 0, "wall": 0.0, "uj": 0.0})
    for r in records:
        kind = kind_of(r["data"])
        if r["impl"] != "wlansec" or kind is None:
            continue
        a = acc[(r["cipher"], r["key_bits"], r["mode"], kind, r["direction"])]
        a["bytes"] += r["bytes"]
        a["wall"] += r["wall_s"]
        a["uj"] += r["energy_uj_per_byte"] * r["bytes"]
    return {k: {"mb_per_s": a["bytes"] / a["wall"] / 1e6, "uj_per_byte": a["uj"] / a["bytes"]}
            for k, a in acc.items()}


def energy_method(report: dict) -> str:
    methods = sorted({r["energy_method"] for r in report["records"] if r["impl"] == "wlansec"})
    e = report["meta"]["energy"]
    if methods == ["rapl"]:
        return "RAPL"
    return f"model V×I×t (V={e['volts']} V, I={e['amps']} A)"


def _present(agg, algos, kind, direction):
    return [a for a in algos if (*a, kind, direction) in agg]


def plot_throughput(report: dict, agg: dict, out: Path, fmt: str = "png") -> Path:
    openssl = {(r["cipher"], r["key_bits"], r["mode"], r["direction"]): r["mb_per_s"]
               for r in report["records"] if r["impl"] == "openssl"}
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    for ax, kind in zip(axes, ("text", "video")):
        algos = _present(agg, ALGORITHMS, kind, "encrypt")
        x = range(len(algos))
        for i, (direction, off) in enumerate((("encrypt", -0.2), ("decrypt", 0.2))):
            ys = [agg.get((*a, kind, direction), {}).get("mb_per_s", 0) for a in algos]
            ax.bar([p + off for p in x], ys, width=0.4, label=f"wlansec {direction}")
        os_x = [p for p, a in zip(x, algos) if (*a, "encrypt") in openssl]
        os_y = [openssl[(*a, "encrypt")] for a in algos if (*a, "encrypt") in openssl]
        ax.scatter(os_x, os_y, marker="D", color=PUBLISHED_COLOUR, zorder=3, label="openssl speed -evp (encrypt)")
        ax.set_xticks(list(x), [label(*a) for a in algos], rotation=45, ha="right")
        ax.set_yscale("log")
        ax.set_title(f"Throughput, {kind} data (total bytes / total time)")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("MB/s (10^6 B/s, log)")
    axes[0].legend(fontsize=8)
    return save(fig, out / f"throughput.{fmt}")


def plot_energy(report: dict, agg: dict, out: Path, fmt: str = "png") -> Path:
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    for ax, direction in zip(axes, ("encrypt", "decrypt")):
        algos = _present(agg, ALGORITHMS, "text", direction)
        x = range(len(algos))
        for kind, off in (("text", -0.2), ("video", 0.2)):
            ys = [agg.get((*a, kind, direction), {}).get("uj_per_byte", 0) for a in algos]
            ax.bar([p + off for p in x], ys, width=0.4, label=f"{kind} data")
        ax.set_xticks(list(x), [label(*a) for a in algos], rotation=45, ha="right")
        ax.set_yscale("log")
        ax.set_title(f"Energy per byte, {direction}")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel(f"µJ/byte (log) — {energy_method(report)}")
    axes[0].legend(fontsize=8)
    return save(fig, out / f"energy.{fmt}")


def plot_time_vs_size(report: dict, out: Path, fmt: str = "png") -> Path:
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    for ax, direction in zip(axes, ("encrypt", "decrypt")):
        for a in ALGORITHMS:
            pts = sorted((r["bytes"] / 1000, r["wall_s"] * 1e3) for r in report["records"]
                         if r["impl"] == "wlansec" and (r["cipher"], r["key_bits"], r["mode"]) == a
                         and r["direction"] == direction and kind_of(r["data"]))
            if pts:
                ax.plot(*zip(*pts), marker="o", label=label(*a))
        ax.set_xlabel("file size (KB)")
        ax.set_yscale("log")
        ax.set_title(f"{direction.capitalize()} time vs file size (text and video)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("median wall time (ms, log)")
    axes[0].legend(fontsize=7, ncol=2)
    return save(fig, out / f"time_vs_size.{fmt}")


def plot_key_size(report: dict, out: Path, fmt: str = "png") -> Path | None:
    """Throughput and energy against key size; None where every cipher ran at one key size."""
    series = defaultdict(lambda: defaultdict(list))  # cipher → key bits → records
    for r in report["records"]:
        if r["impl"] == "wlansec" and r["mode"] == "CBC" and r["direction"] == "encrypt" and kind_of(r["data"]) == "text":
            series[r["cipher"]][r["key_bits"]].append(r)
    swept = {cipher: by_bits for cipher, by_bits in sorted(series.items()) if len(by_bits) > 1}
    if not swept:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    for cipher, by_bits in swept.items():
        bits = sorted(by_bits)
        # Per key size, the study's totals: bytes / time and energy weighted by bytes.
        mbps = [sum(r["bytes"] for r in by_bits[b]) / sum(r["wall_s"] for r in by_bits[b]) / 1e6 for b in bits]
        uj = [sum(r["energy_uj_per_byte"] * r["bytes"] for r in by_bits[b]) / sum(r["bytes"] for r in by_bits[b]) for b in bits]
        axes[0].plot(bits, mbps, marker="o", label=cipher)
        axes[1].plot(bits, uj, marker="o", label=cipher)
    axes[0].set_ylabel("MB/s")
    axes[1].set_ylabel(f"µJ/byte — {energy_method(report)}")
    for ax, title in zip(axes, ("Throughput vs key size (CBC encrypt, text)", "Energy vs key size (CBC encrypt, text)")):
        ax.set_xlabel("key bits")
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return save(fig, out / f"key_size.{fmt}")


CONDITIONS = {
    "Encryption of text data without transmission": ("text", "encrypt"),
    "Encryption of video files without transmission": ("video", "encrypt"),
    "Decryption of video files without transmission": ("video", "decrypt"),
}
SUBJECTS = {"Blowfish": ("Blowfish", 128, "CBC"), "RC6": ("RC6", 128, "CBC")}
AES = ("AES", 128, "CBC")


def ratios(agg: dict) -> list[dict]:
    """The study's "X requires approximately N% of the power consumed for AES" claims, each
    beside our energy ratio (X-128-CBC / AES-128-CBC) on the same kind of data and direction."""
    study = load(STUDY)
    rows = []
    for c in study["claims"]:
        q = c["quantity"]
        if not q.startswith("Power consumed by") or c["condition"] not in CONDITIONS:
            continue
        subject = q.split()[3]
        kind, direction = CONDITIONS[c["condition"]]
        ours = theirs = None
        mine, aes = agg.get((*SUBJECTS[subject], kind, direction)), agg.get((*AES, kind, direction))
        if mine and aes:
            ours = 100 * mine["uj_per_byte"] / aes["uj_per_byte"]
            theirs = c["value"]
        rows.append({"subject": subject, "data": kind, "direction": direction,
                     "published_percent": c["value"], "ours_percent": ours, "quote": c["quote"],
                     "compared": theirs is not None})
    return rows


def reading(agg: dict, rows: list[dict]) -> str:
    """One line: where today's CPU changes the study's conclusion."""
    have = [r for r in rows if r["ours_percent"] is not None]
    if not have:
        return "No AES-128-CBC / Blowfish / RC6 measurements in this run to compare with the study."
    bf = [r["ours_percent"] for r in have if r["subject"] == "Blowfish"]
    rc6 = [r["ours_percent"] for r in have if r["subject"] == "RC6"]
    parts = []
    if bf:
        verdict = "reversed" if min(bf) > 100 else "kept"
        parts.append(f"Blowfish needs {min(bf):.0f}–{max(bf):.0f}% of AES-128's energy (study: 16–24%): "
                     f"the study's 'Blowfish cheapest' ranking is {verdict}")
    if rc6:
        parts.append(f"RC6 {min(rc6):.0f}–{max(rc6):.0f}% (study: 51–93%)")
    des = agg.get(("DES", 64, "CBC", "text", "encrypt"))
    tdes = agg.get(("3DES", 168, "CBC", "text", "encrypt"))
    if des and tdes:
        parts.append(f"3DES still ≈{des['mb_per_s'] / tdes['mb_per_s']:.1f}× slower than DES")
    return "; ".join(parts) + " — with AES instructions in the CPU, AES is no longer the expensive choice." \
        if bf and min(bf) > 100 else "; ".join(parts) + "."


def ratio_table(rows: list[dict]) -> str:
    lines = ["| energy vs AES-128 | data | direction | study | ours |", "|---|---|---|---|---|"]
    for r in rows:
        ours = "—" if r["ours_percent"] is None else f"{r['ours_percent']:.0f}%"
        lines.append(f"| {r['subject']} | {r['data']} | {r['direction']} | ~{r['published_percent']}% | {ours} |")
    return "\n".join(lines)


def plot_all(report: dict, agg: dict, out: Path, fmt: str = "png") -> list[Path]:
    """Every plot of a bench report that has data, in `fmt` (png, or svg for the lab's report)."""
    plots = [plot_throughput(report, agg, out, fmt), plot_energy(report, agg, out, fmt),
             plot_time_vs_size(report, out, fmt), plot_key_size(report, out, fmt)]
    return [p for p in plots if p]


def run(json_path: Path, out: Path) -> dict:
    report = load(json_path)
    out.mkdir(parents=True, exist_ok=True)
    agg = aggregate(report["records"])
    plots = plot_all(report, agg, out)
    rows = ratios(agg)
    line = reading(agg, rows)
    text = (f"# Cipher energy vs the 2009 study\n\nEnergy: {energy_method(report)}; CPU: {report['meta']['cpu']}.\n\n"
            f"{ratio_table(rows)}\n\n{line}\n")
    (out / "ratios.md").write_text(text)
    return {"plots": plots, "ratios": rows, "reading": line, "markdown": out / "ratios.md", "text": text}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("json", type=Path, help="output of `wlansec bench ciphers --json FILE`")
    p.add_argument("--out", type=Path, default=Path("out/ciphers"), help="directory for the plots and ratios.md")
    args = p.parse_args(argv)
    result = run(args.json, args.out)
    print(result["text"])
    for path in result["plots"]:
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
