"""`check-model`: check a model, replay a trace, show a trace.

`check-model MODEL` is short for `check-model check MODEL`. Exit codes: 0 every verdict
as expected, 1 a verdict differs, 2 a usage, model or spec error, 3 inconclusive (a limit
or Ctrl-C), 4 an internal error of check-model itself (its traceback is saved to a file).
"""
from __future__ import annotations

import json
import math
import os
import re
import shlex
import sys
import tempfile
import time
import tomllib
from contextlib import nullcontext
import traceback
from pathlib import Path

import click
from rich.markup import escape

from .errors import CheckerError
from .options import Store
from .engines import ENGINES, Feature
from .files import check_writable, write_text
from .output.itf import from_itf, read_itf
from .model import load_model
from . import pipeline
from .cli_conform import conform
from .cli_gate import gate, mutants, report
from .explicit.parallel import cores
from .watchdog import interrupted
from .output.progress import ProgressLine
from .output.render import console, fail, print_result, print_summary, print_trace
from .output.summary import counted
from .explicit.trace import replay as replay_trace
from .output.trace_page import trace_page


class DefaultToCheck(click.Group):
    """Treat `check-model MODEL ...` as `check-model check MODEL ...`; end every command
    with one line, never a traceback, whatever escapes it."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        """Ctrl-C anywhere (loading, searching, writing) leaves the run inconclusive: exit 3.
        A user error is exit 2; any other exception is check-model's own bug: exit 4."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as e:
            console(stderr=True).print(f"[yellow]{interrupted(e)}[/]: whatever was not "
                                       f"reported above is unknown")
            sys.exit(3)
        except CheckerError as e:
            fail(console(stderr=True), e)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as e:
            internal_error(e)


def internal_error(e: Exception):
    """Report a bug of check-model itself as one line, its traceback saved to a file for
    the bug report, and exit 4: so "my input is wrong" (exit 2) is never confused with it."""
    path = Path(tempfile.gettempdir()) / \
        f"check-model-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    try:
        path.write_text(shlex.join(sys.argv) + "\n\n" + "".join(traceback.format_exception(e)))
        saved = f"traceback saved to {path}"
    except OSError:
        saved = "the traceback could not be saved"
    message = (str(e).splitlines() or [""])[0]
    console(stderr=True).print(escape(f"check-model: internal error: {type(e).__name__}: "
                                      f"{message} ({saved}); please report"), soft_wrap=True)
    sys.exit(4)


@click.group(cls=DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="check-model")
def main():
    """Model-check specs written as Python transition relations.

    \b
    check-model models/rayjob.toml          check a model (same as `check ...`)
    check-model replay TRACE MODEL          re-validate a trace against a spec
    check-model show TRACE                  print a trace step by step
    check-model show TRACE --html FILE      ... or write it as a web page
    check-model certify CERT... MODEL       re-check proof certificates

    \b
    Exit codes: 0 as expected, 1 a verdict differs, 2 a usage, model or spec
    error, 3 inconclusive (a limit or Ctrl-C), 4 an internal error of check-model.
    """


def _parse_const(ctx, param, values):
    parsed = {}
    for item in values:
        name, sep, text = item.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_]\w*", name):
            raise click.BadParameter(f"expected NAME=VALUE, got {item!r}")
        try:
            parsed[name] = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            parsed[name] = text                      # a bare word is a string
    return parsed


def _not_nan(ctx, param, value):
    if value is not None and math.isnan(value):
        raise click.BadParameter("nan is not a number of seconds")
    return value


@main.command()
@click.argument("model", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-D", "--const", "consts", multiple=True, callback=_parse_const, metavar="NAME=VALUE",
              help="Override a constant of the model (repeatable).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the machine-readable result here.")
@click.option("--traces", "trace_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("traces"), show_default=True,
              help="Directory for counterexample and witness traces (ITF JSON).")
@click.option("--max-states", type=click.IntRange(min=1), help="Stop after this many distinct states.")
@click.option("--max-seconds", type=click.FloatRange(min=0, min_open=True), callback=_not_nan,
              help="Stop after this long.")
