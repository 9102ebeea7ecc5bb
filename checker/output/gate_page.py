"""The gate's `--html DIR`: an index of every model and its verdicts, each trace a page;
and `check-model report --html DIR`: the verdict matrix, each trace a page.

DIR/index.html links to DIR/<model>/<property>.html, the same page `show --html` writes,
made from the trace file the gate wrote; the folder can be published as a CI artifact.
"""
from __future__ import annotations

import html
from pathlib import Path

from ..files import file_name, read_text, write_text
from ..gate import ModelOutcome, summary
from . import results_page
from .itf import read_itf
from .trace_page import trace_page

_STYLE = """body { font: 14px/1.4 system-ui, sans-serif; margin: 16px; color: #1d232a; }
table { border-collapse: collapse; margin: 4px 0 16px; } td, th { border: 1px solid #dde;
padding: 2px 8px; text-align: left; } .ok, .holds { color: #2e7d32; } .moved, .error,
.violated, .differs { color: #c62828; font-weight: 600; } .unknown { color: #b26a00; }
h2 { font-size: 15px; margin: 18px 0 2px; } .note { color: #667; }"""


def write_site(directory: Path, outcomes: list[ModelOutcome]) -> Path:
    """Write a page per trace and the index linking them; returns the index's path."""
    sections = [_section(directory, o) for o in outcomes]
    title = f"check-model gate: {summary(outcomes)}"
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>\n"
            f"<h1>{html.escape(title)}</h1>\n{''.join(sections)}</body></html>\n")
    return write_text(directory / "index.html", page)


def _section(directory: Path, o: ModelOutcome) -> str:
    e = html.escape
    stats = (f" · {o.result.stats.distinct_states:,} states, {o.result.stats.seconds:.1f} s"
             if o.result else "")
    notes = "".join(f"<div class=\"note\">{e(n)}</div>" for n in o.moved + o.notes +
                    ([o.error] if o.error else []))
    rows = []
    for p in o.result.properties if o.result else []:
        link = ""
        if p.trace_path:
            page = Path(o.model.name) / file_name(p.name, ".html")
            write_text(directory / page, trace_page(read_itf(p.trace_path)))
            link = f"<a href=\"{e(page.as_posix())}\">{len(p.trace.steps) - 1} steps</a>"
        differs = " differs" if not p.as_expected and not p.undecided else ""
        rows.append(f"<tr><td>{e(p.name)}</td><td>{e(p.kind)}</td>"
                    f"<td class=\"{p.verdict.value}{differs}\">{p.verdict.value}</td>"
                    f"<td>{e(p.expected.value if p.expected else '-')}</td><td>{link}</td></tr>")
    table = ("<table><tr><th>property</th><th>kind</th><th>verdict</th><th>expected</th>"
             f"<th>trace</th></tr>{''.join(rows)}</table>") if rows else ""
    return (f"<h2 id=\"{e(o.name)}\"><span class=\"{o.status}\">{o.status}</span> "
            f"{e(o.name)}<span class=\"note\">{e(stats)}</span></h2>{notes}{table}\n")


def write_results_site(directory: Path, results: dict, trace_dir: Path) -> Path:
    """The verdict matrix as DIR/index.html, each of its trace files found below
    `trace_dir` a page beside it and each proof certificate a copy, linked from its cell;
    returns the index's path."""
    links = {}
    for m in results["matrices"].values():
        for entry in m["cells"].values():
            for p in entry.get("properties", {}).values():
                if "trace" in p and (trace_dir / p["trace"]).is_file():
                    page = results_page.trace_page_name(p["trace"])
                    write_text(directory / page, trace_page(read_itf(trace_dir / p["trace"])))
                    links[p["trace"]] = page
                if "certificate" in p and (trace_dir / p["certificate"]).is_file():
                    copy = f"certificates/{p['certificate']}"
                    write_text(directory / copy, read_text(trace_dir / p["certificate"], "certificate"))
                    links[p["certificate"]] = copy
    return write_text(directory / "index.html", results_page.html_page(results, links))
