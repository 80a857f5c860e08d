"""terms: the glossary terms of each sentence (pipeline/glossary.py), recorded with their
English and their offsets in the sentence's Simplified text.

The translators find the same terms in the same text (same matcher, same jieba words), so what
the JSON lists is what they put in place.
"""

from __future__ import annotations

from pipeline.context import Context
from pipeline.document import Document, evolve
from pipeline.glossary import find_terms
from pipeline.registry import stage


@stage("terms", order=130)
def terms(doc: Document, ctx: Context) -> Document:
    """Glossary terms of every sentence (longest first), with their English."""
    glossary = ctx.glossary
    if not glossary.terms:
        return doc
    blocks = tuple(
        evolve(
            b,
            sentences=tuple(
                evolve(s, terms=find_terms(s.zh, glossary, lambda _, s=s: s.tokens))
                for s in b.sentences
            ),
        )
        for b in doc.blocks
    )
    return doc.replace(blocks=blocks)
