"""Bounded sequences, records with container fields, sets and maps of records, subset- and
record-valued parameters, and constants of any domain from the model file: read alike
by the explicit engines and the symbolic ones, and bad input a one-line error."""
import enum
from pathlib import Path
from typing import NamedTuple

import pytest

from checker import (Const, Int, Map, Option, Seq, Set, Spec, action, append, choose, head,
                     invariant, require, sub_seq, tail)
from checker.errors import DomainError, ModelError, SpecError
from checker.explicit.explorer import ExplicitEngine
from checker.explicit.machine import Machine
from checker.explicit.trace import replay
from checker.lang.sequences import SeqValue
from checker.model import load_model
from checker.options import CheckOptions
from checker.symbolic.bmc import BMC
from checker.symbolic.pdr import PDR
from checker.symbolic.relation import Relation
from examples.majority import Majority
from examples.missionariesandcannibals import MissionariesAndCannibals, Person
from test_symbolic import _successors
from test_tla_constructs import _states


class Node(enum.Enum):
    A = "a"
    B = "b"


class Ballot(NamedTuple):
    """A record with a set field and a sequence field."""
    owner: Node
    votes: Set[Node]
    log: Seq[Int[0, 1], 2]


class Grant(NamedTuple):
    to: Node
    by: Set[Node]


class Voting(Spec):
    quorum = Const(frozenset({Node.A, Node.B}), "who must vote", domain=Set[Node])
    start = Const((1,), "the queue at first", domain=Seq[Int[0, 1], 2])

    queue: Seq[Int[0, 1], 2] = start
    ballots: Set[Ballot] = frozenset()
    latest: Map[Node, Option[Ballot]] = Map.fill(None)
    granted: Set[Grant] = frozenset()

    @action
    def send(s, bit: Int[0, 1]):
        require(len(s.queue) < 2)
        s.queue = append(s.queue, bit)

    @action
    def receive(s):
        require(s.queue)
        s.queue = tail(s.queue)

    @action
    def propose(s, owner: Node, votes: Set[Node]):
        """`\\E votes \\in SUBSET Node`: a subset-valued parameter."""
        require(owner in votes and not s.ballots and s.queue and head(s.queue) == 1)
        ballot = Ballot(owner, votes, s.queue)
        s.ballots.add(ballot)
        s.latest[owner] = ballot

    @action
    def grant(s, g: Grant):
        """`\\E g \\in [to: Node, by: SUBSET Node]`: a record-valued parameter."""
        require(s.latest[g.to] is not None and g.by == s.latest[g.to].votes)
        s.granted.add(g)

    @invariant
    def owners_vote(s):
        return all(b.owner in b.votes and 1 in b.log for b in s.ballots)

    @invariant
    def no_quorum_granted(s):
        return not any(s.quorum <= g.by for g in s.granted)


class OwnerNeedNotVote(Voting):
    """Mutant: a ballot's owner need not vote for it, which refutes owners_vote."""

    @action
    def propose(s, owner: Node, votes: Set[Node]):
        require(not s.ballots and s.queue and head(s.queue) == 1)
        s.ballots.add(Ballot(owner, votes, s.queue))


def _verdicts(engine, m, **options):
    return {p.name: p for p in engine(m, CheckOptions(**options)).check().properties}


def test_sequence_operators_are_tlas():
    q = SeqValue((1, 2, 3), 4)
    assert (head(q), tail(q), append(q, 4), sub_seq(q, 2, 3), sub_seq(q, 3, 2)) == \
        (1, (2, 3), (1, 2, 3, 4), (2, 3), ())
    assert tail(q).capacity == append(q, 4).capacity == (q + q).capacity == 4
    assert 2 in q and len(q + (5,)) == 4
    with pytest.raises(IndexError, match="Head of the empty sequence"):
        head(SeqValue((), 4))
    with pytest.raises(OverflowError, match=r"Append to a full sequence \(capacity 4\)"):
        append(append(q, 4), 5)
    with pytest.raises(IndexError, match=r"reaches outside 1..3"):
        sub_seq(q, 0, 2)


def test_the_new_domains_list_their_values():
    m = Machine(Voting)
    domains = {v.name: v.domain for v in m.variables}
    assert domains["queue"].size == 1 + 2 + 4
    assert domains["ballots"].elem.size == 2 * 4 * 7       # owner x SUBSET Node x queues
    grants = [b for b in m.bindings if b.name == "grant"]
    assert len(grants) == 2 * 4 and len([b for b in m.bindings if b.name == "propose"]) == 2 * 4


def test_explicit_verdicts_both_ways_and_bmc_finds_them_at_the_bfs_depth():
    for spec, refuted, steps in ((Voting, "no_quorum_granted", 2), (OwnerNeedNotVote, "owners_vote", 1)):
        m = Machine(spec)
        bfs = _verdicts(ExplicitEngine, m)
        bmc = _verdicts(BMC, m, max_depth=4)
        assert bfs[refuted].verdict.value == bmc[refuted].verdict.value == "violated"
        assert len(bmc[refuted].trace.steps) - 1 == len(bfs[refuted].trace.steps) - 1 == steps
        assert replay(m, bmc[refuted].trace).ok
    assert _verdicts(ExplicitEngine, Machine(Voting))["owners_vote"].verdict.value == "holds"
    assert _verdicts(PDR, Machine(Voting))["owners_vote"].verdict.value == "holds"


