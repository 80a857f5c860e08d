"""Fuzzing the whole text pipeline (`--translator none`): arbitrary Unicode and mutated samples.

`make test` runs a few hundred examples; `make fuzz` (HYPOTHESIS_PROFILE=fuzz) runs 10,000+.
"""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.context import Context
from pipeline.prepare import clean_document, prepare
from pipeline.translate import NONE_DESCRIPTION
from pipeline.write.json_doc import document_to_dict
from pipeline.write.markdown import render_markdown
from tests.conftest import SEEDS, assert_edits_consistent, make_doc

SCHEMA = json.loads(resources.files("pipeline.schema").joinpath("document.schema.json").read_text())
SAMPLE = "\n".join(p.read_text(encoding="utf-8") for p in SEEDS)


def latin1_mojibake(text: str) -> str:
    data = text.encode("gbk", errors="ignore")
    return "".join(chr(b) if b < 0x80 else bytes([b]).decode("latin-1") for b in data)


@st.composite
def mutated_sample(draw) -> str:
    start = draw(st.integers(0, len(SAMPLE) - 1))
    text = SAMPLE[start : start + draw(st.integers(1, 1500))]
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["delete", "duplicate", "bracket", "mojibake", "insert"]))
        i = draw(st.integers(0, len(text)))
        j = min(len(text), i + draw(st.integers(0, 40)))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "duplicate":
            lines = text.split("\n")
            k = draw(st.integers(0, len(lines) - 1))
            text = "\n".join(lines[: k + 1] + lines[k:])
        elif kind == "bracket":
            text = text[:i] + draw(st.sampled_from("()（）[]【】「」")) + text[i:]
        elif kind == "mojibake":
            text = text[:i] + latin1_mojibake(text[i:j]) + text[j:]
        else:
            text = text[:i] + draw(st.text(max_size=8)) + text[i:]
    return text


def check_pipeline(text: str) -> None:
    doc = prepare(make_doc(text), Context())
    assert_edits_consistent(text, doc)
    # every sentence points into the original and is non-empty
    for p in doc.blocks:
        for s in p.sentences:
            assert 0 <= s.start < s.end <= len(text) and s.zh
    jsonschema.validate(document_to_dict(doc, NONE_DESCRIPTION), SCHEMA)
    render_markdown(doc, NONE_DESCRIPTION)
    # cleaning is idempotent
    again = clean_document(make_doc(doc.view.text), Context())
    assert again.edits == (), [(e.stage, e.reason, e.text) for e in again.edits]


FUZZ = settings(suppress_health_check=list(HealthCheck), deadline=None)


@FUZZ
@given(st.text(max_size=400))
def test_arbitrary_unicode(text):
    check_pipeline(text)


@FUZZ
@given(mutated_sample())
def test_mutated_samples(text):
    check_pipeline(text)
