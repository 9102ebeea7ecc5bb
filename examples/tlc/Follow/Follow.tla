---- MODULE Follow ----
(* \E in a guard: a waiting process other than 1 is done once some process is done, the
   witness unused by the step. TLC makes one successor per witness (the \E comes before
   the primed variables). LeaderFirst: nobody is done before process 1. With Early, a
   waiting process also counts as a witness, and it is violated. *)
EXTENDS Naturals
CONSTANTS N, Early
Proc == 1..N
VARIABLE pc
Init == pc = [p \in Proc |-> "idle"]
Wait(p) == pc[p] = "idle" /\ pc' = [pc EXCEPT ![p] = "wait"]
Lead == pc[1] = "wait" /\ pc' = [pc EXCEPT ![1] = "done"]
Follow(p) == /\ p # 1 /\ pc[p] = "wait"
             /\ \E q \in Proc : pc[q] = "done" \/ (Early /\ pc[q] = "wait")
             /\ pc' = [pc EXCEPT ![p] = "done"]
Next == Lead \/ \E p \in Proc : Wait(p) \/ Follow(p)
LeaderFirst == (\E p \in Proc : pc[p] = "done") => pc[1] = "done"
====
