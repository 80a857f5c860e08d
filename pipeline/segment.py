"""Word segmentation: jieba's tokens (precise mode, HMM), shared by the words stage and the gloss.

jieba 0.42.1 is the reference. rjieba (jieba-rs, the same dictionary, route and HMM in Rust;
alone ~7× jieba-fast, with the rules below ~2.5×, bench/) gives jieba's tokens on runs of Han
characters,
but splits Latin letters, digits and URLs its own way (`research.google` whole, where jieba
splits at the dot). So the text is cut the way jieba cuts it, and rjieba only gets what it
provably agrees on:

- a sentence with no Latin letter, digit, `+#&._%-`, Han character outside jieba's range or
  white space other than the plain space goes to rjieba whole (most sentences);
- otherwise the sentence is split into jieba's blocks (`re_han_default`): a block of Han
  characters goes to rjieba; a block that mixes Han with Latin, digits or `+#&._%-` is cut
  at the Han/Latin edges: each Han run by rjieba, each Latin run as jieba's HMM step splits
  it (`finalseg.re_skip`). That is jieba's result because no dictionary word crosses such an
  edge (the few dictionary words with Latin — `T恤`, `C++`, `AA制`, and user words like
  `GPT-4` — send the block to jieba's route), every Latin character is a one-character step
  of jieba's route, and the characters jieba's route leaves alone on both sides of the edge
  are one buffer whose Han part its HMM cuts just as rjieba cuts them at the end of a run —
  unless those characters form a dictionary word (then jieba cuts them by HMM, rjieba one by
  one): that case, too, goes to jieba's route;
- everything else (punctuation, white space) is split as jieba splits it.

What rjieba cannot be trusted with — a block with a repeated unit (see `_SQUARE`), a block with
a dictionary word that has Latin letters, a dictionary word at a Latin edge — is cut by jieba's
own algorithm written out here (`JiebaRoute`: its DAG, its route with its floating-point sums in
its order, its HMM for the characters the route leaves alone), over jieba's dictionary file read
as bytes: exactly jieba's result, without loading jieba's tokenizer (~1 s of every run whose
text has one such block).

User dictionaries (`pipeline/data/userdict.txt`, `--user-dict`) are added to both with jieba's
frequencies. rjieba's total frequency, which weighs every route, drops a word's old frequency
when a user dictionary sets it again and jieba's does not: a word no text can contain makes up
the difference. A user dictionary line without a frequency (jieba suggests one from its own
cut) or with frequency 0 (jieba then forces the word apart) is only jieba's to interpret: with
such a dictionary every sentence goes to jieba. tests/test_segment.py checks all of this
against jieba token for token on the seeds, the fixtures and generated text.

A segmenter is built once per process for each set of user dictionaries, keyed by their
content; jieba's dictionary is read only when some text needs it, and jieba's tokenizer only
for a user dictionary that needs it.
"""

from __future__ import annotations

import io
import logging
import math
import re
import sys
from functools import cached_property, lru_cache
from importlib import resources
from importlib.util import find_spec
from itertools import accumulate
from pathlib import Path

import rjieba

_intern = sys.intern

