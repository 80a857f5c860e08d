"""The document model: an untouchable original plus edits that say what was cut and why.

Removal stages never rewrite strings. They look at the current *view* (the kept text, with a
map back to the original) and hand back changes in view coordinates; `Document.apply` turns those
into `Edit`s on the original. Everything a reader sees is derived from `original` + `edits`, so
any sentence can say exactly where it came from and every cut can be audited.
"""

from __future__ import annotations

import bisect
import dataclasses
import sys
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from operator import attrgetter
from typing import TYPE_CHECKING, NamedTuple, TypeVar

import numpy as np

if TYPE_CHECKING:
    from pipeline.glossary import Match


# Edits and changes are named tuples: a long page makes a hundred thousand of each (its pinyin
# readings), and a tuple is built several times faster than a frozen dataclass, which sets each
# field through object.__setattr__.
class Edit(NamedTuple):
    """A span of the original that is removed (replacement "") or repaired (replacement text)."""

    start: int
    end: int
    stage: str
    reason: str
    text: str
    replacement: str = ""
    kind: str = ""  # a stage's own sub-kind (pinyin: "reading"); the registry says how it's audited

    @property
    def is_removal(self) -> bool:
        return self.replacement == ""


class Change(NamedTuple):
    """What a stage asks for, in coordinates of the view it looked at."""

    start: int
    end: int
    reason: str
    replacement: str = ""
    kind: str = ""


# A Change from the tuple of all five fields, without NamedTuple's __new__ (a Python call): for
# stages that make tens of thousands of changes on a page (pinyin readings, zero-width spaces).
change_of_fields = partial(tuple.__new__, Change)


