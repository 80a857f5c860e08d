"""normalize: Unicode clean-up before anything reads the text.

- NFC (recorded as repairs);
- invisible characters removed: zero-width, BOM, soft hyphen, bidi marks, control characters;
- lost characters: a `?` that stands where an emoji or character was lost in a bad conversion
  (a line of only `?`, ` ? ` between byline parts, `?` inside a word, `?` after a comma…),
  while a real question mark (end of a question, URL query) stays;
- mojibake: GBK/GB18030 bytes that were read as Latin-1/cp1252 (`Çå½àÐÐÒµ`) are decoded back
  to Chinese where that yields valid, common Chinese; a run that cannot be repaired is removed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from pipeline.context import Context
from pipeline.document import Change, Document, change_of_fields
from pipeline.registry import stage
from pipeline.text import HAN, HAN_RE, lines, lines_matching, url_spans

STAGE = "normalize"

# Invisible or control characters. C1 controls (\x80-\x9f) are handled after mojibake repair.
_INVISIBLE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad\u180e"
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+"
)
_LONE_CR = re.compile("\r(?!\n)")  # apart: an alternation would slow the character class
# A Windows line ending: removed so that every stage sees one kind of line end, recorded in the
# JSON like any edit, but not listed in the Markdown audit (it is not junk).
_CRLF = re.compile("\r(?=\n)")
LINE_ENDING = "line-ending"
_C1_CONTROLS = re.compile("[\x80-\x9f]+")
# U+FFFD: bytes the reader could not decode (source.undecodable lists them)
_UNDECODABLE = re.compile("\ufffd+")

# --- mojibake -------------------------------------------------------------------------------

# cp1252 puts printable characters where Latin-1 has C1 controls; map them back to their bytes.
_CP1252_BYTES = {
    bytes([b]).decode("cp1252"): b
    for b in range(0x80, 0xA0)
    if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)
}
_HIGH = "\u0080-\u00ff\u0100-\u07ff" + "".join(_CP1252_BYTES)
_MIN_HIGH_CHARS = 4
# A run of mis-decoded characters with at least _MIN_HIGH_CHARS high ones (fewer are never
# repaired: a page's toned pinyin letters are runs of one). Runs are maximal, so a run with
# fewer has no suffix with more: the runs found are those the plain run pattern finds.
_MOJIBAKE_RUN = re.compile(
    f"[{_HIGH}](?:[\x40-\x7e]*[{_HIGH}]){{{_MIN_HIGH_CHARS - 1}}}[{_HIGH}\x40-\x7e]*"
)
_LATIN1_LETTERS = re.compile("[\u00a0-\u00ff]")


def _char_bytes(ch: str) -> bytes:
    """The byte(s) a mis-decoded character stood for."""
    if ord(ch) < 0x100:
        return bytes([ord(ch)])
    if ch in _CP1252_BYTES:
        return bytes([_CP1252_BYTES[ch]])
    return ch.encode("utf-8")  # a GBK pair that happened to be valid UTF-8


def _decode_gbk(data: bytes) -> str | None:
    """Decode GBK pair by pair; None if any high byte does not start a valid CJK character."""
    out = []
    i = 0
    while i < len(data):
        if data[i] < 0x80:
            out.append(chr(data[i]))
            i += 1
            continue
        try:
            ch = data[i : i + 2].decode("gbk")
        except UnicodeDecodeError:
            return None
        if len(ch) != 1 or not (HAN_RE.match(ch) or ch in "，。、：；！？“”‘’（）《》【】…—·"):
            return None
        out.append(ch)
        i += 2
    return "".join(out)


def _common_ratio(text: str) -> float:
    han = [c for c in text if ord(c) > 0x7F]
    if not han:
        return 0.0
    common = 0
    for c in han:
        try:
            c.encode("gb2312")
            common += 1
        except UnicodeEncodeError:
            pass
    return common / len(han)


def _best_repair(run: str) -> tuple[int, int, str] | None:
    """(start, end, repaired) for the best-aligned decodable part of a run, or None.

    A run may begin on a trail byte (its lead byte got lost), so if the natural alignment does
    not decode, the next one is tried. ASCII at the end of a run is real text unless it was a trail
    byte, so the end is trimmed back until the bytes decode.
    """
    for start in (0, 1):
        for end in range(len(run), start, -1):
            if end < len(run) and ord(run[end - 1]) <= 0x7F:
                continue
            repaired = _decode_gbk(b"".join(_char_bytes(c) for c in run[start:end]))
            if repaired is None:
                continue
            han = sum(1 for c in repaired if HAN_RE.match(c))
            if han >= 2 and _common_ratio(repaired) >= 0.6:
                return start, end, repaired
            break
    return None


def _run_changes(run: str, offset: int) -> list[Change]:
    """Repairs for one run of mis-decoded characters, part after part."""
    changes = []
    pos = 0
    while pos < len(run):
        rest = run[pos:]
        high = sum(1 for c in rest if ord(c) > 0x7F)
        if high < _MIN_HIGH_CHARS or len(_LATIN1_LETTERS.findall(rest)) < 2:
            break
        repair = _best_repair(rest)
        if repair is None:
            if high >= 6 and high / len(rest) >= 0.6:
                changes.append(Change(offset + pos, offset + len(run), "unrepairable mojibake"))
            break
        start, end, repaired = repair
        reason = "mojibake repaired (GBK read as Latin-1)"
        changes.append(Change(offset + pos + start, offset + pos + end, reason, repaired))
        pos += end
    return changes


def _mojibake_changes(text: str) -> list[Change]:
    changes = []
    for m in _MOJIBAKE_RUN.finditer(text):
        changes += _run_changes(m.group(), m.start())
    return changes


# --- lost characters --------------------------------------------------------------------------

_WORD = f"A-Za-z{HAN}"
_QUESTION_CUES = re.compile(
    "[吗嗎呢么麼嘛吧谁誰哪几幾啥何否难難]|什么|什麼|怎|如何|多少"
    r"|\b(?:what|why|how|who|where|when|which|is|are|do|does|did|can|could|would|should)\b",
    re.I,
)
_CLAUSE_START = re.compile(r".*[，,。！!？；;：:\n]", re.S)
_QUESTION_MARKS = re.compile(r"\?+")  # the lines with one are the only ones looked at
_LOST_PATTERNS = (
    # a line of nothing but question marks
    (re.compile(r"^\s*\?+\s*$"), "lost character (line of ?)"),
    # ` ? ` separating byline parts: drop the mark and the space before it
    (re.compile(r"(?<=\S)\s+\?+(?=\s+\S)"), "lost character (separator)"),
    # at the start of a line, before text
    (re.compile(r"^\s*\?+\s*(?=\S)"), "lost character (line start)"),
    # right after CJK punctuation, where no question mark can stand
    (
        re.compile(r"(?<=[，。、：；！？「」『』（）【】《》])\?+"),
        "lost character (after punctuation)",
    ),
    # inside a word: between letters or Han characters
    (re.compile(f"(?<=[{_WORD}])\\?+(?=[{_WORD}])"), "lost character (inside a word)"),
    # a doubled mark (a lost emoji is two UTF-16 units) that does not end the line; after a
    # question (`真的吗??`) it is emphatic punctuation and stays
    (re.compile(r"\?{2,}(?=\s*\S)"), "lost character (??)"),
)


def _is_real_question(line: str, mark_start: int) -> bool:
    before = line[:mark_start]
    clause = _CLAUSE_START.sub("", before)
    return bool(_QUESTION_CUES.search(clause)) and not clause.endswith((" ", "\t"))


def _lost_character_changes(text: str) -> list[Change]:
    changes: dict[int, Change] = {}
    spans = list(lines(text))
    for i in sorted(lines_matching(_QUESTION_MARKS, text, spans)):
        start, end = spans[i]
        line = text[start:end]
        urls = url_spans(line)
        for pattern, reason in _LOST_PATTERNS:
            for m in pattern.finditer(line):
                mark = line.index("?", m.start())
                if mark in urls or start + m.start() in changes:
                    continue
                multi_line_only = reason.endswith("(line of ?)")
                if not multi_line_only and _is_real_question(line, mark):
                    continue  # `吗?`, `吗??`: a question's own marks, however many
                changes[start + m.start()] = Change(start + m.start(), start + m.end(), reason)
    return _drop_overlaps(sorted(changes.values(), key=lambda c: c.start))


def _drop_overlaps(changes: Iterable[Change]) -> list[Change]:
    out: list[Change] = []
    for c in changes:
        if out and c.start < out[-1].end:
            continue
        out.append(c)
    return out


# --- NFC and invisibles ---------------------------------------------------------------------


def _nfc_changes(text: str) -> list[Change]:
    if unicodedata.is_normalized("NFC", text):
        return []
    changes = []
    i = 0
    while i < len(text):
        j = i + 1
        while j < len(text) and unicodedata.combining(text[j]):
            j += 1
        cluster = text[i:j]
        nfc = unicodedata.normalize("NFC", cluster)
        if nfc != cluster:
            changes.append(Change(i, j, "Unicode NFC", nfc))
        i = j
    return changes


def _pattern_changes(
    text: str, pattern: re.Pattern, reason: str = "invisible or control character", kind: str = ""
) -> list[Change]:
    literal = _LITERALS.get(pattern)
    if literal is not None and literal not in text:  # a C-speed search rules the pattern out
        return []
    # A page can have tens of thousands (zero-width spaces).
    tail = (reason, "", kind)
    return [change_of_fields(m.span() + tail) for m in pattern.finditer(text)]


# The character each of these patterns needs: most pages have none, and the pattern runs in
# every cleaning round.
_LITERALS = {_LONE_CR: "\r", _CRLF: "\r", _UNDECODABLE: "\ufffd"}


@stage(STAGE, order=10, removes=True, unaudited_kinds=(LINE_ENDING,))
def normalize(doc: Document, ctx: Context) -> Document:
    """Unicode clean-up: NFC, invisible characters, lost-emoji `?`, mojibake repair."""
    # Invisible characters first, so they cannot split a mojibake run; C1 controls wait until
    # after the repair, because inside mojibake they are bytes of a character.
    text = doc.view.text
    changes = _pattern_changes(text, _INVISIBLE) + _pattern_changes(text, _LONE_CR)
    changes += _pattern_changes(text, _UNDECODABLE, "undecodable bytes")
    changes += _pattern_changes(text, _CRLF, "CR of a CRLF line ending", LINE_ENDING)
    doc = doc.apply(STAGE, sorted(changes, key=lambda c: c.start))
    doc = doc.apply(STAGE, _mojibake_changes(doc.view.text))
    text = doc.view.text
    changes = _pattern_changes(text, _C1_CONTROLS) + _nfc_changes(text)
    changes += _lost_character_changes(text)
    return doc.apply(STAGE, _drop_overlaps(sorted(changes, key=lambda c: (c.start, -c.end))))
