---- MODULE Spin ----
(* []<><<A>>_v: Inc moves x round 0, 1, 2 and Tick flips y, both weakly fair. IncMoves
   holds; with Wrap = 2, Inc's step from x = 2 leaves x as it is, so from there on no
   step is an Inc step that changes x, and it is violated. *)
EXTENDS Naturals
CONSTANT Wrap
VARIABLES x, y
vars == <<x, y>>
Init == x = 0 /\ y = 0
Inc == x' = (IF x < 2 THEN x + 1 ELSE Wrap) /\ UNCHANGED y
Tick == y' = 1 - y /\ UNCHANGED x
Spec == Init /\ [][Inc \/ Tick]_vars /\ WF_vars(Inc) /\ WF_vars(Tick)
IncMoves == []<><<Inc>>_x
====
