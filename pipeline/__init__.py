"""Clean dirty Chinese web articles into aligned Chinese-English documents.

The Python API (pipeline/api.py): `process_text`, `process`, `context`; settings with
`Settings` / `build_settings`. Imported on first use, so `import pipeline` stays light.
"""

__version__ = "0.1.0"

_API = {
    "process_text": "pipeline.api",
    "process": "pipeline.api",
    "context": "pipeline.api",
    "Settings": "pipeline.settings",
    "build_settings": "pipeline.settings",
}
__all__ = ["__version__", *_API]


def __getattr__(name: str):
    if name in _API:
        import importlib

        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
