"""`check-model gate` and `check-model mutants`: the commands CI runs."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click
from click.core import ParameterSource
from rich.markup import escape

from . import gate as g
from .output import reports
from .errors import CheckerError
from .files import check_writable, write_text
from .output.gate_page import write_site
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
@click.option("--traces", "trace_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("traces"), show_default=True,
              help="Directory for traces and proof certificates.")
@click.option("--all", "include_slow", is_flag=True,
              help="Check the models in slow/ folders too (left out unless named).")
@click.pass_context
def gate(ctx, paths, rev, changed, baseline, update_baseline, junit, sarif, markdown, html_dir,
         trace_dir, include_slow):
    """Re-check models (default: every model under models/) against their [expect].

    Models in slow/ folders below the directories searched are left out unless --all
    is given or they are named. Exit 0 all as expected, 1 something moved (a verdict,
    a dead action, a lost witness), 2 a model could not be checked, 3 nothing moved
    but something is unknown.
    """
    out, err = console(), console(stderr=True)
    try:
        check_writable(junit, sarif, markdown, html_dir, trace_dir,
                       baseline if update_baseline else None)
        default = [Path("models")] if Path("models").is_dir() else []     # none: nothing to do
        models, skipped = g.discover(default if changed else list(paths) or default, include_slow)
        if rev:
            models = g.changed_models(models, rev)
        if changed:
            models = g.touched_models(models, list(paths), Path.cwd())
            if ctx.get_parameter_source("trace_dir") is ParameterSource.DEFAULT:
                trace_dir = Path(tempfile.gettempdir()) / "check-model-traces"   # not in the work tree
        recorded = g.load_baseline(baseline)
    except CheckerError as e:
        fail(err, e)
    if skipped:
        out.print(f"skipped (slow; --all checks them): {escape(', '.join(map(str, skipped)))}")
    outcomes = []
    for path in models:
        o = g.check_model(path, recorded, trace_dir)
        outcomes.append(o)
        stats = f"{o.result.stats.distinct_states:,} states, {o.result.stats.seconds:.1f} s" \
            if o.result else ""
        out.print(f"[{_STYLE[o.status]}]{o.status:7}[/] {escape(g.key(path))}  {stats}")
        for line in o.moved + ([o.error] if o.error else []):
            out.print(f"        [red]✗[/] {escape(line)}", soft_wrap=True)
        for line in o.notes:
            out.print(f"        [dim]• {escape(line)}[/]")
    for path, text in ((junit, reports.junit), (sarif, reports.sarif), (markdown, reports.markdown)):
        if path:
            write_text(path, text(outcomes))
    if html_dir:
        write_site(html_dir, outcomes)
    if update_baseline:
        g.save_baseline(baseline, recorded, outcomes)
    since = f" (nothing changed since {rev})" if rev and not models else \
        " (no changed file touches a model)" if changed and not models else ""
    print_summary(out, g.summary(outcomes) + since)
    sys.exit(g.exit_code(outcomes))


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
            _print_outcome(out, o)
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


def _print_outcome(out, o) -> None:
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
