"""PDR / IC3 with Z3's Spacer, over constrained Horn clauses:

    Inv(x)  <-  Valid(x) /\\ Init(x)
    Inv(x') <-  Inv(x) /\\ K(x) /\\ Next(x, x') /\\ K(x')       K = Valid /\\ L
    false   <-  Inv(x) /\\ K(x) /\\ Bad(x)

Unsatisfiable means no bad state is reachable, and Spacer's solution for Inv is an
inductive invariant (relative to K); satisfiable means one is reachable: BMC then finds
the shortest trace. Each query ranges over the cone of influence of its Bad (`Cones`):
the state it depends on, not the ghosts and bookkeeping of the others.

A large spec is proved in small parts, as a chain. Each disjunct of a goal's bad states
is a part; Next leaves out the steps that fail (raise, or leave their domain), and each
failure condition is a part of its own. A part proved joins the chain, and L is the
chain so far (its conjuncts that read the cone): the lemmas the next part stands on.
The parts are tried in passes, the time slice growing fourfold after a pass that proved
nothing, so the easy ones are proved first and help the hard ones. The conjunction of
the chain is inductive; it is the certificate of every goal whose parts and failures are
all proved, and `check-model certify` re-checks it. (On RayJob, Spacer finds no
invariant for all failures at once in 15 minutes; one at a time, most take seconds.)

Before Spacer, the chain starts with Houdini: every open part, and every invariant the
spec declares (chosen or not: they are the spec author's lemmas; the model's `[check]
lemmas` may restrict them), is a candidate; a candidate false after some step from a
state where all candidates hold is dropped, until the rest is inductive together. That
proves at once what is inductive only in company (on RayJob, the lemmas about the
operator's memory and the properties they carry), in a few solver calls over the whole
relation. The candidates kept are derived once per spec and settings and cached
(`LemmaStore`): a later run starts from them alone, and its one round shows them
inductive again (or finds the entry stale and derives them afresh).
"""
from __future__ import annotations

import collections
import dataclasses
import fnmatch

import z3

from ..lang.domains import OutOfDomain
from ..lang.dsl import Kind
from ..output.render import itf_diff, itf_text
from .bmc import search
from .certificate import Certificate, SharedInvariant
from .cone import Cones, conjuncts
from .engine import Goal, SymbolicEngine
from .interrupt import answer
from .store import LemmaStore
from .terms import identical

FIRST_SLICE = 2.0               # seconds per part in the first pass
QUICK = 4.0                     # seconds a Houdini round first tries on the kept solver (0: none)


@dataclasses.dataclass
class _Part:
    """Some bad states of a goal (None: a failure condition), proved or refuted alone."""

    goal: Goal | None
    bad: z3.BoolRef
    state: str = "open"                 # open, proved, reachable, stuck
    reason: str = ""                    # why it is stuck
    cone: object = None


@dataclasses.dataclass
class _Proof:
    invariant: z3.BoolRef               # inductive, given the proofs before it
    leaves: list

    def __post_init__(self):
        self.lemmas = conjuncts(self.invariant)


