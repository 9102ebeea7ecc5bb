---- MODULE MCSimpleAllocator ----
\* SimpleAllocator with Clients = {c1, c2, c3} and Resources = {r1, r2} as model values.
\* ProductSymmetry permutes clients and resources together (the group Permutations(Clients)
\* x Permutations(Resources), the one check-model reduces by); the spec's own Symmetry,
\* Permutations(Clients) \cup Permutations(Resources), is the union of the two groups,
\* which TLC applies one permutation at a time, so it leaves some orbits split.
EXTENDS SimpleAllocator
CONSTANTS c1, c2, c3, r1, r2
MCClients == {c1, c2, c3}
MCResources == {r1, r2}
ProductSymmetry == {[x \in MCClients \cup MCResources |-> IF x \in MCClients THEN p[x] ELSE q[x]] :
                      p \in Permutations(MCClients), q \in Permutations(MCResources)}
====
