"""classifier: junk lines judged in context by a small learned model (pipeline/linemodel.py).

The rules of the spam and boilerplate stages catch the patterns they were written for; real pages
vary beyond them. This stage scores every remaining line with features of the line, its
neighbours and its place in the page (learned from labeled real pages, see docs/line-model.md)
and removes the lines the model is confident about. Each removal names the features that
decided it, e.g. `junk line (0.93): chrome words, short, top run`.

Tables and bylines (`作者：…`, `记者：…`, `来源：…`) stay whatever their score: their short,
chrome-like cells and words are the page's own.

It judges a page once, after the rule stages have done what they can: re-judging a page whose
chrome is gone would judge a different context.
"""

from __future__ import annotations

from pipeline.context import Context
from pipeline.document import Change, Document
from pipeline.linemodel import junk_lines
from pipeline.registry import stage
from pipeline.text import BYLINE, fold, lines, strip_span, table_lines

STAGE = "classifier"


@stage(STAGE, order=45, removes=True, once=True)
def classifier(doc: Document, ctx: Context) -> Document:
    """Junk lines (menus, credits, related lists, notices, ads) judged in context by a model."""
    text = doc.view.text
    spans = list(lines(text))
    rows = text.split("\n")  # each line, as `spans` has them
    tables = table_lines(rows)
    changes = []
    for i, probability, reasons in junk_lines(rows, threshold=ctx.settings.junk_threshold):
        a, b = strip_span(text, *spans[i])
        if a < b and i not in tables and not BYLINE.fullmatch(fold(text[a:b])):
            why = ", ".join(reasons) or "context"
            changes.append(Change(a, b, f"junk line ({probability:.2f}): {why}"))
    return doc.apply(STAGE, changes)