class PDR(SymbolicEngine):
    name = "pdr"

    def decide(self, rel, goals, stats):
        parts = [_Part(g, d) for g in goals for d in _disjuncts(g.bad)]
        parts += [_Part(None, c) for c in _distinct([f.condition for f in rel.failures])]
        derived = LemmaStore(rel.machine, [g.name for g in goals], self.options.lemmas)
        chain = self._prove(rel, parts, self._houdini(rel, parts, goals, derived, derived.load()))
        failures = [p for p in parts if p.goal is None]
        if any(p.state == "reachable" for p in failures):
            list(search(rel, [], self.depth_bound, self))    # raises the spec error
            for p in failures:
                if p.state == "reachable":
                    p.state, p.reason = "stuck", f"a step that fails is reachable beyond " \
                                                 f"depth {self.depth_bound}"
        used = {leaf.get_id() for proof in chain for leaf in proof.leaves}
        leaves = [leaf for leaf in rel.flat if leaf.get_id() in used]
        whole = SharedInvariant(z3.And([proof.invariant for proof in chain]),
                                leaves + list(rel.params.values()))
        for g in goals:
            yield self._result(rel, g, [p for p in parts if p.goal is g], failures, whole,
                               len(leaves), len(chain))

    def _houdini(self, rel, parts: list[_Part], goals, derived: LemmaStore,
                 kept: set | None) -> list[_Proof]:
        """The largest set of candidates (the open parts, and the spec's other invariants
        as lemmas) that is inductive together: the first proof of the chain, which proves
        the parts in it. A step that breaks some candidate drops each one it breaks. A
        lemma is split as a goal is, into conjuncts: a step that breaks one conjunct drops
        that one only (whole, a lemma fell with it, and what it carried fell after it).
        The candidates kept are stored (`derived`); a later run on the same spec and
        settings starts from those alone (`kept`), so that its first round, which shows
        them inductive, is its last. Where they are not (a candidate false initially or
        broken by a step), the entry is stale: Houdini starts again from every candidate."""
        lemmas, left_out = _lemmas(rel, goals, self.options.lemmas,
                                   None if kept is None else {c[1] for c in kept if c[0] == "lemma"})
        if left_out:
            self.report(f"pdr: {left_out} of the spec's invariants are no candidates "
                        f"(not in [check] lemmas)")
        candidates = {("part", n): z3.Not(p.bad) for n, p in enumerate(parts)}
        candidates.update({("lemma", name, j): z3.Not(d) for name, f in lemmas
                           for j, d in enumerate(_disjuncts(z3.Not(f)))})
        candidates.update({("range", i): f for i, f in enumerate(written_ranges(rel))})
        if kept is not None:
            candidates = {k: f for k, f in candidates.items() if k in kept}
            self.report(f"pdr: Houdini starts from the {len(candidates)} candidates it kept "
                        f"before on this spec and these settings (the lemma cache)")
        initial = z3.Solver()
        initial.add(rel.valid, rel.is_initial(rel.flat))
        alive = {k: f for k, f in candidates.items()
                 if answer(initial.check, z3.Not(f)) == z3.unsat}
        xs2, which = rel.copy("next"), z3.Int("houdini!step")
        transition = [rel.valid, rel.next(xs2, which), rel.rename(rel.valid, xs2)]
        after = {k: rel.rename(f, xs2) for k, f in alive.items()}
        broken_by = {}                          # a goal's part -> the step that broke it
        breaker = _Breaker(transition, alive, after,
                           expect_inductive=kept is not None or self.options.lemmas is not None)
        outcome = z3.unsat
        while alive:
            outcome, model = breaker.check(alive, self.seconds_left)
            if outcome != z3.sat:
                break
            for k in [k for k in alive if z3.is_false(model.eval(after[k], model_completion=True))]:
                del alive[k]
                broken_by[k] = (rel.steps[model.eval(which, model_completion=True).as_long()],
                                _codes(rel, model, rel.flat), _codes(rel, model, xs2))
        if alive and outcome != z3.unsat:       # out of time: nothing shown inductive
            self.report("pdr: Houdini ran out of time")
            return []
        if kept is not None and set(alive) != kept:
            self.report("pdr: the lemma cache's candidates are not inductive together here: "
                        "Houdini starts again from every candidate")
            return self._houdini(rel, parts, goals, derived, None)
        if kept is None:
            derived.save(set(alive))
        proved = [p for n, p in enumerate(parts) if ("part", n) in alive]
        counts = collections.Counter(k[0] for k in candidates)
        alive_counts = collections.Counter(k[0] for k in alive)
        self.report(f"pdr: {len(proved)} of {len(parts)} parts inductive together with "
                    f"{alive_counts['lemma']} of {counts['lemma']} parts of {len(lemmas)} lemmas"
                    + (f" and {alive_counts['range']} value ranges" if alive_counts["range"] else "")
                    + " (Houdini)")
        fell = {k[1]: step.binding.label if step.binding else "an initial state"
                for k, (step, _, _) in broken_by.items() if k[0] == "lemma"}
        if fell:                                # where a lemma the spec offers did not hold
            self.report("pdr: lemmas not inductive here, each with a step that broke it: "
                        + ", ".join(f"{name} ({label})" for name, label in sorted(fell.items())))
        kept_lemmas = {k[1] for k in alive if k[0] == "lemma"}
        whole = sorted(name for name, _ in lemmas if name not in kept_lemmas)
        if whole:                               # the lemmas this proof does without
            self.report(f"pdr: lemmas of which no part is kept: {', '.join(whole)}")
        reads = {q.name: q.reads for q in self.machine.properties}
        for n, p in enumerate(parts):           # where to look for the lemma it lacks
            broke, pre, post = broken_by.get(("part", n), (None, None, None))
            if broke is not None and p.goal is not None and broke.binding is not None:
                self.report(f"pdr: {p.goal.name} is not inductive with the other candidates: "
                            f"{broke.binding.label} leads out of it ("
                            f"{_step_out(self.machine, reads.get(p.goal.name, -1), pre, post)})")
        if not proved:
            return []
        for p in proved:
            p.state = "proved"
        return [_Proof(z3.And(list(alive.values())), rel.flat)]

    def _prove(self, rel, parts: list[_Part], chain: list[_Proof]) -> list[_Proof]:
        """Passes over the open parts; after a pass that proved nothing new, the slice is
        four times longer. A part of a goal already refuted is not tried."""
        cones, slice_, refuted = Cones(rel), FIRST_SLICE, set()
        while not self.out_of_time():
            todo = [p for p in parts if p.state == "open" and id(p.goal) not in refuted]
            if not todo:
                break
            before = len(chain)
            for p in todo:
                if id(p.goal) not in refuted:
                    self._solve(cones, p, chain, slice_)
                    if p.state == "reachable" and p.goal is not None:
                        refuted.add(id(p.goal))
            done = sum(p.state == "proved" for p in parts)
            self.report(f"pdr: {done} of {len(parts)} parts proved after a pass with "
                        f"{slice_:g} s per part")
            if len(chain) == before:            # new lemmas: another pass, same slice
                slice_ *= 4
        return chain

    def _result(self, rel, goal, own: list[_Part], failures: list[_Part],
                whole: SharedInvariant, used: int, proofs: int):
        if any(p.state == "reachable" for p in own):
            for _, finding in search(rel, [goal], self.depth_bound, self):
                return goal.found(finding, "shortest")
            return goal.found((None, f" beyond depth {self.depth_bound}: no trace"), "PDR: a")
        if any(p.state != "proved" for p in own):
            return goal.unknown(self._unproved(own, "parts of the property"))
        if any(p.state != "proved" for p in failures):
            return goal.unknown("proved for the steps that do not fail, but " +
                                self._unproved(failures, "failure conditions"))
        cert = Certificate.of(rel.machine, goal, whole)
        joined = f", in a chain of {proofs} proofs" if proofs > 1 else ""
        return goal.excluded(f"inductive invariant of {cert.size} clauses, over "
                             f"{used} of {len(rel.flat)} leaves{joined}",
                             certificate=cert)

    def _unproved(self, parts: list[_Part], what: str) -> str:
        """Why some of `parts` are not proved: Spacer gave up, or time ran out."""
        left = [p for p in parts if p.state != "proved"]
        stuck = [p.reason for p in left if p.state == "stuck"]
        limit = self.options.max_seconds
        why = stuck[0] if stuck else f"time limit {limit:g} s reached" if limit else "time out"
        return f"{len(left)} of {len(parts)} {what} not proved ({why})"

    def _solve(self, cones: Cones, part: _Part, chain: list[_Proof], slice_: float):
        """Is a state in `part.bad` reachable by steps that do not fail? A proof joins the
        chain; a time-out leaves the part open, for the next pass."""
        seconds = min(slice_, self.seconds_left())
        if seconds <= 0:
            return
        if part.cone is None:
            part.cone = cones.of(part.bad)
        rel = part.cone
        args = rel.flat + list(rel.params.values())
        lemma = z3.And([c for p in chain for c in p.lemmas if rel.within(c)])
        known = z3.And(rel.valid, lemma)            # so that Spacer need not learn them
        inv = z3.Function("Inv", *[a.sort() for a in args], z3.BoolSort())
        xs2 = rel.copy("next")
        fp = z3.Fixedpoint()
        fp.set(engine="spacer", timeout=_milliseconds(seconds))
        fp.register_relation(inv)
        fp.declare_var(*args, *xs2)
        fp.rule(inv(*args), z3.And(rel.valid, rel.is_initial(rel.flat)))
        fp.rule(inv(*xs2, *rel.params.values()),
                z3.And(inv(*args), known, rel.next(xs2), rel.rename(known, xs2)))
        try:
            outcome = answer(fp.query, z3.And(inv(*args), known, part.bad))
        except z3.Z3Exception:                      # Spacer cancels at its timeout: open
            return
        if outcome == z3.unsat:
            part.state = "proved"
            chain.append(_Proof(z3.substitute_vars(fp.get_cover_delta(-1, inv), *args),
                                rel.flat))
        elif outcome == z3.sat:
            part.state = "reachable"
        elif not any(word in fp.reason_unknown() for word in ("canceled", "timeout")):
            part.state, part.reason = "stuck", f"Spacer gave up: {fp.reason_unknown()}"


