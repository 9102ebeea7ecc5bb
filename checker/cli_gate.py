"""`check-model gate` and `check-model mutants`: the commands CI runs."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click
from click.core import ParameterSource
from rich.markup import escape

from . import gate as g
from .matrix import is_matrix, load_matrix
from .output import reports, results_file, results_page
from .errors import CheckerError
from .files import check_writable, read_text, write_text
from .output.gate_page import write_results_site, write_site
from .mutants import load_catalog, run_catalog, select
from .output.render import console, fail, print_summary
from .output.summary import counted, listed

_STYLE = {"ok": "green", "moved": "red", "error": "red", "unknown": "yellow"}


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--only-changed", "rev", metavar="REV",
              help="Check only models whose model file or spec changed since git REV.")
@click.option("--changed", is_flag=True,
              help="PATHS are files that changed (as pre-commit passes them): check the "
                   "models under models/ they touch; traces go to a temporary folder "
                   "unless --traces is given.")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path),
              default=Path(g.BASELINE), show_default=True, help="Recorded states, actions, witnesses.")
@click.option("--update-baseline", is_flag=True, help="Record this run as the new baseline.")
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), help="Write JUnit XML here.")
@click.option("--sarif", type=click.Path(dir_okay=False, path_type=Path), help="Write SARIF here.")
@click.option("--markdown", type=click.Path(dir_okay=False, path_type=Path),
              help="Write a Markdown summary (for a pull-request comment) here.")
@click.option("--html", "html_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write an index of every model's verdicts here, each trace a web page.")
@click.option("--results", "results_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Record every matrix cell checked in this results file (`check-model "
                   "report` renders it); its other cells are kept while their inputs are unchanged.")
@click.option("--traces", "trace_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("traces"), show_default=True,
              help="Directory for traces and proof certificates.")
@click.option("--all", "include_slow", is_flag=True,
              help="Check the models in slow/ folders too (left out unless named).")
@click.pass_context
def gate(ctx, paths, rev, changed, baseline, update_baseline, junit, sarif, markdown, html_dir,
         results_path, trace_dir, include_slow):
    """Re-check models (default: every model under models/) against their [expect].

    Models in slow/ folders below the directories searched are left out unless --all
    is given or they are named. Exit 0 all as expected, 1 something moved (a verdict,
    a dead action, a lost witness), 2 a model could not be checked, 3 nothing moved
    but something is unknown.
    """
    out, err = console(), console(stderr=True)
    try:
        check_writable(junit, sarif, markdown, html_dir, results_path, trace_dir,
                       baseline if update_baseline else None)
        default = [Path("models")] if Path("models").is_dir() else []     # none: nothing to do
        models, skipped = g.discover(default if changed else list(paths) or default, include_slow)
        if rev:
            models = g.changed_models(models, rev)
        if changed:
            models = g.touched_models(models, list(paths), Path.cwd())
            if ctx.get_parameter_source("trace_dir") is ParameterSource.DEFAULT:
                trace_dir = Path(tempfile.gettempdir()) / "check-model-traces"   # not in the work tree
        checks, slow_cells = g.expand(models, include_slow)
        recorded = g.load_baseline(baseline)
        results = results_file.load_results(results_path) if results_path else None
    except CheckerError as e:
        fail(err, e)
    skipped = [*map(str, skipped), *slow_cells]
    if skipped:
        out.print(f"skipped (slow; --all checks them): {escape(', '.join(skipped))}")
    outcomes = []
    for target in checks:
        o = g.check_model(target, recorded, trace_dir)
        outcomes.append(o)
        _print_outcome(out, o, f"{o.result.stats.distinct_states:,} states, "
                               f"{o.result.stats.seconds:.1f} s" if o.result else "")
    for path, text in ((junit, reports.junit), (sarif, reports.sarif), (markdown, reports.markdown)):
        if path:
            write_text(path, text(outcomes))
    if html_dir:
        write_site(html_dir, outcomes)
    if update_baseline:
        g.save_baseline(baseline, recorded, outcomes)
    if results_path:
        matrices = list({o.cell.matrix.path: o.cell.matrix for o in outcomes if o.cell}.values())
        results_file.save_results(results_path, results_file.merged(results, matrices, outcomes,
                                                                         trace_dir))
    since = f" (nothing changed since {rev})" if rev and not models else \
        " (no changed file touches a model)" if changed and not models else ""
    print_summary(out, g.summary(outcomes) + since)
    sys.exit(g.exit_code(outcomes))


def _print_outcome(out, o: g.ModelOutcome, stats: str) -> None:
    """A model's (or cell's) line, then a line per thing that moved and per note."""
    out.print(f"[{_STYLE[o.status]}]{o.status:7}[/] {escape(o.name)}  {stats}")
    for line in o.moved + ([o.error] if o.error else []):
        out.print(f"        [red]✗[/] {escape(line)}", soft_wrap=True)
    for line in o.notes:
        out.print(f"        [dim]• {escape(line)}[/]")


@click.command()
@click.option("--catalog", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("models/mutants.toml"), show_default=True)
@click.option("--only", multiple=True, metavar="GLOB",
              help="Check only the entries whose mutant name, model (as the catalog names it, "
                   "without .toml: rayjob/happy_F0) or property matches GLOB (repeatable).")
@click.option("--all", "include_slow", is_flag=True, help="Check the entries marked slow too.")
def mutants(catalog, only, include_slow):
    """Check every entry of CATALOG: each refutation's property is violated by its model's
    own spec, each mutant killed by its property, with the shortest counterexample as long
    as `steps` says where it is given. One line per entry and a summary; exit 1 if any
    entry is not as the catalog says."""
    out, err = console(), console(stderr=True)
    try:
        chosen = select(load_catalog(catalog), list(only), include_slow)
        missed = []
        for o in run_catalog(chosen):
            _print_entry(out, o)
            if o.missed:
                missed.append(o.entry)
    except CheckerError as e:
        fail(err, e)
    if missed:
        labels = [f"{e.name or 'refutation'} {e.label} {e.property or ''}".strip() for e in missed]
        print_summary(out, f"FAIL: {len(missed)} of {counted(len(chosen), 'entry', 'entries')} "
                           f"not as the catalog says: {listed(labels)}")
    else:
        refutations = sum(not e.is_mutant for e in chosen)
        kills = counted(len(chosen) - refutations, "mutant kill")
        print_summary(out, f"OK: {counted(refutations, 'refutation')} and {kills} as the "
                           f"catalog says")
    sys.exit(1 if missed else 0)


def _print_entry(out, o) -> None:
    """`refuted`/`killed` or `MISSED`/`SURVIVED`, what and where, the length and the time."""
    e = o.entry
    word = ("killed" if e.is_mutant else "refuted") if not o.missed else \
        ("SURVIVED" if e.is_mutant and o.steps is None else "MISSED")
    style = "red" if o.missed else "green"
    killers = ", ".join(o.killers or [e.property or "no claim"])
    what = f"{e.name} in {e.label} by {killers}" if e.is_mutant else f"{e.property} in {e.label}"
    steps = f", {o.steps} steps" if o.steps is not None and not o.missed else ""
    took = f"{o.seconds:.1f} s" if o.seconds is not None else "the same run"
    line = f"[{style}]{word:8}[/] {escape(what)}{steps} ({took})"
    if o.missed:
        line += f": {escape(o.missed)}" + (f" ({escape(e.why)})" if e.why else "")
    out.print(line, soft_wrap=True)
    if o.also_moved:
        out.print(f"         [dim]also moved, not counted as kills: "
                  f"{escape(', '.join(o.also_moved))}[/]", soft_wrap=True)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--results", "results_path", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("docs/results.json"), show_default=True,
              help="The results file (the gate's --results).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("docs"), show_default=True,
              help="Where results.md goes.")
@click.option("--html", "html_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Also write the matrix as DIR/index.html, each trace found below --traces a "
                   "page beside it.")
@click.option("--refresh", is_flag=True,
              help="Re-run the stale cells of the matrix files in PATHS (default: models/), "
                   "then write the results file and the report.")
@click.option("--check", is_flag=True,
              help="Re-run the stale cells that are not slow and fail (exit 1) if the "
                   "results or the report differ from the files written, or a slow cell is stale.")
@click.option("--all", "include_slow", is_flag=True, help="Re-run stale slow cells too.")
@click.option("--traces", "trace_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("traces"), show_default=True,
              help="Directory for the re-runs' traces, and where --html looks for them.")
@click.option("--catalog", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("models/mutants.toml"), show_default=True,
              help="The refutation catalog whose entries each property's row names (none if "
                   "the file does not exist).")
@click.option("--readme", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("README.md"), show_default=True,
              help="A file whose block between the verdict summary's markers is the summary "
                   "(left alone if it has none).")
def report(paths, results_path, out_dir, html_dir, refresh, check, include_slow, trace_dir,
           catalog, readme):
    """Write the verdict matrix (claims x settings) from the results file alone.

    With --refresh or --check, the cells whose inputs (model tables, spec and checker
    sources) changed since the results file was written are re-run first. Exit 0 the
    report is current, 1 it differs from the files written (--check) or a re-run cell
    moved, 2 a usage error (or a re-run cell could not be checked).
    """
    out, err = console(), console(stderr=True)
    try:
        if not (refresh or check or results_path.exists()):
            raise CheckerError("no results file: `check-model report --refresh` checks the "
                               "matrix files and writes it", str(results_path))
        results = results_file.load_results(results_path)
        too_slow, outcomes = [], []
        if refresh or check:
            found, _ = g.discover(list(paths) or [Path("models")], include_slow=True)
            matrices = [load_matrix(p) for p in found if is_matrix(p)]
            for m in matrices:
                for cell in results_file.stale(results, m):
                    if cell.slow and not include_slow:
                        too_slow.append(f"{g.key(m.path)}#{cell.name}")
                        continue
                    o = g.check_model(cell, {}, trace_dir)
                    _print_outcome(out, o, f"(stale, re-run: {o.cpu_seconds:.1f} s CPU)")
                    outcomes.append(o)
            results = results_file.merged(results, matrices, outcomes, trace_dir)
        entries = load_catalog(catalog) if catalog.exists() else None
        files = {out_dir / "results.md": results_page.markdown(results, entries)}
        summarised = readme.exists() and \
            results_page.with_summary(read_text(readme, "README"), results_page.summary(results))
        if summarised:
            files[readme] = summarised
        if refresh or check:
            files[results_path] = results_file.results_text(results)
        if check:
            differ = [str(p) for p, text in files.items()
                      if not p.exists() or p.read_text(encoding="utf-8") != text]
        else:
            for p, text in files.items():
                write_text(p, text)
        if html_dir:
            write_results_site(html_dir, results, trace_dir)
    except CheckerError as e:
        fail(err, e)
    if check and (differ or too_slow):
        if too_slow:
            out.print(f"stale, too slow for CI: {escape(listed(too_slow))}")
        print_summary(out, f"FAIL: {listed(differ) + ' differ' if differ else 'stale slow cells'}: "
                           f"refresh with `check-model report --refresh"
                           f"{' --all' if too_slow else ''}` and commit")
        sys.exit(1)
    if g.exit_code(outcomes):                  # a re-run cell moved: its verdict is in the report
        word, _, rest = g.summary(outcomes).partition(": ")
        print_summary(out, f"{word}: report written; the cells re-run: {rest}")
        sys.exit(g.exit_code(outcomes))
    print_summary(out, f"OK: {'the report is current' if check else 'report written'}")
