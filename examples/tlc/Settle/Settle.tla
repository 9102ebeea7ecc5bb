---- MODULE Settle ----
(* <>[]P: x climbs to 3 and stays there, while y blinks forever. Settled holds under
   WF(Up); with Drop, x may fall back from 3 to 0, and it is violated. *)
EXTENDS Naturals
CONSTANT Drop
VARIABLES x, y
vars == <<x, y>>
Init == x = 0 /\ y = 0
Up == x < 3 /\ x' = x + 1 /\ UNCHANGED y
Blink == y' = 1 - y /\ UNCHANGED x
Reset == Drop /\ x = 3 /\ x' = 0 /\ UNCHANGED y
Next == Up \/ Blink \/ Reset
Spec == Init /\ [][Next]_vars /\ WF_vars(Up)
Settled == <>[](x = 3)
====