# jieba's own patterns (jieba/__init__.py, jieba/finalseg/__init__.py, 0.42.1)
_BLOCK = re.compile("([\u4e00-\u9fd5a-zA-Z0-9+#&\\._%\\-]+)")  # re_han_default
_SPACE = re.compile(r"(\r\n|\s)")  # re_skip_default
_HMM_SKIP = re.compile(r"([a-zA-Z0-9]+(?:\.\d+)?%?)")  # finalseg.re_skip
_USERDICT_LINE = re.compile("^(.+?)( [0-9]+)?( [a-z]+)?$")  # re_userdict
_WHITE_SPACE = re.compile(r"\s")
_HAN_RUN = re.compile("([\u4e00-\u9fd5]+)")
_HAN_ONLY = re.compile("[\u4e00-\u9fd5]+")
# A repeated unit (语语, 哈哈哈, 谢谢谢谢): two routes can then be the same words in another
# order, of exactly equal probability, and rjieba breaks such a tie otherwise than jieba
# (语语语学: 语|语语|学 or 语语|语学, depending on the last bit of a float sum). Such a block is
# cut by jieba's own route (JiebaRoute).
_SQUARE = re.compile("([\u4e00-\u9fd5]+)\\1")
# jieba's dictionary words of two or more characters with a Latin block character (all of
# them: tests/test_segment.py reads the dictionary).
DICTIONARY_LATIN_WORDS = (  # noqa: SIM905 - a word list reads better as text
    "AT&T B超 c# C# c++ C++ T恤 A座 A股 A型 A轮 AA制 AB型 B座 B股 B型 B轮 BB机 BP机 C盘 C座 "
    "C语言 CD盒 CD机 CALL机 D盘 D座 D版 E盘 E座 E化 E通 F盘 F座 G盘 H盘 H股 I盘 IC卡 IP卡 "
    "IP电话 IP地址 K党 K歌之王 N年 O型 PC机 PH值 SIM卡 U盘 VISA卡 Z盘 Q版 QQ号 RSS订阅 T盘 X光 "
    "X光线 X射线 T恤衫 T型台 T台 4S店 4s店 江南style 江南Style 1号店 小S 大S 阿Q"
).split()
# Stands in, in rjieba's total, for the frequencies jieba counts twice; never in any text cut.
_BALANCE = "\U000f0000"

_LATIN = "a-zA-Z0-9+#&._%\\-"  # jieba's block characters besides Han
_HAN = "\u4e00-\u9fd5"  # jieba's Han range
_SEP = "\x00"
# What rjieba's whole-text cut cannot be trusted with: a Han character that rjieba reads as
# Han and jieba does not, or the token separator used below.
_NOT_FOR_RJIEBA = re.compile("[\x00\u3400-\u4dbf\u9fd6-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]")
_HAS_LATIN = re.compile(f"[{_LATIN}]")
# The patterns below that are only searched for (is there one?) lead with a Latin character,
# with what comes before it looked behind: the engine skips to Latin characters instead of
# trying a match at every character of a mostly Han text.
# In the tokens joined by _SEP: a token with Latin and other characters together (rjieba
# read a Latin run otherwise than as a run of its own: never seen, but the rest rests on it)
_MIXED_TOKEN = re.compile(f"[{_LATIN}](?:[^\x00{_LATIN}]|(?<=[^\x00{_LATIN}][{_LATIN}]))")
# two one-character Han tokens next to a Latin one: jieba's buffer may hold a dictionary word
# there (see _mixed_block); after the Latin token, or before it (two patterns: a look-behind
# has one width, and the two Han tokens may start the text)
_SINGLES_AFTER_LATIN = re.compile(f"[{_LATIN}]\x00[{_HAN}]\x00[{_HAN}](?:\x00|$)")
_SINGLES_BEFORE_LATIN = re.compile(
    f"[{_LATIN}](?:(?<=\x00[{_HAN}]\x00[{_HAN}]\x00.)|(?<=^[{_HAN}]\x00[{_HAN}]\x00.))"
)
# a whole run of one-character Han tokens (two or more)
_SINGLES = re.compile(f"(?<![^\x00])[{_HAN}](?:\x00[{_HAN}])+(?![^\x00])")
_LATIN_SPLIT = re.compile(f"\x00(?=[{_LATIN}])(?<=[{_LATIN}]\x00)")  # within a Latin run
# a Latin run with a character jieba's HMM step may split at (`research.google`, `GPT-4`):
# `(?<![LATIN])[a-zA-Z0-9]*+[+#&._%-][LATIN]*+`, led by the run's first character (its
# look-behind after it) so that the engine skips to Latin characters
_SPLITTABLE_RUN = re.compile(
    f"[{_LATIN}](?<![{_LATIN}].)"
    f"(?:(?<=[a-zA-Z0-9])[a-zA-Z0-9]*+[+#&._%\\-]|(?<=[+#&._%\\-]))[{_LATIN}]*+"
)


