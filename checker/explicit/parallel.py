"""The breadth-first search on several cores: states partitioned by a hash.

Once a level is large (`explorer.PARALLEL_FROM` states, or `SPLIT_EARLY` if the hash
chosen there seldom crosses), the search forks `n` worker processes. Worker w owns the
states whose hash of the variables that seldom change (`checker.explicit.partition`;
under symmetry, of their canonical form, so that a whole orbit has one owner) is w
modulo n: it keeps their part of the visited store (and all
of it from before the split) and expands them. A successor owned by another worker is
sent to it at the end of the level (this process routes the batches, unread); the
owner keeps it if new. Levels stay synchronous, so a property is decided at the same
depth as by one process: counterexamples stay shortest, and the counts are the same.
As with TLC's workers, the store then holds fingerprints; when the search ends the
workers' parts stay with them: only the entries on the paths to what was found are
brought here (a worker walks back through its part, and through the store before the
split, which it holds too), and traces are rebuilt from them as usual.

What a process pool costs: a successor crossing workers is pickled once and unpickled
once (about 3 us and 150 bytes on RayJob), its codes made the owner's own objects again
(equal codes that are not the same object cost a deep comparison at every lookup of the
memories of steps and properties); states found new are loaded and checked by their
owner. And each worker would run the spec for every path of steps any worker met: so
with the states, the workers pass on the paths they learnt (`expand.lessons`).
"""
from __future__ import annotations

import contextlib
import dataclasses
import gc
import multiprocessing
import os
import pickle
import signal
import time
import traceback

from ..errors import CheckerError, SpecError
from ..watchdog import interrupted
from . import partition


