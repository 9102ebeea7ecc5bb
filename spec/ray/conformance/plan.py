"""The Ray side's scenarios: generated from `RaySide`, without and with GCS FT.

The second configuration only needs the items the first cannot show (what survives a
restart). Nothing here needs Ray installed.
"""
from __future__ import annotations

import functools

from checker.conformance import Selection, select
from checker.explicit.machine import Machine

from ..spec import CONSTANTS, GROUPS, RaySide
from .abstraction import items

CONFIGS = {"no GCS FT": False, "GCS FT (Redis)": True}
DEPTH, LENGTH = 8, 30          # two jobs orphaned by a restart, then a call: 8 steps


@functools.cache
def plan() -> dict[str, tuple[Machine, Selection]]:
    """Each configuration's machine and scenarios (the FT one skips covered items)."""
    plans, covered = {}, frozenset()
    for name, ft in CONFIGS.items():
        m = Machine(RaySide, dict(CONSTANTS, gcs_ft=ft), GROUPS)
        sel = select(m, DEPTH, items, LENGTH, covered)
        covered |= sel.items
        plans[name] = (m, sel)
    return plans
