"""The report as a reader's browser shows it: Debian's Chromium, headless, through its driver
(chromedriver, driven by Selenium), at a laptop's screen size. `check` opens a report page and
returns what a reader would meet (console errors, figures that did not load, the answers
table's place on the first screen, collapsed blocks that do not open, links to nowhere), and
saves screenshots beside the page.

    python -m wlansec_lab.report.browser out/lab/report/index.html   # prints the findings; exit 1 on any

Needs the `chromium` and `chromium-driver` Debian packages and the `selenium` Python package
(scripts/setup.sh installs all three)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: A laptop's screen: what “the first screen” means here.
SCREEN = (1366, 900)
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


class Unavailable(RuntimeError):
    """Chromium, its driver or Selenium is not installed."""


@dataclass
class Findings:
    """What a reader meets on the page; `problems` lists everything that should not be there."""
    console_errors: list[str] = field(default_factory=list)
    figures: int = 0
    broken_figures: list[str] = field(default_factory=list)
    answers_top: float | None = None
    details: int = 0
    unopened_details: list[str] = field(default_factory=list)
    dead_links: list[str] = field(default_factory=list)
    print_hides_contents: bool = False
    screenshots: list[Path] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        out = [f"console: {e}" for e in self.console_errors]
        out += [f"figure did not load: {f}" for f in self.broken_figures]
        if self.figures == 0:
            out.append("no figure on the page")
        if self.answers_top is None:
            out.append("no answers table")
        elif self.answers_top >= SCREEN[1]:
            out.append(f"the answers table starts at {self.answers_top:.0f} px, below the first screen ({SCREEN[1]} px)")
        out += [f"<details> does not open: {d}" for d in self.unopened_details]
        out += [f"link to a missing anchor: {a}" for a in self.dead_links]
        if not self.print_hides_contents:
            out.append("the print view still shows the table of contents")
        return out


def chromium():
    """A headless Chromium session whose viewport is SCREEN, its console log kept."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        raise Unavailable(f"the selenium package is missing ({e})") from e
    for path in (CHROMIUM, CHROMEDRIVER):
        if not shutil.which(path):
            raise Unavailable(f"{path} is missing (Debian packages chromium and chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--disable-dev-shm-usage",
                f"--window-size={SCREEN[0]},{SCREEN[1]}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    # The window's size includes the browser's own frame: the page's viewport is set exactly.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": SCREEN[0], "height": SCREEN[1], "deviceScaleFactor": 1, "mobile": False})
    return driver


def check(page: Path, screenshots: Path | None = None) -> Findings:
    """Open `page` from the file system and look at it as a reader would; screenshots go to
    `screenshots` (default: a `screenshots` directory beside the page)."""
    from selenium.common.exceptions import WebDriverException

    page = Path(page).resolve()
    shots = Path(screenshots or page.parent / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    driver = chromium()
    found = Findings()
    try:
        driver.get(page.as_uri())
        driver.execute_script("return document.fonts.ready")
        first = shots / "first-screen.png"
        driver.save_screenshot(str(first))
        found.screenshots.append(first)
        found.answers_top = driver.execute_script(
            "const t = document.querySelector('#answers table'); return t ? t.getBoundingClientRect().top : null;")
        images = driver.execute_script(
            "return [...document.images].map(i => [i.getAttribute('src'), i.complete, i.naturalWidth, i.alt]);")
        svgs = driver.execute_script("return [...document.querySelectorAll('svg')].map(s => s.getBoundingClientRect().width);")
        found.figures = len(images) + len(svgs)
        found.broken_figures = [src for src, complete, width, _ in images if not (complete and width > 0)]
        found.broken_figures += [f"{src} (no alt text)" for src, _, _, alt in images if not alt]
        found.broken_figures += ["inline <svg> of zero width" for w in svgs if not w > 0]
        found.dead_links = driver.execute_script(
            "return [...document.querySelectorAll('a[href^=\"#\"]')].map(a => a.getAttribute('href'))"
            ".filter(h => !document.getElementById(decodeURIComponent(h.slice(1))));")
        blocks = driver.find_elements("css selector", "details")
        found.details = len(blocks)
        for block in blocks:
            summary = block.find_element("css selector", "summary")
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", summary)
            try:
                summary.click()
            except WebDriverException as e:  # covered, hidden, or otherwise not clickable
                found.unopened_details.append(f"{summary.text} ({e.msg.splitlines()[0]})")
                continue
            if not driver.execute_script("return arguments[0].open;", block):
                found.unopened_details.append(summary.text)
        key = driver.find_elements("css selector", "#key-figures")
        if key:
            driver.execute_script("arguments[0].scrollIntoView();", key[0])
            shot = shots / "key-figures.png"
            driver.save_screenshot(str(shot))
            found.screenshots.append(shot)
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        found.print_hides_contents = driver.execute_script("const nav = document.querySelector('nav');"
                                                           " return nav !== null && getComputedStyle(nav).display === 'none';")
        found.console_errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        driver.quit()
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("page", type=Path, help="the report's index.html")
    p.add_argument("--screenshots", type=Path, help="where the screenshots go (default: PAGE's directory/screenshots)")
    args = p.parse_args(argv)
    try:
        found = check(args.page, args.screenshots)
    except Unavailable as e:
        print(f"browser check: {e}", file=sys.stderr)
        return 2
    print(json.dumps({"figures": found.figures, "details": found.details, "answers_top_px": found.answers_top,
                      "screenshots": [str(s) for s in found.screenshots], "problems": found.problems}, indent=1))
    return 1 if found.problems else 0


if __name__ == "__main__":
    sys.exit(main())
