"""What of the Ray side can be observed: the same keys for a spec state and a real Ray.

head      serving / down (`/api/gcs_healthz`)
J0, J1    each id's status as `GET /api/jobs/<id>` answers: absent (404), PENDING, RUNNING,
          SUCCEEDED, FAILED, STOPPED (with or without a side effect written, with or
          without a supervisor); `?` while the head is down
effects   how many times a program wrote its side effect (2: more than once)
script    where the submitter's script is: idle, status, submit, following, exit 0/1
reply     the last SDK call's answer
"""
from __future__ import annotations

from spec.rayjob.types import NONTERMINAL_RECS, REC_STATUS, Head, PodSlot, Rec, SubPc

from ..client import CLUSTER, IDS

LIVE = (Rec.PENDING, Rec.RUNNING, Rec.WROTE)          # records whose supervisor runs
SPONTANEOUS = frozenset({"driver_start", "sub_follow", "sub_broken"})   # Ray does them itself
STATUS_MATTERS = ("sdk_submit", "sdk_stop", "sub_status")
AGENT_ROUTED = ("sdk_submit", "sdk_stop", "sub_submit", "sub_status", "sub_follow")
SCRIPT = {SubPc.STATUS: "status", SubPc.SUBMIT: "submit", SubPc.FOLLOW: "following",
          SubPc.BROKEN: "following"}


def job_name(j) -> str:
    return "J" + str(IDS.index(j))


def record_status(rec: Rec) -> str:
    """What GetJobInfo says of a record: the spec's own mapping (REC_STATUS)."""
    return "absent" if rec is Rec.NONE else REC_STATUS[rec].value


def abstract(plain: dict) -> dict:
    serving = plain["head"][CLUSTER] is Head.SERVING
    obs = {"head": "serving" if serving else "down", "effects": plain["effects"],
           "reply": plain["reply"].value}
    for j in IDS:
        rec = plain["kv"][(CLUSTER, j)]
        obs[job_name(j)] = record_status(rec) if serving else "?"
    pod = plain["pods"][PodSlot.CUR]
    if pod is not None:
        obs["script"] = SCRIPT[pod.pc]
    else:
        code = plain["script_exit"]
        obs["script"] = "idle" if code is None else f"exit {code}"
    return obs


def acted_job(binding, plain: dict):
    """The submission id a step is about: its parameter, or the script's; None for a
    head step."""
    for name, value in binding.params:
        if name == "j":
            return value
        if name == "k":
            return value.j
    pod = plain["pods"][PodSlot.CUR]
    return pod.job_id if pod is not None and binding.name.startswith("sub_") else None


def status_class(status: str) -> str:
    """What a head restart can tell apart: a live job, a finished one."""
    return "live" if status in ("PENDING", "RUNNING") else "finished"


def items(binding, before: dict, after: dict) -> list:
    """Coverage items of one step: the action, what it changed and, for the calls whose
    answer depends on it, the acted job's status before (J0 and J1 are symmetric: the
    acted one is `this`). A head step has one item per kind of record it carries over
    (live or finished), or `no record`. A call through the agent while the other record
    has lost its supervisor has one more item, the other's status after: does the
    recovery cover it too?"""
    a0, a1 = abstract(before), abstract(after)
    params = tuple((k, v) for k, v in binding.param_labels if k in ("ok", "code"))
    j = acted_job(binding, before)
    if j is None:
        shown = a0 if binding.name == "head_restart" else a1
        kinds = {status_class(shown[job_name(i)]) for i in IDS
                 if shown[job_name(i)] != "absent"}
        return [(binding.name, params, kind, ()) for kind in sorted(kinds)] or \
            [(binding.name, params, "no record", ())]
    other = [job_name(i) for i in IDS if i != j]
    changed = tuple(sorted(("this" if k == job_name(j) else k, v) for k, v in a1.items()
                           if k not in other and (a0[k] != v or k == "reply" and
                                                  binding.name.startswith("sdk_"))))
    status = a0[job_name(j)] if binding.name in STATUS_MATTERS else None
    found = [(binding.name, params, status, changed)]
    if binding.name in AGENT_ROUTED and a0["head"] == "serving":
        found += [("agent-routed call", (), "other: supervisor lost", (("other", a1[o]),))
                  for i, o in zip([i for i in IDS if i != j], other)
                  if _supervisor_lost(before["kv"][(CLUSTER, i)])]
    return found


def _supervisor_lost(rec: Rec) -> bool:
    return rec in NONTERMINAL_RECS and rec not in LIVE
