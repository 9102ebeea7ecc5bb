"""Conformance of the Ray side against a real local Ray, by model-based testing.

`plan.py` generates scenarios from `spec.ray.spec.RaySide` (without and with GCS fault
tolerance); `run.conform()` replays them on local Ray heads (`local.py`) through
`adapter.py`. `check-model conform ray` and the tests marked `conformance` call it. Only
`run` and `adapter` import Ray, so the rest works without it.
"""


def __getattr__(name):
    """`conform`, imported on first use (it needs Ray)."""
    if name == "conform":
        from .run import conform
        return conform
    raise AttributeError(name)
