"""Verdicts both ways: a property that holds, and a small mutation where it is refuted."""
from checker import action, require
from examples.diehard import DieHard
from examples.twophase import TMState, TwoPhase
from conftest import explore, verdicts


class EagerCommit(TwoPhase):
    """Mutant: the TM commits without waiting for every RM to be prepared."""

    @action
    def tm_commit(s):
        require(s.tm_state == TMState.INIT)
        s.tm_state = TMState.COMMITTED
        s.msgs.add(s.COMMIT)


def test_twophase_consistency_holds():
    result = explore(TwoPhase, {"N": 3})
    assert verdicts(result) == {"type_ok": "holds", "consistent": "holds"}
    assert result.stats.distinct_states == 288
    assert result.exit_code == 0


def test_eager_commit_breaks_consistency_with_the_shortest_trace():
    result = explore(EagerCommit, {"N": 3})
    consistent = next(p for p in result.properties if p.name == "consistent")
    assert consistent.verdict.value == "violated"
    labels = [s.label for s in consistent.trace.steps[1:]]
    # The TM commits while RMs still work; one RM receives Commit, another aborts: 3 steps.
    assert len(labels) == 3
    assert labels[0] == "tm_commit"
    assert sorted(label.split("(")[0] for label in labels[1:]) == \
        ["rm_choose_to_abort", "rm_rcv_commit_msg"]
    assert result.exit_code == 1


def test_diehard_solution_is_six_steps():
    result = explore(DieHard)
    (prop,) = result.properties
    assert prop.verdict.value == "violated"
    assert len(prop.trace.steps) - 1 == 6
    last = prop.trace.steps[-1].state
    assert last[1] == 4          # big jug holds 4
