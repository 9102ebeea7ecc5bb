"""The Ray side of the RayJob spec on its own: Ray's Jobs API and a small client.

`spec.py` composes the RayJob spec's own Ray actors (`RayHead`, `UserProgram`,
`RayClusterCtl`) and the submitter's script (`Submitter`) with `client.py`, a user at a
terminal. Nothing of Ray's behaviour is restated here, so what `conformance/` checks
against a real Ray is exactly what the RayJob verdicts rest on. The operator's and the
API server's variables stay at their initial values.
"""