def cores() -> int:
    """The processors this process may run on (a container's share, not the machine's)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else os.cpu_count() or 1


def can_fork() -> bool:
    """Workers are forked: they start with the bound spec and the search so far."""
    return "fork" in multiprocessing.get_all_start_methods()


class Partitioned:
    """Run the rest of a `BreadthFirst` search on `workers` processes."""

    def __init__(self, bfs, workers: int):
        self.bfs, self.n = bfs, workers
        self.workers: list = []              # Forked (or another transport's handles)
        self.mask = -1                       # the variables hashed to choose the owner
        self.before = 0                      # states stored before the split
        self.owed: list[int] = []            # replies each worker still owes
        self.sent_states = self.sent_bytes = 0
        self.expanded = [0] * workers        # states each worker expanded ...
        self.busy = [0.0] * workers          # ... in this many seconds

    def run(self, level: list[tuple], mask: int, started: float) -> tuple[tuple | None, str | None]:
        """Search on from `level` (the next level to expand, already admitted), its states
        owned by a hash of the variables in `mask` (`partition.choose`): (a deadlock state
        or None, why the search stopped or None)."""
        bfs, n, split = self.bfs, self.n, time.perf_counter()
        visited = bfs.visited
        self.mask = mask
        visited.to_fingerprints()
        self.before = len(visited.seen)
        owner = partition.owner(bfs.machine, self.mask, n)
        shares = [[] for _ in range(n)]
        for st in level:                                    # (its orbit's, under symmetry)
            shares[owner(st, visited.key(st))].append(st)
        self.workers = self.start(shares)
        self.owed = [0] * n
        found_before, deadlock_before = set(bfs.search.found), bfs.deadlock_at

        def forget_findings():
            """The workers' parts of the store are gone, and with them the traces of what
            was found since the fork (the store as it was before stays here, for earlier
            findings)."""
            for name in set(bfs.search.found) - found_before:
                del bfs.search.found[name]
            bfs.deadlock_at = deadlock_before
        stopped = None
        try:
            try:
                stopped = self._levels(started)
            except WorkerLost as e:
                stopped = e.message
                forget_findings()
            self._gather()
        except KeyboardInterrupt as e:
            # not a moment more: the workers may be minutes into a level
            stopped = interrupted(e)
            forget_findings()
        finally:
            for worker in self.workers:
                worker.kill()
            bfs.stats.split_seconds = time.perf_counter() - split
        return bfs.deadlock_at, stopped

    def _levels(self, started: float) -> str | None:
        bfs, stats, opts = self.bfs, self.bfs.stats, self.bfs.options
        max_states = opts.max_states or float("inf")
        max_depth = opts.max_depth or float("inf")
        next_report = time.perf_counter() + 1.0
        while True:
            pending = [p.name for p in bfs.invariants + bfs.reachables]
            replies = self._ask("expand", [(pending,)] * self.n)
            stopped = next((r["stopped"] for r in replies if r["stopped"]), None)
            self._take(replies)
            if stopped:
                return stopped
            for w, r in enumerate(replies):
                self.expanded[w] += r["expanded"]
                self.busy[w] += r["busy"]
                self.sent_states += r["sent"]
                self.sent_bytes += r["bytes"]
            inboxes = [[r["out"][w] for r in replies if r["out"][w] is not None]
                       for w in range(self.n)]
            lessons = [[r["lessons"] for v, r in enumerate(replies) if v != w]
                       for w in range(self.n)]
            replies = self._ask("receive", list(zip(inboxes, lessons)))
            self._take(replies)
            distinct = self.before + sum(r["distinct"] for r in replies)
            stats.distinct_states = distinct
            stats.queue = sum(r["level"] for r in replies)
            if bfs.progress and time.perf_counter() >= next_report:
                stats.seconds = time.perf_counter() - started
                stats.workers = [e / b if b else 0.0 for e, b in zip(self.expanded, self.busy)]
                bfs.progress(stats)
                next_report = time.perf_counter() + 1.0
            if not stats.queue:
                return None
            if distinct >= max_states:
                return f"state limit {opts.max_states} reached"
            if stats.depth >= max_depth:
                return f"depth limit {opts.max_depth} reached"
            stats.depth += 1

    def _take(self, replies) -> None:
        """What the workers found: in worker order, the first finding of each property
        (every worker reports findings at the same depth, all shortest)."""
        bfs = self.bfs
        for r in replies:
            bfs.stats.transitions += r["transitions"]
            for name, st in r["found"].items():
                bfs.search.found.setdefault(name, st)
            if bfs.deadlock_at is None and r["deadlock"] is not None:
                bfs.deadlock_at = r["deadlock"]
        found = bfs.search.found
        bfs.keep_pending(lambda p: p.name not in found)

    def _gather(self) -> None:
        """Each live worker's firing counts and the size of its part of the store, the
        paths to what was found, then stop them."""
        bfs = self.bfs
        try:
            live = [w for w, worker in enumerate(self.workers) if worker.alive()]
            for w in live:
                while self.owed[w]:                  # an answer to a question no longer asked
                    self._receive(w)
            for part in self._ask("gather", [()] * self.n, live):
                bfs.visited.kept_apart += part["stored"]
                for i, count in enumerate(part["fired"]):
                    bfs.fired[i] += count
            self._fetch_paths(live)
        finally:
            for worker in self.workers:
                worker.stop()

    def _fetch_paths(self, live: list[int]) -> None:
        """The store's entries from each state found back to an initial state: each worker
        walks back as far as its part (and the store before the split) goes."""
        visited, bfs = self.bfs.visited, self.bfs
        ends = [*bfs.search.found.values(), bfs.deadlock_at]
        wanted = {visited.key(st) for st in ends if st is not None}
        here = len(visited.seen)
        while wanted := {k for k in wanted if k is not None and k not in visited.seen}:
            entries = {}
            for part in self._ask("paths", [(wanted,)] * self.n, live):
                entries.update(part)
            if not wanted <= entries.keys():
                raise WorkerLost("a trace runs through a worker that is gone")
            visited.seen.update(entries)
            wanted = set(entries.values())
        visited.kept_apart -= len(visited.seen) - here        # now here, counted once

    def describe(self) -> str:
        return f"{self.n} worker processes{self._hashing()}"

    def _hashing(self) -> str:
        if self.mask == -1:
            return ""
        names = [v.name for v in self.bfs.machine.variables if self.mask >> v.index & 1]
        return f" (owner by {', '.join(names)})"

    def exchanged(self) -> str:
        """What crossed between workers: the figure a cluster's network must carry."""
        each = self.sent_bytes / self.sent_states if self.sent_states else 0
        return (f"{self.sent_states:,} states exchanged, {self.sent_bytes / 2**20:.1f} MiB "
                f"({each:.0f} B each)")

    def start(self, shares: list[list[tuple]]) -> list:
        """One worker per share of the level (forked processes; see ray_workers too)."""
        ctx = multiprocessing.get_context("fork")
        return [Forked(ctx, self.bfs, w, self.n, self.mask, share)
                for w, share in enumerate(shares)]

    def _ask(self, method: str, args: list[tuple], which: list[int] | None = None) -> list[dict]:
        """Ask each worker (or those in `which`), then collect the replies: they work
        meanwhile."""
        which = range(self.n) if which is None else which
        for w in which:
            self.workers[w].send(method, *args[w])
            self.owed[w] += 1
        return [self._receive(w) for w in which]

    def _receive(self, w: int) -> dict:
        reply = self.workers[w].receive()
        self.owed[w] -= 1
        if reply[0] == "error":
            _, cls, message, where = reply
            raise cls(message, where)
        return reply[1]


