"""The report's text: Markdown cells, tables, figures and collapsible blocks, and the small
Markdown subset the report uses turned into its HTML page (one static file, its stylesheet
inline, a table of contents, `<details>` for what a reader opens on demand)."""

from __future__ import annotations

import html
import re

from wlansec_lab.report.style import PRINT_SCRIPT, STYLESHEET


def num(v, fmt="{:.2f}") -> str:
    """A number as `fmt` formats it, or “—” for none."""
    return "—" if v is None else fmt.format(v)


def spread_text(entry: dict, metric: str, fmt: str = "{:.2f}") -> str:
    """“std (±CI half-width)”, or “—” where one run (or none) has no spread."""
    s = entry["metrics"].get(metric)
    if not s or s["std"] is None or not s["ci95"]:
        return "—"
    return f"{fmt.format(s['std'])} (±{fmt.format((s['ci95'][1] - s['ci95'][0]) / 2)})"


def md_table(header: list[str], rows: list[list]) -> str:
    """A Markdown table."""
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] +
                     ["| " + " | ".join(str(c) for c in r) + " |" for r in rows])


def not_run(data: dict | None, what: str) -> str | None:
    """The section's text where raw/WHAT.json is absent, else None."""
    if data is None:
        return f"*Not run: no `raw/{what}.json` in this results directory.*"
    return None


def anchor(title: str) -> str:
    """A section's fragment id, as GitHub derives it from the heading (so report.md's links
    work there too)."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def figure(path: str, alt: str, caption: str) -> str:
    """A figure: its image with alt text (what it shows, for a reader who cannot see it), the
    caption on the next line of the same paragraph."""
    return f"![{alt}]({path})\n{caption}"


def figure_id(path: str) -> str:
    """A figure's fragment id on the page, from its file's name."""
    return "figure-" + anchor(path.rsplit("/", 1)[-1].rsplit(".", 1)[0])


def key_figure_link(path: str) -> str:
    """A section's pointer to its key figure, shown once, near the top of the page."""
    return f"Key figure: [above, under Key figures](#{figure_id(path)})."


def details(summary: str, body: str) -> str:
    """A block the reader opens on demand (raw tables, logs, configuration); GitHub renders
    report.md's the same way."""
    return f"<details><summary>{summary}</summary>\n\n{body}\n\n</details>"


#: A cell with nothing in it.
EMPTY = {"", "—", "-"}


def _inline(s: str) -> str:
    """Code, links, bold and italic of one line of text, HTML-escaped."""
    parts = re.split(r"(`[^`]+`)", s)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        t = html.escape(part, quote=False)
        t = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", lambda m: f'<a href="{html.escape(m[2])}">{m[1]}</a>', t)
        t = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", t)
        t = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<i>\1</i>", t)
        out.append(t)
    return "".join(out)


def _table(rows: list[list[str]]) -> str:
    """A table without the columns empty in every row, and a line naming those left out."""
    header, body = rows[0], rows[1:]
    keep = [j for j in range(len(header)) if not body or any(j < len(r) and r[j] not in EMPTY for r in body)]
    dropped = [header[j] for j in range(len(header)) if j not in keep]
    cells = lambda r, tag: "".join(f"<{tag}>{_inline(r[j]) if j < len(r) else ''}</{tag}>" for j in keep)
    table = ("<div class='table'><table><thead><tr>" + cells(header, "th") + "</tr></thead><tbody>" +
             "".join("<tr>" + cells(r, "td") + "</tr>" for r in body) + "</tbody></table></div>")
    if dropped:
        table += f"<p class='dropped'>Not shown, empty at every row of this run: {_inline(', '.join(dropped))}.</p>"
    return table


def html_page(md: str) -> str:
    """report.md as one HTML page: each `##` section in a <section> with its anchor, a table of
    contents, figures with their captions, the Markdown subset the report uses (headings,
    tables, images, code, lists, quotes, links, paragraphs) and its `<details>` blocks."""
    out, lines, i = [], md.splitlines(), 0
    title, sections = "wlansec laboratory report", []
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append("<pre>" + html.escape("\n".join(lines[i + 1:j])) + "</pre>")
            i = j + 1
            continue
        if line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                if not set(lines[i]) <= set("|-"):
                    rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            out.append(_table(rows))
            continue
        if line.startswith("- "):
            items = []
            while i < len(lines) and lines[i].startswith("- "):
                items.append(f"<li>{_inline(lines[i][2:])}</li>")
                i += 1
            out.append("<ul>" + "".join(items) + "</ul>")
            continue
        if m := re.match(r"^!\[(.*?)\]\((.*?)\)$", line):
            caption = lines[i + 1] if i + 1 < len(lines) and lines[i + 1].strip() else ""
            out.append(f"<figure id='{figure_id(m[2])}'><img alt=\"{html.escape(m[1])}\" src=\"{html.escape(m[2])}\">" +
                       (f"<figcaption>{_inline(caption)}</figcaption>" if caption else "") + "</figure>")
            i += 2 if caption else 1
            continue
        if m := re.match(r"^<details><summary>(.*)</summary>$", line):
            out.append(f"<details><summary>{_inline(m[1])}</summary>")
        elif line == "</details>":
            out.append("</details>")
        elif m := re.match(r"^# (.*)", line):
            title = m[1]
        elif m := re.match(r"^## (.*)", line):
            sections.append(m[1])
            out.append(("</section>" if len(sections) > 1 else "") + f"<section id='{anchor(m[1])}'><h2>{_inline(m[1])}</h2>")
        elif m := re.match(r"^(#{3,}) (.*)", line):
            out.append(f"<h{len(m[1])}>{_inline(m[2])}</h{len(m[1])}>")
        elif line.startswith("> "):
            out.append(f"<blockquote>{_inline(line[2:])}</blockquote>")
        elif line.strip():
            out.append(f"<p>{_inline(line)}</p>")
        i += 1
    if sections:
        out.append("</section>")
    toc = "".join(f"<li><a href='#{anchor(t)}'>{_inline(t)}</a></li>" for t in sections)
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{html.escape(title)}</title><style>{STYLESHEET}</style></head><body>"
            f"<nav aria-label='Contents'><p class='toc-title'>Contents</p><ol>{toc}</ol></nav>"
            f"<main><h1>{_inline(title)}</h1>{''.join(out)}</main><script>{PRINT_SCRIPT}</script></body></html>\n")