class View:
    """The kept text of a document and the map from each kept character back to the original.

    The map is a list of segments — runs of kept original text, or a repair's replacement —
    held in flat integer arrays: a long document has hundreds of thousands of them.
    """

    def __init__(self, original: str, edits: tuple[Edit, ...], bounds: Bounds | None = None):
        # Built with numpy from the edits' offsets: a view is rebuilt after every stage that
        # cuts, over every edit so far (a long page has a hundred thousand pinyin readings).
        # `bounds`: the edits' starts and ends when `merge_edits` already has them.
        n = len(edits)
        starts, ends = bounds if bounds is not None else _bounds(edits)
        # the edits' offsets, for the next merge_edits (of edits on this view)
        self.edit_starts, self.edit_ends = starts, ends
        replacements = [e.replacement for e in edits]
        repl_len = np.fromiter(map(len, replacements), np.int64, n)
        # Segment 2i: the original kept before edit i (gap i), 2i+1: edit i's replacement;
        # 2n: the original after the last edit. Empty ones are dropped.
        seg_orig_start = np.empty(2 * n + 1, np.int64)
        seg_orig_end = np.empty(2 * n + 1, np.int64)
        seg_len = np.empty(2 * n + 1, np.int64)
        seg_orig_start[0::2] = np.concatenate([[0], ends])
        seg_orig_end[0::2] = np.concatenate([starts, [len(original)]])
        seg_len[0::2] = seg_orig_end[0::2] - seg_orig_start[0::2]
        seg_orig_start[1::2] = starts
        seg_orig_end[1::2] = ends
        seg_len[1::2] = repl_len
        identity = np.zeros(2 * n + 1, np.uint8)
        identity[0::2] = 1
        keep = seg_len > 0
        lengths = seg_len[keep]
        view_starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if len(lengths) else lengths
        self.text = self._kept_text(original, starts, ends, replacements, repl_len)
        self._view_starts = array("q", view_starts.astype(np.int64).tobytes())
        self._orig_starts = array("q", seg_orig_start[keep].tobytes())
        self._orig_ends = array("q", seg_orig_end[keep].tobytes())
        self._identity = identity[keep].tobytes()

    @staticmethod
    def _kept_text(
        original: str,
        starts: np.ndarray,
        ends: np.ndarray,
        replacements: list[str],
        repl_len: np.ndarray,
    ) -> str:
        """The original without the edited spans, each repair's replacement in its place."""
        if not len(starts):
            return original
        cp = np.frombuffer(original.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        inside = np.zeros(len(cp) + 1, np.int64)
        np.add.at(inside, starts, 1)
        np.add.at(inside, ends, -1)
        is_kept = np.cumsum(inside[:-1]) == 0
        kept = cp[is_kept]
        repaired = np.flatnonzero(repl_len)
        if len(repaired):
            # where each replacement goes among the kept characters: the kept ones before it
            at = np.searchsorted(np.flatnonzero(is_kept), starts[repaired])
            text = "".join(replacements[i] for i in repaired.tolist())
            values = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            kept = np.insert(kept, np.repeat(at, repl_len[repaired]), values)
        return kept.tobytes().decode("utf-32-le", "surrogatepass")

    def __len__(self) -> int:
        return len(self.text)

    def _length(self, k: int) -> int:
        nxt = self._view_starts[k + 1] if k + 1 < len(self._view_starts) else len(self.text)
        return nxt - self._view_starts[k]

    def origin(self, view_index: int) -> tuple[int, int]:
        """The original span [start, end) that the view character at `view_index` stands for."""
        k = bisect.bisect_right(self._view_starts, view_index) - 1
        if self._identity[k]:
            o = self._orig_starts[k] + view_index - self._view_starts[k]
            return o, o + 1
        return self._orig_starts[k], self._orig_ends[k]

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """Map a view span [start, end) to the original span it covers."""
        if start >= end:
            point = self.view_index_to_point(start)
            return point, point
        return self.origin(start)[0], self.origin(end - 1)[1]

    def to_original_many(self, starts: list[int], ends: list[int]) -> tuple[list[int], list[int]]:
        """`to_original` for many non-empty spans at once, vectorised: a stage can hand back
        a hundred thousand changes."""
        s, e = self.to_original_arrays(np.asarray(starts, np.int64), np.asarray(ends, np.int64))
        return s.tolist(), e.tolist()

    def to_original_arrays(
        self, starts: np.ndarray, ends: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """`to_original_many` on arrays, to arrays."""
        view_starts = np.frombuffer(self._view_starts, dtype=np.int64)
        orig_starts = np.frombuffer(self._orig_starts, dtype=np.int64)
        orig_ends = np.frombuffer(self._orig_ends, dtype=np.int64)
        identity = np.frombuffer(self._identity, dtype=np.uint8).astype(bool)
        first = starts
        last = ends - 1
        ka = np.searchsorted(view_starts, first, side="right") - 1
        kb = np.searchsorted(view_starts, last, side="right") - 1
        s = np.where(identity[ka], orig_starts[ka] + first - view_starts[ka], orig_starts[ka])
        e = np.where(identity[kb], orig_starts[kb] + last - view_starts[kb] + 1, orig_ends[kb])
        return s, e

    def view_index_to_point(self, view_index: int) -> int:
        """An original offset for an empty view span (insertion point)."""
        if view_index < len(self.text):
            return self.origin(view_index)[0]
        return self._orig_ends[-1] if self._orig_ends else 0

    def from_original(self, orig_offset: int) -> int:
        """Number of view characters whose origin starts before `orig_offset`."""
        k = bisect.bisect_left(self._orig_starts, orig_offset) - 1
        if k < 0:
            return 0
        if self._identity[k] and orig_offset < self._orig_ends[k]:
            return self._view_starts[k] + orig_offset - self._orig_starts[k]
        return self._view_starts[k] + self._length(k)


@dataclass(frozen=True, slots=True)
class Source:
    path: str
    sha256: str
    encoding: str
    chars: int
    format: str = "text"
    undecodable: tuple[tuple[int, str], ...] = ()  # (offset, bytes in hex) replaced by U+FFFD


@dataclass(frozen=True, slots=True)
class Sentence:
    id: str
    start: int
    end: int
    zh: str
    tokens: tuple[str, ...] = ()
    en: str | None = None
    flag: str | None = None
    terms: tuple[Match, ...] = ()  # glossary terms in zh, with their English (terms stage)


BLOCK_KINDS = ("heading", "paragraph", "item", "quote", "code", "cell")


@dataclass(frozen=True, slots=True)
class Block:
    """A unit of the document's structure: its text (sentences), kind and place.

    `level`: a heading's level, a list item's or quote's depth (1 = top). `group` numbers the
    list, table or quote a block belongs to: consecutive blocks of one group render as one list,
    table or quote. `row`/`col`: a table cell's place (row 0 is the header). A `code` block
    holds its text verbatim in `zh`, has no sentences and is never cleaned or translated.
    """

    id: str
    start: int
    end: int
    zh: str
    sentences: tuple[Sentence, ...] = ()
    en: str | None = None
    kind: str = "paragraph"
    level: int = 0
    ordered: bool = False
    group: int = 0
    row: int = 0
    col: int = 0
    lang: str = ""  # a code block's info string


_new = object.__new__
Record = TypeVar("Record", Sentence, Block)
Copier = Callable[[Record, dict], Record]
_COPIERS: dict[tuple[type, tuple[str, ...]], Copier] = {}


def evolve(record: Record, **changes) -> Record:
    """`dataclasses.replace` for a Sentence or Block at a fifth of the cost: a long document
    has tens of thousands of each, and convert, words and translation each renew all of them."""
    key = (type(record), tuple(changes))
    copier = _COPIERS.get(key)
    if copier is None:
        copier = _COPIERS[key] = _copier(*key)
    return copier(record, changes)


def _copier(cls: type, changed: tuple[str, ...]) -> Copier:
    """A copy function for `cls` with the fields `changed` taken from a dict, written out
    field by field, each set through its slot's own descriptor: a loop over the slots with
    getattr and object.__setattr__ (which looks the name up again) was most of a copy."""
    if unknown := set(changed) - set(cls.__slots__):
        raise TypeError(f"{cls.__name__} has no field {sorted(unknown)}")
    body = "".join(
        f"    set_{name}(new, changes[{name!r}])\n"
        if name in changed
        else f"    set_{name}(new, record.{name})\n"
        for name in cls.__slots__
    )
    source = f"def copy(record, changes):\n    new = _new(cls)\n{body}    return new\n"
    namespace = {"_new": _new, "cls": cls}
    namespace.update((f"set_{name}", cls.__dict__[name].__set__) for name in cls.__slots__)
    exec(source, namespace)  # noqa: S102 -- source built from the class's own field names
    return namespace["copy"]


@dataclass(frozen=True)
class Document:
    original: str
    source: Source
    edits: tuple[Edit, ...] = ()
    blocks: tuple[Block, ...] = ()
    notes: tuple[str, ...] = ()
    no_chinese: bool = False  # nothing to translate: written through as it is
    # Structure found by the reader (Markdown, HTML): blocks without text or ids, their spans in
    # `original`; split fills them in. Empty for plain text: split finds the blocks itself.
    outline: tuple[Block, ...] = ()
    title: str | None = None  # the page's own title (front matter, HTML <title>), if it has one
    metadata: dict = field(default_factory=dict)  # a Markdown page's front matter

    @cached_property
    def view(self) -> View:
        return View(self.original, self.edits, self.__dict__.get(_BOUNDS))

    def __getstate__(self) -> dict:
        # The view is derived and large: rebuild it on the other side of a process boundary.
        return {k: v for k, v in self.__dict__.items() if k not in _DERIVED}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def title_block(self) -> Block | None:
        """The block that titles the document: its first level-1 heading."""
        return next((b for b in self.blocks if b.kind == "heading" and b.level == 1), None)

    def kept_text(self, start: int = 0, end: int | None = None) -> str:
        """The kept text of original[start:end]."""
        end = len(self.original) if end is None else end
        view = self.view
        return view.text[view.from_original(start) : view.from_original(end)]

    def replace(self, **changes) -> Document:
        new = dataclasses.replace(self, **changes)
        # The view depends on the original and the edits only; rebuilding it costs a pass over
        # every edit, so a document that keeps both keeps its view.
        if "edits" not in changes and "original" not in changes:
            new.__dict__.update((k, v) for k, v in self.__dict__.items() if k in _DERIVED)
        return new

    def with_note(self, note: str) -> Document:
        return self.replace(notes=(*self.notes, note))

    def apply(self, stage: str, changes: list[Change]) -> Document:
        """Record `changes` (in coordinates of `self.view`) as edits of the original.

        Code blocks are never touched: a change is clipped to the text around them."""
        changes = [c for c in changes if c.end > c.start]
        if changes and self.outline:
            changes = _outside(changes, self._protected_view_spans())
        if not changes:
            return self
        edits, bounds = merge_edits(self.original, self.edits, self.view, stage, changes)
        new = self.replace(edits=edits)
        new.__dict__[_BOUNDS] = bounds  # the next view is built without a pass over the edits
        return new

    def _protected_view_spans(self) -> list[tuple[int, int]]:
        view = self.view
        return [
            (view.from_original(b.start), view.from_original(b.end))
            for b in self.outline
            if b.kind == "code"
        ]


def _outside(changes: list[Change], protected: list[tuple[int, int]]) -> list[Change]:
    """`changes` with the parts inside `protected` spans (sorted, view coordinates) cut out;
    a repair that reaches into one is dropped whole (its replacement cannot be split)."""
    if not protected:
        return changes
    starts = [a for a, _ in protected]
    ends = [b for _, b in protected]
    # The spans a change overlaps (ending after its start, starting before its end) are a
    # slice, found by bisection, when starts and ends are in order (code blocks come in order;
    # else every span is tried): a page can have a hundred thousand changes and many blocks.
    ordered = starts == sorted(starts) and ends == sorted(ends)
    out: list[Change] = []
    for c in changes:
        near = (
            protected[bisect.bisect_right(ends, c.start) : bisect.bisect_left(starts, c.end)]
            if ordered
            else protected
        )
        if not near:  # (most changes) nothing to cut out
            out.append(c)
            continue
        pieces = [(c.start, c.end)]
        for a, b in near:
            if b <= c.start or a >= c.end:
                continue
            if c.replacement:
                pieces = []
                break
            pieces = [
                piece
                for s, e in pieces
                for piece in ((s, min(e, a)), (max(s, b), e))
                if piece[1] > piece[0]
            ]
        out += [c._replace(start=s, end=e) for s, e in pieces]
    return out


def merge_edits(
    original: str,
    edits: tuple[Edit, ...],
    view: View,
    stage: str,
    changes: list[Change],
) -> tuple[tuple[Edit, ...], Bounds]:
    """Fold view-coordinate changes into the edit list of the original (`view` is the view of
    `edits`); returns the new edits and their starts and ends.

    The result is sorted and non-overlapping. A new change that covers earlier edits absorbs them
    (its recorded text is the original span, earlier cuts included); a change that cuts into a
    repair keeps the rest of the repaired text as its replacement. Adjacent removals of the same
    stage merge into one.
    """
    # Longest first among changes that start together: a group takes its first change's reason.
    # (Two sorts with C keys: a stage can hand back a hundred thousand changes.)
    by_end = sorted(changes, key=_end, reverse=True)
    changes = sorted(by_end, key=_start)
    n = len(changes)
    v_starts = np.fromiter(map(_start, changes), np.int64, n)
    v_ends = np.fromiter(map(_end, changes), np.int64, n)
    o_starts, o_ends = view.to_original_arrays(v_starts, v_ends)
    edit_starts, edit_ends = view.edit_starts, view.edit_ends
    # Most changes (a page's hundred thousand readings) touch no other change and no earlier edit:
    # each becomes an edit of its own original span as it is, found here for all at once; only
    # the others go through the grouping and absorbing below.
    alone = _alone(v_starts, v_ends, o_starts, o_ends, edit_starts, edit_ends)
    o_start_list, o_end_list = o_starts.tolist(), o_ends.tolist()
    # (tuple.__new__ directly: a named tuple's own __new__ is a Python function call)
    new_edits = [
        _new_tuple(Edit, (a, b, stage, sys.intern(c.reason), original[a:b], c.replacement, c.kind))
        for c, a, b, is_alone in zip(changes, o_start_list, o_end_list, alone.tolist(), strict=True)
        if is_alone
    ]
    others = np.flatnonzero(~alone).tolist()
    groups = _group_overlapping(
        view,
        [changes[k] for k in others],
        [o_start_list[k] for k in others],
        [o_end_list[k] for k in others],
    )
    starts_list, ends_list = edit_starts.tolist(), edit_ends.tolist()
    absorbed: set[int] = set()
    for v_start, v_end, replacement, reason, kind, s, e in groups:
        # Existing edits that overlap [s, e) are absorbed into the new one.
        i = max(bisect.bisect_right(starts_list, s) - 1, 0)
        lo, hi = s, e
        absorbs = False
        while i < len(edits) and starts_list[i] < e:
            if ends_list[i] > s or (starts_list[i] == ends_list[i] == s):
                absorbed.add(i)
                absorbs = True
                lo, hi = min(lo, starts_list[i]), max(hi, ends_list[i])
            i += 1
        kept = replacement
        if absorbs:
            # Keep whatever view text the widened span held outside the change (part of a repair).
            va, vb = view.from_original(lo), view.from_original(hi)
            kept = view.text[va:v_start] + replacement + view.text[v_end:vb]
        # Many edits share a reason ("reading of 發"): one string object serves them all.
        new_edits.append(Edit(lo, hi, stage, sys.intern(reason), original[lo:hi], kept, kind))
    kept_edits = [e for i, e in enumerate(edits) if i not in absorbed] if absorbed else list(edits)
    new_edits.sort(key=_start)
    # Sorted runs: the sort merges them in linear time. The offsets go through the same
    # (stable) sort in numpy, instead of a pass over every edit afterwards.
    merged = sorted(kept_edits + new_edits, key=_start)
    kept = np.ones(len(edits), bool)
    kept[list(absorbed)] = False
    new_starts, new_ends = _bounds(new_edits)
    starts = np.concatenate([edit_starts[kept], new_starts])
    order = np.argsort(starts, kind="stable")
    ends = np.concatenate([edit_ends[kept], new_ends])[order]
    return _join_adjacent(original, merged, (starts[order], ends))


def _alone(
    v_starts: np.ndarray,
    v_ends: np.ndarray,
    o_starts: np.ndarray,
    o_ends: np.ndarray,
    edit_starts: np.ndarray,
    edit_ends: np.ndarray,
) -> np.ndarray:
    """Which of the changes (sorted by start) overlap no other change, in the view or in the
    original, and no existing edit: what `_group_overlapping` would leave a group of one and
    the absorbing loop would leave as it is."""
    n = len(v_starts)
    if n == 0:
        return np.zeros(0, bool)
    if len(edit_starts) and np.any(edit_starts == edit_ends):
        return np.zeros(n, bool)  # an empty edit (never made): the general path decides
    # apart from every earlier change (their furthest end) ...
    apart = np.ones(n, bool)
    apart[1:] = (v_starts[1:] >= np.maximum.accumulate(v_ends)[:-1]) & (
        o_starts[1:] >= np.maximum.accumulate(o_ends)[:-1]
    )
    # ... and from every later one
    alone = apart.copy()
    alone[:-1] &= apart[1:]
    if len(edit_starts):
        # Edits are sorted and apart: the last one starting before a change's end reaches
        # furthest of those; the change touches an edit if that one ends after its start.
        last = np.searchsorted(edit_starts, o_ends, side="left") - 1
        alone &= (last < 0) | (edit_ends[np.maximum(last, 0)] <= o_starts)
    return alone


_new_tuple = tuple.__new__
_start = attrgetter("start")
_end = attrgetter("end")
Bounds = tuple[np.ndarray, np.ndarray]  # the starts and ends of a list of edits (int64)
# Kept in a document's __dict__ beside its view: the starts and ends of its edits, when the
# apply that made them had them already.
_BOUNDS = "_edit_bounds"
_DERIVED = frozenset({"view", _BOUNDS})  # what depends on `original` and `edits` alone


def _bounds(edits: Sequence[Edit]) -> Bounds:
    n = len(edits)
    return np.fromiter(map(_start, edits), np.int64, n), np.fromiter(map(_end, edits), np.int64, n)


def _group_overlapping(
    view: View, changes: list[Change], orig_starts: list[int], orig_ends: list[int]
) -> list[tuple[int, int, str, str, str, int, int]]:
    """Unite changes (sorted, with their original spans) that overlap in the view or in the
    original (through a shared repair).

    Each group: view span, replacement, reason, kind, and the original span it covers.
    """
    groups: list[tuple[int, int, str, str, str, int, int]] = []
    last_orig_end = -1
    for c, s, e in zip(changes, orig_starts, orig_ends, strict=True):
        if groups and (c.start < groups[-1][1] or s < last_orig_end):
            g_start, g_end, g_replacement, g_reason, g_kind, g_s, _ = groups[-1]
            if c.end > g_end:
                gap = view.text[g_end : c.start] if c.start > g_end else ""
                replacement = g_replacement + gap + c.replacement
                groups[-1] = (g_start, c.end, replacement, g_reason, g_kind, g_s, e)
            last_orig_end = max(last_orig_end, e)
            continue
        groups.append((c.start, c.end, c.replacement, c.reason, c.kind, s, e))
        last_orig_end = e
    return groups


def _join_adjacent(
    original: str, edits: list[Edit], bounds: Bounds
) -> tuple[tuple[Edit, ...], Bounds]:
    """Adjacent removals of one stage and kind become one. Only touching pairs (end == next
    start, found with numpy) are looked at: a page keeps its hundred thousand readings from
    apply to apply, and a Python loop over all of them each time was most of an apply.
    `bounds`: the edits' starts and ends; returned for the edits that result."""
    starts, ends = bounds
    touching = np.flatnonzero(ends[:-1] == starts[1:])
    if not len(touching):
        return tuple(edits), bounds
    out: list[Edit | None] = list(edits)
    head_of: dict[int, int] = {}  # an edit joined into an earlier one → that one's index
    for i in touching.tolist():
        head = head_of.get(i, i)
        prev, edit = out[head], edits[i + 1]
        assert prev is not None
        if (
            prev.stage == edit.stage
            and prev.kind == edit.kind
            and prev.is_removal
            and edit.is_removal
        ):
            reasons = prev.reason.split("; ")
            reason = prev.reason if edit.reason in reasons else f"{prev.reason}; {edit.reason}"
            text = original[prev.start : edit.end]
            out[head] = Edit(prev.start, edit.end, prev.stage, reason, text, kind=edit.kind)
            out[i + 1] = None
            head_of[i + 1] = head
    joined = tuple(e for e in out if e is not None)
    return joined, _bounds(joined)