SENT_MEMORY = 1 << 20      # fingerprints a worker remembers having sent (then it forgets)
OWN_CODES = 1 << 20        # codes a worker keeps as its own objects (then it starts again)


class WorkerLost(CheckerError):
    """A worker ended without answering: the search cannot go on."""


class Share:
    """A worker's side: the states it owns (its part of the store and of each level), the
    successors it found for others, what it found. Its methods answer the coordinator's
    questions, through whichever transport carries them (`answer`)."""

    def __init__(self, bfs, me: int, n: int, mask: int, level: list[tuple]):
        """`mask`: the variables whose hash names a state's owner (-1: all of them)."""
        bfs.options = dataclasses.replace(bfs.options, max_states=None)  # the coordinator counts
        bfs.progress = None
        bfs.fired = [0] * len(bfs.fired)                        # counted from here on
        self.bfs, self.me, self.n, self.level = bfs, me, n, level
        self.owner = partition.owner(bfs.machine, mask, n)
        # a step that changes none of the hashed variables stays here (under symmetry a
        # canonical form may rename them: then every step asks)
        self.moves = mask if bfs.visited.canonical is None else -1
        self.before = len(bfs.visited.seen)  # the store as the split found it: all workers'
        self.outboxes: list[dict] = []
        self.sent: set[int] = set()          # recently sent: their owners have them already
        self.codes: dict = {}                # received codes -> this process's equal object

    def elsewhere(self, key, succ, parent, changed) -> bool:
        """Takes a new successor another worker owns (see BreadthFirst.run_level)."""
        if not changed & self.moves:
            return False
        owner = self.owner(succ, key)
        if owner == self.me:
            return False
        if key not in self.sent:
            if len(self.sent) >= SENT_MEMORY:
                self.sent.clear()
            self.sent.add(key)
            self.outboxes[owner][key] = (succ, key, parent, changed)
        return True

    def expand(self, pending: list[str]) -> dict:
        """Expand this worker's share of the level; the successors for each other worker
        come back pickled, for the coordinator to pass on unread."""
        bfs = self.bfs
        bfs.keep_pending(lambda p: p.name in pending)
        before, transitions, deadlock = set(bfs.search.found), bfs.stats.transitions, bfs.deadlock_at
        self.outboxes = [{} for _ in range(self.n)]
        began = time.perf_counter()
        stopped = bfs.run_level(self.level, 0.0, self.elsewhere)
        out = [pickle.dumps(list(box.values()), pickle.HIGHEST_PROTOCOL) if box else None
               for box in self.outboxes]
        lessons = pickle.dumps(bfs.expand.lessons(), pickle.HIGHEST_PROTOCOL)
        return {"out": out, "sent": sum(len(box) for box in self.outboxes), "lessons": lessons,
                "bytes": sum(len(b) for b in out if b) + len(lessons) * (self.n - 1),
                "expanded": len(self.level), "busy": time.perf_counter() - began,
                "stopped": stopped, "found": self._found_since(before),
                "transitions": bfs.stats.transitions - transitions,
                "deadlock": bfs.deadlock_at if deadlock is None else None}

    def receive(self, batches: list[bytes], lessons: list[bytes]) -> dict:
        """Keep the new states among those other workers sent: the next level's share;
        and learn the steps they remembered."""
        bfs = self.bfs
        seen, before = bfs.visited.seen, set(bfs.search.found)
        if len(self.codes) > OWN_CODES:
            self.codes.clear()
        own = self._own
        with _collector_paused():
            for paths in lessons:
                bfs.expand.learn([(position, own(st), read, self._own_steps(steps))
                                  for position, st, read, steps in pickle.loads(paths)])
            for batch in batches:
                for succ, key, parent, changed in pickle.loads(batch):
                    if key not in seen:
                        bfs.consider(own(succ), key, parent, changed, loaded=False)
        self.level = bfs.take_next_level()
        return {"found": self._found_since(before), "transitions": 0, "deadlock": None,
                "distinct": len(seen) - self.before, "level": len(self.level)}

    def _own(self, codes: tuple) -> tuple:
        """`codes` made of this process's objects where it has equal ones (see the module
        docstring)."""
        own = self.codes.setdefault
        return tuple([own(code, code) for code in codes])

    def _own_steps(self, steps: tuple) -> tuple:
        """A lesson's steps with this process's codes (one variable written: its code)."""
        own = self.codes.setdefault
        return tuple((i, c, w, self._own(codes) if w & (w - 1) else own(codes, codes))
                     for i, c, w, codes in steps)

    def gather(self) -> dict:
        """How many states this worker stored since the split, and its firing counts."""
        return {"stored": len(self.bfs.visited.seen) - self.before, "fired": self.bfs.fired}

    def paths(self, keys: set) -> dict:
        """The store's entries from each of `keys` back as far as this worker knows them."""
        seen, entries = self.bfs.visited.seen, {}
        for k in keys:
            while k in seen and k not in entries:
                parent = entries[k] = seen[k]
                k = parent
        return entries

    def _found_since(self, before: set) -> dict:
        return {k: v for k, v in self.bfs.search.found.items() if k not in before}


