"""What a run writes: the terminal (`render`, `summary`, `progress`), ITF traces (`itf`),
CI reports (`reports`: SARIF, JUnit, Markdown; `mermaid`) and HTML pages (`trace_page`,
`gate_page`, with `web/`)."""