def _codes(rel, model, xs) -> list:
    """Each variable's code in `model`; None where the model holds a value outside the
    variable's domain (Houdini's states are only as valid as its candidates say)."""
    values = rel.split([model.eval(x, model_completion=True) for x in xs])
    codes = []
    for v, shape, part in zip(rel.machine.variables, rel.shapes, values):
        try:
            codes.append(v.domain.encode(shape.decode(part)))
        except (OutOfDomain, IndexError):     # (an enum's index past its members)
            codes.append(None)
    return codes


def _step_out(m, reads: int, pre: list, post: list) -> str:
    """A counterexample to induction as a trace shows a step: what it changed, then what
    else the property reads (-1: all, not listed) as it was: where the lemma it lacks
    must say no. A value outside its domain (None) shows as such."""
    def shown(v, code):
        return {"#unserializable": "(outside its domain)"} if code is None else \
            v.domain.to_itf(v.domain.plain(code))
    changed, kept = [], []
    for v, a, b in zip(m.variables, pre, post):
        old, new = shown(v, a), shown(v, b)
        if a != b:
            changed += itf_diff(v.name, old, new)
        elif reads != -1 and reads >> v.index & 1:
            kept.append(f"{v.name} = {itf_text(old)}")
    return "; ".join(filter(None, [", ".join(changed), kept and "with " + ", ".join(kept)]))