@click.option("--deadlock/--no-deadlock", default=None, help="Report states without successors.")
@click.option("-p", "--property", "properties", multiple=True, help="Check only this property (repeatable).")
@click.option("--engine", type=click.Choice(sorted(ENGINES)),
              help="Engine to use instead of the model's [check] engine: " +
                   "; ".join(f"{name}, {e.summary}" for name, e in ENGINES.items()) +
                   " (what each takes: docs/engines.md).")
@click.option("--store", type=click.Choice([s.value for s in Store]),
              help="Visited states of the interpreter: kept whole (exact), as 64-bit "
                   "fingerprints, or auto: exact up to 262,144 states, then fingerprints. "
                   "Liveness keeps them whole.")
@click.option("--workers", type=click.IntRange(min=1),
              help="Processes for the explicit search (default: every core): a level of "
                   "4,096 states or more is split among them by a hash of the variables "
                   "that seldom change (same counts and verdicts as one; liveness and "
                   "--store exact run in one); threads for the bulk engine.")
@click.option("--ray", "ray_address", is_flag=False, flag_value="local", metavar="[ADDRESS]",
              help="Run the workers as Ray actors, on the cluster at ADDRESS (e.g. "
                   "ray://head:10001 or auto) or, with no ADDRESS, on a local one started "
                   "here; --workers then defaults to the cluster's CPUs. Needs "
                   "pip install -e '.[ray]'.")
@click.option("--simulate", is_flag=True,
              help="Random walks instead of the whole search (the simulate engine): finds "
                   "violations in models too large to exhaust, proves nothing.")
@click.option("--walks", type=click.IntRange(min=1),
              help="Simulation: how many walks (default 1,000; with --max-seconds and no --walks, "
                   "as many as the time allows).")
@click.option("--depth", type=click.IntRange(min=1),
              help="Stop the search at this depth; a simulation's walks take at most this "
                   "many steps (default 100).")
@click.option("--seed", type=int, help="Simulation: the seed of the walks (default 0); the same "
                                       "seed gives the same walks and traces.")
@click.option("--traces-per-property", "per_property", type=click.IntRange(min=1),
              help="Up to K traces for each property that has one, ending in K different "
                   "states, shortest first (default 1).")
@click.option("--no-symmetry", is_flag=True,
              help="Store every state, not one per orbit of the model's [check] symmetry.")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")
@click.option("-v", "--verbose", is_flag=True,
              help="Every verdict as a table, the statistics, each warning on its own line.")
def check(model, consts, json_path, trace_dir, max_states, max_seconds, deadlock, properties,
          engine, store, workers, ray_address, simulate, walks, depth, seed, per_property,
          no_symmetry, quiet, verbose):
    """Explore every interleaving of MODEL and give each property a verdict."""
    out, err = console(), console(stderr=True)
    check_writable(json_path, trace_dir)
    if simulate and engine not in (None, "simulate"):
        raise click.UsageError(f"--simulate runs the simulate engine, not --engine {engine}")
    m = load_model(model, consts)
    if simulate:
        m.engine = "simulate"
    if engine:
        m.engine = engine
    if m.engine == "simulate" and max_seconds and not walks:
        m.options.walks = None                  # walk until the time is up
    for option, value, flag in (
            ("walks", walks, "--walks"), ("seed", seed, "--seed"), ("max_depth", depth, "--depth"),
            ("traces_per_property", per_property, "--traces-per-property"),
            ("max_states", max_states, "--max-states"), ("max_seconds", max_seconds, "--max-seconds"),
            ("deadlock", deadlock, "--deadlock"), ("properties", list(properties) or None, "-p"),
            ("store", store and Store(store), "--store"), ("workers", workers, "--workers"),
            ("ray", ray_address, "--ray")):
        if value is not None:
            m.set_option(option, value, flag)
    if workers is None and not ray_address and Feature.WORKERS in ENGINES[m.engine].accepts:
        m.options.workers = cores()             # Ray: the cluster's CPUs
    if no_symmetry:
        m.options.symmetry = []
    with nullcontext() if quiet else ProgressLine(err) as progress:
        result = pipeline.check(m, trace_dir, progress).result
    for p in result.properties:
        if p.certificate_path is not None:
            path = escape(p.certificate_path)
            out.print(f"{escape(p.name)}: {escape(p.reason or '')}, certificate {path}"
                      f"  (check-model certify {path} {escape(str(model))})")
    if json_path:
        write_text(json_path, json.dumps(result.to_json(), indent=1) + "\n")
    print_result(out, result, verbose)
    if result.interrupted:
        sys.exit(3)
    sys.exit(result.exit_code)


