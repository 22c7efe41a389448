"""The report's text: Markdown cells and tables, and the small Markdown subset the report uses
turned into its HTML page."""

from __future__ import annotations

import html
import re


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


def html_page(md: str) -> str:
    """A small Markdown subset (headings, tables, images, code, lists, paragraphs) to HTML."""
    out, lines, i = [], md.splitlines(), 0
    inline = lambda s: re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", re.sub(r"\*(.+?)\*", r"<i>\1</i>", re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(s))))
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
                    rows.append([c.strip() for c in lines[i].strip("|").split("|")])
                i += 1
            out.append("<table><tr>" + "".join(f"<th>{inline(c)}</th>" for c in rows[0]) + "</tr>" +
                       "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>" for r in rows[1:]) + "</table>")
            continue
        if m := re.match(r"^(#+) (.*)", line):
            out.append(f"<h{len(m[1])}>{inline(m[2])}</h{len(m[1])}>")
        elif m := re.match(r"^!\[(.*?)\]\((.*?)\)$", line):
            out.append(f'<p><img alt="{html.escape(m[1])}" src="{html.escape(m[2])}" style="max-width:100%"></p>')
        elif line.startswith("- "):
            out.append(f"<li>{inline(line[2:])}</li>")
        elif line.strip():
            out.append(f"<p>{inline(line)}</p>")
        i += 1
    style = "body{font-family:sans-serif;max-width:1200px;margin:auto}table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px}"
    return f"<!doctype html><html><head><meta charset='utf-8'><title>wlansec laboratory</title><style>{style}</style></head><body>{''.join(out)}</body></html>\n"
