"""The user's entrypoint, run by the job supervisor (on the head, or on a worker with
entrypoint resources): one external side effect (a batch written into a database), then
success or failure.

Fairness: JobSupervisor.run starting a PENDING job and the entrypoint's progress are
weakly fair (the start-timeout monitor of ray #55133 is not modelled).
"""
from checker import action, require

from .state import RayJobState
from .types import KvKey, Outcome, Rec, Sink, Stray


class UserProgram(RayJobState):
    @action(group="program", fair="weak")
    def driver_start(s, k: KvKey):
        """Models JobSupervisor.run: PENDING -> RUNNING, the driver starts (§12.4)."""
        require(s.kv[k] is Rec.PENDING and s._serving(k))
        s._event()
        s.kv[k] = Rec.RUNNING
        s._count_for_attempt(s.driver_starts, s.cl_driver_starts, k.c)

    @action(group="program", fair="weak")
    def program_effect(s, k: KvKey):
        """The entrypoint, run by the supervisor (§12.4), writes its side effect (an
        idempotent sink dedups by key)."""
        require(s.kv[k] is Rec.RUNNING and s._serving(k))
        s._event()
        s.kv[k] = Rec.WROTE
        s._count_effect()

    def _count_effect(s):
        s.effects = 1 if s.sink is Sink.IDEMPOTENT else min(s.effects + 1, 2)

    @action(group="program", fair="weak")
    def stray_effect(s):
        """The entrypoint of a JobSupervisor that outlived a head restart on a worker, its
        GCS gone (§12.7, `RayHead._worker_driver_survives`), writes its side effect: no
        record shows it."""
        require(s.driver_on_worker and s.stray is Stray.RUNNING)
        s._event()
        s.stray = Stray.WROTE
        s._count_effect()

    @action(group="program", fair="weak")
    def stray_ends(s):
        """The stray driver ends (§12.7): its program exits, or its worker's raylet,
        reaching no GCS, gives up (`gcs_rpc_server_reconnect_timeout_s`, 60 s) and its
        processes die. Either way nothing is recorded; no call could have stopped it."""
        require(s.driver_on_worker and s.stray is not Stray.NONE)
        s._event()
        s.stray, s.stray_att = Stray.NONE, None

    @action(group="program", fair="weak")
    def program_exit(s, k: KvKey, ok: bool):
        """The entrypoint exits; the supervisor writes SUCCEEDED or FAILED (§12.4)."""
        require(s.kv[k] is Rec.WROTE and s._serving(k))
        require(s.program is Outcome.EITHER or ok == (s.program is Outcome.SUCCEED))
        s._event()
        s.kv[k] = Rec.SUCCEEDED if ok else Rec.FAILED
        if ok and s.cl_attempt[k.c] is not None:
            s.att_succ[s.cl_attempt[k.c]] = True
