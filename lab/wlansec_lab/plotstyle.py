"""The laboratory's figure style: the Okabe–Ito palette (told apart with every common kind of
colour blindness, and in greyscale by lightness), named so a figure says which colour means
what, and one way to save a figure."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from cycler import cycler  # noqa: E402

#: Okabe & Ito, “Color Universal Design” (2002), by name.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
}
#: The order series take their colours in (black is kept for the published figures, and
#: yellow, the faintest on white, comes last).
SERIES = [OKABE_ITO[c] for c in ("blue", "orange", "bluish green", "vermillion", "reddish purple", "sky blue", "yellow")]
#: The published figures a plot sets beside ours.
PUBLISHED = OKABE_ITO["black"]

matplotlib.rcParams.update({
    "axes.prop_cycle": cycler(color=SERIES),
    "svg.fonttype": "path",  # text as outlines: the same glyphs in every browser, with or without the font
    "svg.hashsalt": "wlansec",  # stable element ids: a regenerated figure is the same file
    "font.size": 9,
})


def series(i: int) -> str:
    """The i-th series colour, cycling."""
    return SERIES[i % len(SERIES)]


def save(fig, path: Path) -> Path:
    """Write `fig` to `path` (its suffix is the format: .svg for the report, .png for a
    bench's own plots) and close it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Date": None} if path.suffix == ".svg" else None)
    plt.close(fig)
    return path