class _Breaker:
    """Houdini's rounds: a step from a state where every live candidate holds to one where
    some does not. First on one solver kept from round to round, the candidates switched
    on by assumption, within `QUICK` seconds: what it learnt stays, and on
    proofs/slow/driver_once its fifteen rounds that each broke a candidate took 23 s, where
    a fresh solver per round spent 48 s on seventeen (each preprocesses the whole relation
    again). Where it cannot tell in time, a fresh preprocessing solver answers: much the
    faster to show that no step breaks any candidate (the last round: on proofs/no_faults,
    22 s, where the kept solver had not answered in 8; on driver_once it had not in 20). A
    run that starts from the candidates the lemma cache holds (or that a model's `[check]
    lemmas` names) expects its first round to be that last one: it goes to the fresh
    solver at once."""

    def __init__(self, transition: list, alive: dict, after: dict, expect_inductive: bool):
        self.transition, self.after, self.rounds = transition, after, 0
        self.expect_inductive = expect_inductive
        self.kept = z3.Solver()
        self.kept.add(*transition)
        self.on = {k: z3.Bool(f"houdini!on{n}") for n, k in enumerate(alive)}
        self.kept.add(*[z3.Implies(self.on[k], f) for k, f in alive.items()])

    def check(self, alive: dict, seconds_left) -> tuple:
        """(sat and a model of a breaking step, or unsat, or unknown when out of time)."""
        some = z3.Or([z3.Not(self.after[k]) for k in alive])
        self.rounds += 1
        if QUICK > 0 and not (self.expect_inductive and self.rounds == 1):
            asked = z3.Bool(f"houdini!round{self.rounds}")
            self.kept.add(z3.Implies(asked, some))
            self.kept.set(timeout=_milliseconds(min(QUICK, seconds_left())))
            outcome = answer(self.kept.check, asked, *[self.on[k] for k in alive])
            if outcome != z3.unknown or seconds_left() <= 0:
                return outcome, self.kept.model() if outcome == z3.sat else None
        fresh = _preprocessing_solver()
        if seconds_left() < float("inf"):
            fresh.set(timeout=_milliseconds(seconds_left()))
        fresh.add(*self.transition, *alive.values(), some)
        outcome = answer(fresh.check)
        return outcome, fresh.model() if outcome == z3.sat else None


def _preprocessing_solver() -> z3.Solver:
    """A solver for one query, that first simplifies it: propagates values, solves
    equations (x' = its next-state term), drops unconstrained terms. A solver used
    incrementally (push, pop) skips that preprocessing: Houdini's last query on
    proofs/no_faults, the one that shows the candidates inductive, took 36-42 s on one,
    20 s on this."""
    return z3.Then("simplify", "propagate-values", "solve-eqs", "elim-uncnstr", "smt").solver()


