"""words: segment each Simplified sentence into words with jieba (precise mode).

The segmenter (pipeline/segment.py: rjieba inside jieba's rules, the project's user dictionary
and the user's `--user-dict` files) is built once per process and shared with the gloss.
"""

from __future__ import annotations

from pipeline.context import Context
from pipeline.document import Document, evolve
from pipeline.registry import stage


@stage("words", order=120)
def words(doc: Document, ctx: Context) -> Document:
    """Words of every sentence (jieba), with the user's dictionaries."""
    cut = ctx.segmenter.words
    blocks = tuple(
        evolve(b, sentences=tuple(evolve(s, tokens=cut(s.zh)) for s in b.sentences))
        for b in doc.blocks
    )
    return doc.replace(blocks=blocks)