@main.command()
@click.argument("trace", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("model", type=click.Path(dir_okay=False, path_type=Path))
def replay(trace, model):
    """Re-validate TRACE step by step against the spec of MODEL."""
    out, err = console(), console(stderr=True)
    try:
        machine = load_model(model).machine()
        report = replay_trace(machine, from_itf(machine, read_itf(trace), str(trace)))
    except CheckerError as e:
        fail(err, e)
    if report.ok:
        out.print(f"[green]ok[/]: {escape(f'{trace}: {report.message}')}", soft_wrap=True)
        sys.exit(0)
    verdict = "diverges" if report.diverged_at is not None else "not shown"
    out.print(f"[red]{verdict}[/]: {escape(f'{trace}: {report.message}')}", soft_wrap=True)
    sys.exit(1)


@main.command()
@click.argument("certs", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.argument("model", type=click.Path(dir_okay=False, path_type=Path))
def certify(certs, model):
    """Re-check proof certificates (inductive invariants) against MODEL's spec, read once
    for all of them."""
    from .symbolic.certificate import Certificate, Certifier
    out, err = console(), console(stderr=True)
    try:
        m = load_model(model)
        m.engine = "pdr"
        certificates = [Certificate.read(cert) for cert in certs]
        certifier = Certifier(m.bound())
        failures = [certifier.check(c) for c in certificates]
    except CheckerError as e:
        fail(err, e)
    for certificate, failed in zip(certificates, failures):
        if not failed:
            out.print(f"[green]certified[/]: {escape(certificate.property)} holds in every "
                      f"reachable state (initiation, consecution and safety of the invariant "
                      f"re-checked)", soft_wrap=True)
        else:
            out.print(f"[red]not certified[/]: {escape(str(certificate.source))}: "
                      f"{escape(', '.join(failed))} fails", soft_wrap=True)
    failed = sum(map(bool, failures))
    print_summary(out, f"FAIL: {failed} of {counted(len(certificates), 'certificate')} not "
                       f"certified" if failed else
                       f"OK: {counted(len(certificates), 'certificate')} certified")
    sys.exit(1 if failed else 0)


@main.command()
@click.argument("trace", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the trace as one self-contained HTML page here (open it in a browser).")
@click.option("--all", "bookkeeping", is_flag=True,
              help="Also the spec's bookkeeping variables (informer caches, version flags: "
                   "Bookkeeping[...]); the web page has them folded away.")
def show(trace, html_path, bookkeeping):
    """Print TRACE as a table of what changed at each step, or write it as a web page."""
    try:
        check_writable(html_path)
        if html_path and os.path.exists(html_path) and os.path.exists(trace) and \
                html_path.samefile(trace):
            raise CheckerError("--html names the trace it would show: the page would overwrite "
                               "it (write it to another file)", str(html_path))
        data = read_itf(trace)
        if html_path:
            write_text(html_path, trace_page(data))
    except CheckerError as e:
        fail(console(stderr=True), e)
    if html_path:
        console().print(f"wrote {escape(str(html_path))} ({len(data['states'])} states)", soft_wrap=True)
    else:
        print_trace(console(), data, bookkeeping)


main.add_command(gate)
main.add_command(mutants)
main.add_command(report)
main.add_command(conform)
