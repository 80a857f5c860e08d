"""The stages: one module each, registered with `@stage(name, order=…)` (pipeline/registry.py).

The registry imports every module of this package, so adding a stage is adding one file here;
the runner, the `--keep` choices, the Markdown audit and the docs ask the registry.
"""
