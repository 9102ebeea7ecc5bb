---- MODULE Gossip ----
(* A function as a record field: a message carries seen, a [Node -> BOOLEAN]. A node
   sends what it has heard of and merges what a message says. SelfSeen: a message's
   sender has heard of itself. With Forget, a sender leaves itself out: violated. *)
EXTENDS Naturals
CONSTANTS N, Forget
Node == 1..N
Msg == [src: Node, seen: [Node -> BOOLEAN]]
VARIABLES heard, msgs
Init == heard = [n \in Node |-> {n}] /\ msgs = {}
Send(n) == /\ msgs' = msgs \cup {[src |-> n, seen |-> [m \in Node |-> m \in heard[n] /\ ~(Forget /\ m = n)]]}
           /\ UNCHANGED heard
Recv(n) == /\ \E msg \in msgs : heard' = [heard EXCEPT ![n] = @ \cup {k \in Node : msg.seen[k]}]
           /\ UNCHANGED msgs
Next == \E n \in Node : Send(n) \/ Recv(n)
TypeOK == msgs \subseteq Msg /\ heard \in [Node -> SUBSET Node]
SelfSeen == \A msg \in msgs : msg.seen[msg.src]
====
