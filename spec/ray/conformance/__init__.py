"""Conformance of the Ray side against a real local Ray, by model-based testing.

`run.conform()` generates scenarios from `spec.ray.spec.RaySide` (without and with GCS
fault tolerance), replays them on a local Ray head (`local.py`) through `adapter.py`, and
reports coverage and every disagreement. `check-model conform ray` and the tests marked
`conformance` call it.
"""
from .run import conform

__all__ = ["conform"]