def _split_run(m: re.Match) -> str:
    return _SEP.join([p for p in _HMM_SKIP.split(m.group()) if p])


_default_taken = False


def _rjieba() -> rjieba.Jieba:
    """A fresh rjieba instance. Importing rjieba already built one (its module-level default,
    ~0.3 s of loading the dictionary): the first segmenter of a process takes that one."""
    global _default_taken
    if _default_taken:
        return rjieba.Jieba()
    _default_taken = True
    return rjieba._DEFAULT_JIEBA


def _jieba_dictionary() -> Path:
    spec = find_spec("jieba")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent / "dict.txt"


def parse_user_dict(data: bytes) -> list[tuple[str, int | None, str | None]]:
    """(word, frequency or None, tag or None) per line, as jieba's load_userdict reads it."""
    entries = []
    for raw in data.splitlines():
        line = raw.strip().decode("utf-8").lstrip("\ufeff")
        if not line:
            continue
        match = _USERDICT_LINE.match(line)
        if match is None:  # jieba fails on such a line too (never: the pattern takes any text)
            raise ValueError(f"invalid dictionary entry: {line!r}")
        word, freq, tag = match.groups()
        entries.append((word, int(freq) if freq else None, tag.strip() if tag else None))
    return entries


def _base_frequencies(words: list[str]) -> dict[str, int]:
    """jieba's dictionary frequency of each of `words` (the last line wins, as in jieba)."""
    if not words:
        return {}
    # Each line starts after a newline (one before the first too): a literal the search
    # skips to at C speed, where `(?m)^` tried the words at every byte of the 5 MB file.
    data = b"\n" + _jieba_dictionary().read_bytes()
    names = "|".join(re.escape(w) for w in words).encode("utf-8")
    found: dict[str, int] = {}
    for m in re.finditer(rb"\n(" + names + rb") ([0-9]+)", data):
        found[m.group(1).decode("utf-8")] = int(m.group(2))
    return found


