"""The explicit-state engine: the spec bound to a model's constants and run on concrete
states (`machine`, `expand`, `dispatch`, `fastpath`), the breadth-first search and its
visited store (`explorer`, `store`), split over processes or Ray actors (`parallel`,
`ray_workers`), liveness on the state graph (`liveness`, `fairness`), and traces
rebuilt and replayed (`trace`)."""
