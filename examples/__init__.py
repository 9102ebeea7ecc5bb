"""Classic specifications written in the checker's DSL, each checked against TLC's figures."""