def _milliseconds(seconds: float) -> int:
    """A solver timeout: Z3 takes milliseconds, and 0 would mean none."""
    return max(1, int(seconds * 1000))


def written_ranges(rel) -> list:
    """Lemmas true by construction: a leaf that every step leaves unchanged, sets to a
    constant or copies from another such leaf only ever holds the constants that reach
    it, from the initial state on (a fixpoint over those copies). They cost Houdini
    nothing (they are inductive together) and pin down what the model's constants switch
    off (an ex-leader's memory without failovers, a timer nothing arms), which the other
    candidates would otherwise have to hold for arbitrary values of it. A relation
    between leaves (an absent Option's fields hold False) is no range: not found here."""
    position = {leaf.get_id(): j for j, leaf in enumerate(rel.flat)}

    def origins(t) -> list | None:
        """The leaves and constants a written term takes its value from; None: computed
        (or a symbol that is no leaf: a symbolic constant such as the fault budget)."""
        if t.get_id() in position:
            return [position[t.get_id()]]
        if t.num_args() == 0:
            return None if t.decl().kind() == z3.Z3_OP_UNINTERPRETED else [t]
        if z3.is_app_of(t, z3.Z3_OP_ITE):
            then, other = origins(t.arg(1)), origins(t.arg(2))
            return None if then is None or other is None else then + other
        return None

    sources: dict[int, list] = {}              # leaf -> constants and leaves written to it
    for j, leaf in enumerate(rel.flat):
        written = [s.next[j] for s in rel.init]
        written += [s.next[j] for s in rel.steps if not identical(s.next[j], leaf)]
        found = [origins(z3.simplify(t)) for t in written]
        if all(f is not None for f in found):
            sources[j] = [s for f in found for s in f]
    unknown = [j for j in range(len(rel.flat)) if j not in sources]
    while unknown:                              # what copies a leaf of unknown values
        gone = set(unknown)
        unknown = [j for j in sources if any(s in gone for s in sources[j] if isinstance(s, int))]
        for j in unknown:
            del sources[j]
    values = {j: {} for j in sources}
    changed = True
    while changed:
        changed = False
        for j, known in values.items():
            for s in sources[j]:
                for v in values[s].values() if isinstance(s, int) else [s]:
                    if v.get_id() not in known:
                        known[v.get_id()] = v
                        changed = True
    domains = z3.Solver()
    domains.add(rel.valid)
    ranges = [z3.Or([rel.flat[j] == v for v in known.values()])
              for j, known in values.items() if known]
    return [r for r in ranges if answer(domains.check, z3.Not(r)) == z3.sat]   # not implied


def _lemmas(rel, goals, patterns: list[str] | None, kept: set[str] | None) \
        -> tuple[list[tuple[str, z3.BoolRef]], int]:
    """The spec's invariants that are not goals, by name: candidate lemmas for Houdini, but for
    those true in every state under the model's constants (a lemma whose guard is false
    in this setting: it would only weigh on every solver call), those no pattern of
    `patterns` matches (None: every one may be a lemma) and those not in `kept`, the lemmas
    of which Houdini kept a part before (None: no such set); and how many those patterns
    left out. Those left out are not read at all: reading a formula costs too."""
    chosen = {g.name for g in goals}
    others = [p for p in rel.machine.properties if p.kind == Kind.INVARIANT and p.name not in chosen]
    matched = [p for p in others
               if patterns is None or any(fnmatch.fnmatchcase(p.name, q) for q in patterns)]
    named = [(p.name, rel.formula(p.fn, p.name)) for p in matched if kept is None or p.name in kept]
    return [(name, f) for name, f in named if not z3.is_true(z3.simplify(f))], \
        len(others) - len(matched)


def _disjuncts(bad) -> list:
    """The bad states as a union of smaller sets: Or(a, b), Not(And(a, b)) split."""
    bad = z3.simplify(bad)
    if z3.is_or(bad):
        return [d for c in bad.children() for d in _disjuncts(c)]
    if z3.is_not(bad) and z3.is_and(bad.arg(0)):
        return [d for c in bad.arg(0).children() for d in _disjuncts(z3.Not(c))]
    return [bad]


def _distinct(conditions) -> list:
    seen, out = set(), []
    for c in conditions:
        c = z3.simplify(c)
        if c.hash() not in seen:
            seen.add(c.hash())
            out.append(c)
    return out
