---- MODULE MCTCommit ----
\* TCommit with RM = {r1, r2, r3} as model values, for TLC's SYMMETRY (check-model issue 21).
EXTENDS TCommit, TLC
CONSTANTS r1, r2, r3
MCRM == {r1, r2, r3}
Symmetry == Permutations(MCRM)
====