def test_symbolic_successors_are_the_explicit_ones():
    m = Machine(Voting)
    rel = Relation(m)
    states = _states(m)
    assert len(states) == ExplicitEngine(m, CheckOptions(properties=[])).check().stats.distinct_states
    for st in states[::max(1, len(states) // 25)]:
        assert _successors(rel, st) == {s for _, _, s in m.successors(st)}


def test_a_subset_parameter_is_a_binding_of_the_relation():
    """The symbolic engines take the bindings of `propose(owner, votes)` as the explicit
    ones do, a subset each, and read each once: only those whose owner votes have a step."""
    rel = Relation(Machine(Voting))
    proposes = {s.binding.label for s in rel.steps if s.binding.name == "propose"}
    assert proposes == {"propose(owner=a, votes={a})", "propose(owner=a, votes={a, b})",
                        "propose(owner=b, votes={b})", "propose(owner=b, votes={a, b})"}


class Picking(Spec):
    picked: Set[Node] = frozenset()

    @action
    def pick(s):
        s.picked = choose(Set[Node])         # \E S \in SUBSET Node : picked' = S


def test_choose_from_a_set_domain_takes_each_subset_on_both_engines():
    m = Machine(Picking)
    [init] = m.initial_states()
    successors = {st for _, _, st in m.successors(init)}
    assert {m.plain(st)["picked"] for st in successors} == \
        {frozenset(), frozenset({Node.A}), frozenset({Node.B}), frozenset(Node)}
    assert _successors(Relation(m), init) == successors


class Overflowing(Spec):
    queue: Seq[Int[0, 1], 2] = ()

    @action
    def send(s):
        s.queue = append(s.queue, 1)          # no guard: the third append overflows


def test_an_append_past_the_capacity_is_an_error_at_the_spec_line():
    line = f"{__file__}:{Overflowing.send.__code__.co_firstlineno + 2}"
    with pytest.raises(SpecError, match=r"send raised SeqOverflow: Append to a full sequence "
                                        r"\(capacity 2\)") as e:
        ExplicitEngine(Machine(Overflowing), CheckOptions()).check()
    assert e.value.where == line
    with pytest.raises(SpecError, match=r"SeqOverflow.*from a state reachable in 2 steps") as e:
        BMC(Machine(Overflowing), CheckOptions(max_depth=4)).check()
    assert e.value.where == line


def test_a_longer_tuple_written_to_a_sequence_names_the_variable():
    class Concatenating(Overflowing):
        @action
        def send(s):
            s.queue = s.queue + (1, 1, 1)

    with pytest.raises(DomainError, match=r"send wrote queue = <<1, 1, 1>>, outside its domain "
                                          r"Seq\[Int\[0, 1\], 2\] \(<<1, 1, 1>> has 3 elements; "
                                          r"Seq\[Int\[0, 1\], 2\] holds at most 2\)"):
        ExplicitEngine(Machine(Concatenating), CheckOptions()).check()


def test_a_domain_too_large_to_list_is_an_error_naming_it():
    with pytest.raises(TypeError, match=r"Seq\[Int\[0, 9\], 5\] has 111111 sequences; "
                                        r"at most 65536 can be listed"):
        class Long(Spec):              # the model loader reports it at this line
            q: Seq[Int[0, 9], 5] = ()

    class Note(NamedTuple):
        marks: Map[Int[0, 9], Int[0, 9]]

    with pytest.raises(TypeError, match=r"Map\[Int\[0, 9\], Int\[0, 9\]\] has 10000000000 maps; "
                                        r"at most 65536 can be listed"):
        class Noted(Spec):
            notes: Set[Note] = frozenset()


# ---------------------------------------------------------------- constants from the model file

def _model(tmp_path: Path, constants: str) -> Path:
    path = tmp_path / "voting.toml"
    path.write_text(f'spec = "test_types:Voting"\n\n[constants]\n{constants}\n')
    return path


def test_set_and_sequence_constants_are_read_from_the_model_file(tmp_path):
    m = load_model(_model(tmp_path, 'quorum = ["b"]\nstart = [1, 0]')).machine()
    assert m.env["quorum"] == {Node.B} and m.env["start"] == (1, 0)
    assert m.plain(m.initial_states()[0])["queue"] == (1, 0)
    trace = _verdicts(ExplicitEngine, m)["no_quorum_granted"].trace
    [grant] = m.plain(trace.steps[-1].state)["granted"]
    assert Node.B in grant.by and len(trace.steps) == 3


@pytest.mark.parametrize("line,message", [
    ('quorum = ["a", "d"]', r"constant quorum: 'd' is not a Node \(one of 'A', 'B'\)"),
    ('quorum = "a"', r"constant quorum: Set\[Node\] is written as an array \[...\], got 'a'"),
    ('start = [0, 1, 1]', r"constant start: \[0, 1, 1\] has 3 elements; Seq\[Int\[0, 1\], 2\] "
                          r"holds at most 2"),
    ('start = [2]', r"constant start: 2 is not in Int\[0, 1\]"),
])
def test_a_constant_outside_its_domain_is_an_error_at_its_model_line(tmp_path, line, message):
    path = _model(tmp_path, f"# the constants\n{line}")
    with pytest.raises(ModelError, match=message) as e:
        load_model(path).machine()
    assert e.value.where == f"{path}:5"


class Pair(NamedTuple):
    left: Node
    right: Int[0, 3]


class Recorded(Spec):
    pair = Const(Pair(Node.A, 0), domain=Pair)
    weights = Const({n: 0 for n in Node}, domain=Map[Node, Int[0, 3]])
    x: Int[0, 3] = 0

    @invariant
    def fine(s):
        return s.x <= s.pair.right + s.weights[Node.B]


@pytest.mark.parametrize("text,value", [
    ('pair = {left = "b", right = 2}', Pair(Node.B, 2)),
    ('pair = ["a", 3]', Pair(Node.A, 3)),
])
def test_a_record_constant_is_a_table_or_a_tuple(tmp_path, text, value):
    path = tmp_path / "rec.toml"
    path.write_text(f'spec = "test_types:Recorded"\n[constants]\n{text}\nweights = {{a = 1, b = 2}}\n')
    m = load_model(path).machine()
    assert m.env["pair"] == value and m.env["weights"] == {Node.A: 1, Node.B: 2}


@pytest.mark.parametrize("text,message", [
    ('pair = ["b", 3, 1]', r"has 3 values; a Pair has 2 fields \(left, right\)"),
    ('pair = {left = "b"}', r"a Pair is written \{left = ..., right = ...\}"),
    ('weights = {a = 1}', r"Map\[Node, Int\[0, 3\]\] needs exactly the keys a, b"),
])
def test_a_record_or_map_constant_of_the_wrong_shape_is_an_error_at_its_line(tmp_path, text, message):
    path = tmp_path / "rec.toml"
    path.write_text(f'spec = "test_types:Recorded"\n[constants]\n{text}\n')
    with pytest.raises(ModelError, match=message) as e:
        load_model(path).machine()
    assert e.value.where == f"{path}:3"


def test_a_constant_default_outside_its_domain_is_an_error_at_its_line():
    with pytest.raises(SpecError, match=r"Const\(frozenset\(\{3\}\)\): the default 3 is not in "
                                        r"Int\[0, 1\]") as e:
        class Bad(Spec):
            members = Const(frozenset({3}), domain=Set[Int[0, 1]])
    assert e.value.where.endswith(str(test_a_constant_default_outside_its_domain_is_an_error_at_its_line
                                      .__code__.co_firstlineno + 4))


# ---------------------------------------------------------------- a port: SUBSET and set constants

class OneSeatBoat(MissionariesAndCannibals):
    """Mutant: the boat carries one person, who must row back: the east bank never empties."""

    @action
    def move(s, S: Set[Person]):
        require(len(S) == 1)
        MissionariesAndCannibals.move(s, S)


def test_missionaries_and_cannibals_solved_by_bfs_and_bmc_alike_and_not_with_one_seat():
    m = Machine(MissionariesAndCannibals)
    bfs = _verdicts(ExplicitEngine, m)["solution"]
    bmc = _verdicts(BMC, m, max_depth=11)["solution"]
    assert bfs.verdict.value == bmc.verdict.value == "violated"
    assert len(bfs.trace.steps) - 1 == len(bmc.trace.steps) - 1 == 11
    assert replay(m, bmc.trace).ok
    assert _verdicts(ExplicitEngine, Machine(OneSeatBoat))["solution"].verdict.value == "holds"


class NeverAgainst(Majority):
    """Mutant: a value unlike the candidate is not counted against it."""

    @action
    def next(s):
        require(s.i <= len(s.seq))
        if s.cnt == 0:
            s.cand = s.seq[s.i - 1]
            s.cnt = 1
        elif s.cand == s.seq[s.i - 1]:
            s.cnt += 1
        s.i += 1


def test_majority_on_sequences_proved_by_pdr_and_its_mutant_refuted_by_bfs_and_bmc_alike():
    """<<A, B, B>>: the mutant keeps A, though B is the majority."""
    assert _verdicts(PDR, Machine(Majority, {"bound": 3}))["correct"].verdict.value == "holds"
    m = Machine(NeverAgainst, {"bound": 3})
    bfs = _verdicts(ExplicitEngine, m)["correct"]
    bmc = _verdicts(BMC, m, max_depth=3)["correct"]
    assert bfs.verdict.value == bmc.verdict.value == "violated"
    assert len(bfs.trace.steps) - 1 == len(bmc.trace.steps) - 1 == 3
    assert replay(m, bmc.trace).ok