class JiebaRoute:
    """jieba's cut of one block (`Tokenizer.__cut_DAG` with HMM, jieba 0.42.1), written out over
    jieba's dictionary: the DAG of dictionary words, the best route computed from the end with
    jieba's very float operations (so ties between equal routes fall as in jieba), and jieba's
    HMM (`finalseg`, imported without loading jieba's tokenizer) for runs of characters the route
    leaves alone that are not a word. For the few blocks rjieba cannot be trusted with: Python,
    but no 1 s of loading jieba's tokenizer."""

    def __init__(self, entries: list[tuple[str, int, str | None]]):
        # jieba's dict.txt: `word freq tag` per line. The words stay bytes (a dict of 350,000
        # bytes keys is built in a fifth of the time jieba's own loading takes).
        fields = _jieba_dictionary().read_bytes().split()
        frequencies = list(map(int, fields[1::3]))
        frequency = dict(zip(fields[0::3], frequencies, strict=True))
        total = sum(frequencies)  # every line counts, as in jieba's gen_pfdict
        for word, freq, _ in entries:  # jieba's add_word: the last frequency wins, all count
            frequency[word.encode("utf-8")] = freq
            total += freq
        self._frequency = frequency
        self._log_total = math.log(total)
        self._longest = max(map(len, frequency))  # in bytes: how far a DAG edge can reach

    def _dag(self, block: bytes, offsets: list[int]) -> list[list[int]]:
        """jieba's get_DAG: the last index of every word (of non-zero frequency) starting at
        each character, or the character alone. `offsets`: where each character starts in the
        UTF-8 `block`, and its end."""
        frequency, longest = self._frequency, self._longest
        n = len(offsets) - 1
        dag = []
        for k in range(n):
            a = offsets[k]
            ends = []
            i = k
            while i < n and offsets[i + 1] - a <= longest:
                if frequency.get(block[a : offsets[i + 1]]):
                    ends.append(i)
                i += 1
            dag.append(ends or [k])
        return dag

    def cut(self, block: str) -> list[str]:
        """jieba's tokens of one block (a `re_han_default` match)."""
        from jieba import finalseg  # jieba's HMM alone: its tokenizer is never loaded

        n = len(block)
        data = block.encode("utf-8")
        offsets = [0, *accumulate(len(c.encode("utf-8")) for c in block)]
        dag = self._dag(data, offsets)
        log, log_total, frequency = math.log, self._log_total, self._frequency
        # jieba's calc, operation for operation: (log(freq or 1) - logtotal) + route[x + 1],
        # the largest (probability, end) pair.
        route: list[tuple[float, int]] = [(0.0, 0)] * (n + 1)
        for k in range(n - 1, -1, -1):
            a = offsets[k]
            route[k] = max(
                (log(frequency.get(data[a : offsets[x + 1]]) or 1) - log_total + route[x + 1][0], x)
                for x in dag[k]
            )
        out: list[str] = []
        buf = ""

        def flush() -> None:
            if len(buf) == 1:
                out.append(buf)
            elif buf and not frequency.get(buf.encode("utf-8")):
                out.extend(finalseg.cut(buf))
            else:
                out.extend(buf)

        x = 0
        while x < n:
            y = route[x][1] + 1
            if y - x == 1:
                buf += block[x]
            else:
                flush()
                buf = ""
                out.append(block[x:y])
            x = y
        flush()
        return out


