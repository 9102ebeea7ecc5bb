---- MODULE Start ----
(* A property of the initial state only: Doubled, a state predicate listed as a
   PROPERTY, holds in every initial state (as an INVARIANT it would not: Next moves x
   alone). With Extra = {4}, y may also start at 4, and it is violated. *)
EXTENDS Naturals
CONSTANT Extra
VARIABLES x, y
Init == x \in 0..2 /\ y \in {2 * x} \cup Extra
Next == x' = (x + 1) % 5 /\ UNCHANGED y
Spec == Init /\ [][Next]_<<x, y>>
Doubled == y = 2 * x
====
