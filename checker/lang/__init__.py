"""The spec language: the DSL a spec is written in (`dsl`), the domains of its variables
(`domains`), the values engines run it on (`values`), and the source analyses every engine
shares (`recompile`, `reads`)."""
