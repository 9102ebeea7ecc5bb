"""The README's tutorial: two controllers add to a counter they read from an API server.

Each controller reads the stored value, then writes back what it read plus one. Without
a version check two interleaved read-modify-writes lose an increment (a lost update);
`resourceVersion`-style optimistic concurrency (`VERSIONED = true`) rejects the stale
write, and the controller reads again. A crash of a controller loses what it had read.
"""
from checker import Const, Int, Map, Spec, action, fault, invariant, require

Client = Int[1, 2]


class ApiServer(Spec):
    VERSIONED = Const(False, "writes carry the resourceVersion they read")
    stored: Int[0, 2] = 0
    version: Int[0, 2] = 0


class Controller(ApiServer):
    holding: Map[Client, bool] = Map.fill(False)        # has read, not yet written
    read: Map[Client, Int[0, 2]] = Map.fill(0)          # the value it read
    read_version: Map[Client, Int[0, 2]] = Map.fill(0)
    done: Map[Client, bool] = Map.fill(False)

    @action(calls="API server")
    def get(s, c: Client):
        """GET the counter, remembering its value and resourceVersion."""
        require(not s.done[c] and not s.holding[c])
        s.holding[c], s.read[c], s.read_version[c] = True, s.stored, s.version

    @action(calls="API server")
    def update(s, c: Client):
        """PUT what was read plus one; with VERSIONED a stale resourceVersion is a
        conflict, and the controller has to GET again."""
        require(s.holding[c])
        s.holding[c] = False
        if s.VERSIONED and s.read_version[c] != s.version:
            return
        s.stored, s.version, s.done[c] = s.read[c] + 1, s.version + 1, True

    @fault
    def crash(s, c: Client):
        """The controller restarts: what it had read is gone; it starts over."""
        require(s.holding[c])
        s.holding[c] = False

    @invariant
    def no_lost_update(s):
        """Once both are done, both increments are in the store."""
        return not (s.done[1] and s.done[2]) or s.stored == 2
