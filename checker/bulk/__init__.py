"""The bulk engine: the explicit BFS a whole level at a time, over numpy arrays.

`layout` packs a state into 64-bit words, `vectorize` compiles the relation's terms into
numpy code, `engine` runs the search (see its docstring)."""
