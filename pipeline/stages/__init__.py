"""The stages, in the order the runner applies them. Each is a pure function over a Document."""

from pipeline.stages.boilerplate import boilerplate
from pipeline.stages.convert import convert
from pipeline.stages.normalize import normalize
from pipeline.stages.pinyin import pinyin
from pipeline.stages.spam import spam
from pipeline.stages.split import split
from pipeline.stages.words import words

# Removal stages: they mark spans of the original as removed; `--keep STAGE` turns one off.
CLEANING = (
    ("normalize", normalize),
    ("pinyin", pinyin),
    ("spam", spam),
    ("boilerplate", boilerplate),
)

__all__ = ["CLEANING", "convert", "split", "words"]