@contextlib.contextmanager
def _collector_paused():
    """Unpickled, a batch is many thousand tuples that live until it has been read:
    Python's cyclic collector would walk them at each young collection, and promote them,
    which brings full collections sooner. They hold no cycles (user_ops_retry_F2 on two
    workers: 3% less time)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def answer(share: Share, method: str, args: tuple) -> tuple:
    """("ok", reply) or ("error", class, message, where): a user's error crosses the
    transport as the same one-line error."""
    try:
        return "ok", getattr(share, method)(*args)
    except CheckerError as e:
        return "error", type(e), e.message, e.where
    except Exception as e:                                      # a bug here, not the user's
        return "error", SpecError, (f"worker {share.me}: {type(e).__name__}: {e}\n"
                                    f"{traceback.format_exc()}"), None


class Forked:
    """A worker process forked from this one: it starts with the search as it stands."""

    def __init__(self, ctx, bfs, me: int, n: int, mask: int, level: list[tuple]):
        self.me = me
        self.conn, there = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(bfs, me, n, mask, level, there),
                                daemon=True)
        self.proc.start()
        there.close()

    def send(self, method: str, *args) -> None:
        self.conn.send((method, args))

    def receive(self) -> tuple:
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            self.proc.join(timeout=1)
            raise WorkerLost(f"worker process {self.me} died (exit code {self.proc.exitcode})")

    def alive(self) -> bool:
        return self.proc.is_alive()

    def stop(self) -> None:
        try:
            self.conn.send(("stop", ()))
        except OSError:
            pass
        self.proc.join(timeout=5)
        self.kill()

    def kill(self) -> None:
        """End it now, whatever it is doing (a no-op once it has stopped)."""
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(timeout=1)


def _serve(bfs, me: int, n: int, mask: int, level: list[tuple], conn) -> None:
    """A forked worker: answer until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)          # the parent handles Ctrl-C
    share = Share(bfs, me, n, mask, level)
    while True:
        method, args = conn.recv()
        if method == "stop":
            return
        conn.send(answer(share, method, args))