class Segmenter:
    def __init__(self, user_dicts: tuple[str, ...] = ()):
        packaged = resources.files("pipeline.data").joinpath("userdict.txt").read_bytes()
        self._dicts = (packaged, *(d.encode("utf-8") for d in user_dicts))
        entries = [e for data in self._dicts for e in parse_user_dict(data)]
        # Only jieba knows the frequency it suggests, or what frequency 0 does to its HMM.
        self.jieba_only = any(not freq for _, freq, _ in entries)
        self._fast = _rjieba()
        self._entries = entries
        if self.jieba_only:
            return
        in_dictionary = [w for w, _, _ in entries if self._fast.has_word(w)]
        frequency = _base_frequencies(in_dictionary)
        counted_twice = 0
        for word, freq, tag in entries:
            counted_twice += frequency.get(word, 0)  # rjieba drops it from its total, jieba not
            frequency[word] = freq
            self._fast.add_word(word, freq, tag)
        if counted_twice:
            self._fast.add_word(_BALANCE, counted_twice, None)
        latin = DICTIONARY_LATIN_WORDS + [w for w, _, _ in entries if _HAS_LATIN.search(w)]
        names = sorted({w for w in latin if len(w) > 1}, key=len, reverse=True)
        self._latin_words = re.compile("|".join(re.escape(w) for w in names))

    @cached_property
    def _route(self) -> JiebaRoute:
        """jieba's own route, for the blocks rjieba cannot be trusted with."""
        return JiebaRoute(self._entries)  # type: ignore[arg-type] -- every frequency is set

    @cached_property
    def _jieba(self):
        """jieba itself, with the same dictionaries: for a user dictionary whose frequencies
        only jieba knows (see the module docstring)."""
        import jieba

        jieba.setLogLevel(logging.WARNING)
        tokenizer = jieba.Tokenizer()
        for data in self._dicts:
            tokenizer.load_userdict(io.BytesIO(data))
        return tokenizer

    def cut(self, text: str) -> list[str]:
        """jieba's precise-mode tokens, white space included."""
        if self.jieba_only:
            return self._jieba.lcut(text, HMM=True)
        if _SQUARE.search(text):
            return self._block_cut(text)
        latin = _HAS_LATIN.search(text) is not None  # (every Latin dictionary word has one)
        if _NOT_FOR_RJIEBA.search(text) is None and not (latin and self._latin_words.search(text)):
            tokens = self._fast.cut(text)
            if not latin:
                return tokens
            # rjieba keeps Latin runs whole where jieba's HMM step splits them: join the
            # tokens, check what the equality rests on, then split each run jieba's way (a
            # few passes of C; the block path loops over jieba's blocks in Python).
            joined = _SEP.join(tokens)
            if _MIXED_TOKEN.search(joined) is None and not self._word_by_latin(joined):
                joined = _SPLITTABLE_RUN.sub(_split_run, _LATIN_SPLIT.sub("", joined))
                return joined.split(_SEP)
        return self._block_cut(text)

    def _word_by_latin(self, joined: str) -> bool:
        """Is a run of one-character Han tokens next to a Latin token a dictionary word?"""
        if _SINGLES_AFTER_LATIN.search(joined) is None and (
            _SINGLES_BEFORE_LATIN.search(joined) is None
        ):  # the usual case
            return False
        for m in _SINGLES.finditer(joined):
            a, b = m.span()
            by_latin = (a > 1 and _HAS_LATIN.match(joined, a - 2)) or (
                b + 1 < len(joined) and _HAS_LATIN.match(joined, b + 1)
            )
            if by_latin and self._fast.has_word(m.group().replace(_SEP, "")):
                return True
        return False

    def _block_cut(self, text: str) -> list[str]:
        """Block by block, as jieba's cut goes."""
        out: list[str] = []
        for i, part in enumerate(_BLOCK.split(text)):
            if not part:
                continue
            if i % 2 == 0:  # between blocks: white space as it is, the rest one by one
                for j, piece in enumerate(_SPACE.split(part)):
                    if j % 2:
                        out.append(piece)
                    else:
                        out += piece
            elif _HAN_ONLY.fullmatch(part):
                out += self._route.cut(part) if _SQUARE.search(part) else self._fast.cut(part)
            else:
                out += self._mixed_block(part)
        return out

    def _mixed_block(self, block: str) -> list[str]:
        """A jieba block with Han and Latin/digits (see the module docstring)."""
        if self._latin_words.search(block) or _SQUARE.search(block):
            return self._route.cut(block)
        parts = _HAN_RUN.split(block)  # Latin, Han, Latin, …, Latin
        out: list[str] = []
        for i, part in enumerate(parts):
            if not part:
                continue
            if i % 2 == 0:
                out += [p for p in _HMM_SKIP.split(part) if p]
                continue
            tokens = self._fast.cut(part)
            if (parts[i - 1] and self._single_word(tokens)) or (
                i + 1 < len(parts) and parts[i + 1] and self._single_word(tokens[::-1])
            ):
                return self._route.cut(block)
            out += tokens
        return out

    def _single_word(self, tokens: list[str]) -> bool:
        """Do the one-character tokens at the start of `tokens` spell a dictionary word (in
        either order: the caller reverses the list for the end)?"""
        run = []
        for t in tokens:
            if len(t) != 1:
                break
            run.append(t)
        if len(run) < 2:
            return False
        return self._fast.has_word("".join(run)) or self._fast.has_word("".join(run[::-1]))

    def words(self, text: str) -> tuple[str, ...]:
        """The tokens without white space, interned: a long document repeats the same few
        thousand words millions of times."""
        tokens = self.cut(text)
        if _WHITE_SPACE.search(text):  # most sentences have none: no test per token
            tokens = [w for w in tokens if not w.isspace()]
        return tuple(map(_intern, tokens))


@lru_cache(maxsize=4)
def segmenter(user_dicts: tuple[str, ...] = ()) -> Segmenter:
    """The segmenter for these user dictionaries (their text), built once per process."""
    return Segmenter(user_dicts)
