"""words: segment each Simplified sentence into words with jieba (precise mode).

The segmenter (pipeline/segment.py: jieba-fast, the project's user dictionary and the user's
`--user-dict` files) is built once per process and shared with the gloss.
"""

from __future__ import annotations

from pipeline.context import Context
from pipeline.document import Document, evolve
from pipeline.registry import stage


@stage("words", order=120)
def words(doc: Document, ctx: Context) -> Document:
    """Words of every sentence (jieba), with the user's dictionaries."""
    cut = ctx.segmenter.words
    paragraphs = tuple(
        evolve(p, sentences=tuple(evolve(s, tokens=cut(s.zh)) for s in p.sentences))
        for p in doc.paragraphs
    )
    return doc.replace(paragraphs=paragraphs)
