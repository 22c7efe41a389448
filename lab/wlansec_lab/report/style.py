"""The report page's stylesheet and its one script: a readable column, the contents beside it
on a wide screen (above it on a narrow one), figures with captions, tables that scroll
sideways rather than squeeze, and a print/PDF view with every collapsed block open."""

STYLESHEET = """
:root { --ink: #1b1b1b; --muted: #555; --rule: #d0d0d0; --tint: #f4f6f8; --link: #0072B2; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
       display: grid; grid-template-columns: 15rem minmax(0, 1fr); }
nav { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow-y: auto; padding: 1.2rem 1rem;
      font-size: 0.85rem; border-right: 1px solid var(--rule); }
nav ol { margin: 0; padding-left: 1.2rem; }
nav li { margin: 0.25rem 0; }
.toc-title { margin: 0 0 0.4rem; font-weight: 600; }
main { max-width: 62rem; padding: 0.5rem 2rem 4rem; }
main > p, main section > p, main section > ul, blockquote, figcaption, .dropped { max-width: 46rem; }
h1 { font-size: 1.7rem; margin: 0.6rem 0 0.2rem; }
h2 { font-size: 1.35rem; margin: 2.2rem 0 0.6rem; padding-top: 0.6rem; border-top: 1px solid var(--rule); }
section:first-of-type h2 { margin-top: 0.8rem; }
a { color: var(--link); }
code { font-size: 0.9em; background: var(--tint); padding: 0 0.2em; border-radius: 3px; }
pre { background: var(--tint); padding: 0.6rem; overflow-x: auto; font-size: 0.8rem; line-height: 1.35; }
ul { padding-left: 1.3rem; }
li { margin: 0.3rem 0; }
blockquote { margin: 1rem 0; padding: 0.5rem 0.9rem; border-left: 4px solid #E69F00; background: #fdf6e6; }
figure { margin: 1.2rem 0 1.8rem; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid var(--rule); }
figcaption { font-size: 0.9rem; color: var(--muted); margin-top: 0.4rem; }
.table { overflow-x: auto; margin: 0.8rem 0; }
table { border-collapse: collapse; font-size: 0.82rem; line-height: 1.35; }
th, td { border: 1px solid var(--rule); padding: 0.25rem 0.5rem; vertical-align: top; text-align: left; }
th { background: var(--tint); }
tbody tr:nth-child(even) { background: #fafafa; }
.dropped { font-size: 0.8rem; color: var(--muted); margin-top: -0.4rem; }
details { margin: 0.8rem 0; border: 1px solid var(--rule); border-radius: 4px; padding: 0.3rem 0.8rem; }
details[open] { padding-bottom: 0.6rem; }
summary { cursor: pointer; font-weight: 600; }
#answers table { font-size: 0.85rem; }
#answers td:first-child { min-width: 16rem; }
@media (max-width: 60rem) {
  body { display: block; }
  nav { position: static; max-height: none; border-right: 0; border-bottom: 1px solid var(--rule); }
  main { padding: 0.5rem 1rem 3rem; }
}
@media print {
  body { display: block; font-size: 10pt; }
  nav { display: none; }
  main { max-width: none; padding: 0; }
  a { color: inherit; text-decoration: none; }
  h2 { break-after: avoid; }
  figure, tr { break-inside: avoid; }
  .table { overflow: visible; }
  details { border: 0; padding: 0; }
}
"""

#: Printing (or saving as PDF) opens every collapsed block, and closes them again after.
PRINT_SCRIPT = """
addEventListener("beforeprint", () => document.querySelectorAll("details:not([open])").forEach(d => { d.open = true; d.dataset.printed = "1"; }));
addEventListener("afterprint", () => document.querySelectorAll("details[data-printed]").forEach(d => { d.open = false; delete d.dataset.printed; }));
"""
