"""Model-based testing: check a real system step by step against a spec.

`scenarios` explores a spec to a small depth and picks paths that cover every transition
item (an action and what it changed) at least once; `replay` drives a real system through
each path with an `Adapter` and checks that every observation is one the spec allows.
Nothing here knows the system under test: the adapter maps actions to real calls and
both the spec's states and the real system to the same abstract observation.
"""
from .report import ConfigRun, print_report
from .replay import Adapter, Row, ScenarioRun, run_scenario
from .scenarios import Scenario, Selection, ScenarioStep, select

__all__ = ["ConfigRun", "print_report", "Adapter", "Row", "ScenarioRun", "run_scenario",
           "Scenario", "Selection", "ScenarioStep", "select"]
