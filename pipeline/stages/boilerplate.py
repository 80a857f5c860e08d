"""boilerplate: site chrome left behind by the scraper.

- whole lines that match a chrome pattern (pipeline/data/boilerplate.txt): footers, editor and
  copyright lines, login prompts, share/QR prompts, counters, image file names, list headers;
- menus: a line of three or more short items between `•`, `|`, `·` or `/` separators;
- footers glued after content (`…html返回搜狐，查看更多`): cut from the footer on, keep the content;
- image file names inside a line (`fc6930ae-….png`, `640?wx_fmt=png`);
- related-article lists: the short lines under a "相关阅读"-style header, down to a sentence
  or a separator line;
- line-number gutters a code highlighter left as lines of their own (`1`, `2`, `3`, …);
- decoration lines with no letter, digit or character at all (▼, ↓↓↓, ———).

Titles, bylines, dates and source lines are content and stay.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pipeline.context import Context
from pipeline.data import data_fullmatch
from pipeline.document import Change, Document
from pipeline.registry import stage
from pipeline.text import (
    DATE_LINE,
    HAN,
    LONE_PIPE,
    TABLE_RULE,
    fold,
    lines,
    lines_matching,
    nonblank_lines,
    strip_span,
    table_lines,
    url_spans,
)

STAGE = "boilerplate"

_GLUED_FOOTERS = re.compile(
    r"(?:返回搜狐[，,]?\s*查看更多|[(（]?责任编辑[：:][^)）\n]{0,20}[)）]?\s*$|"
    r"(?:本文)?来源[：:]\s*(?:网络|互联网)\s*$)"
)
_INLINE_IMAGES = re.compile(
    r"(?<![\w/.-])[\w-]{6,}\.(?:png|jpe?g|gif|webp|bmp)(?:\?\S*)?(?![\w])|\b\d+\?wx_fmt=\w+(?:&\S*)?",
    re.I,
)
_MENU_SEPARATOR = re.compile(r"\s*[•·|｜/／]\s*")
_MENU_WORDS = re.compile(
    "消息|登录|注册|首页|评论|回复|收藏|设置|中心|退出|帮助|关于|联系|下载|搜索|频道|论坛|博客|"
    "新闻|财经|科技|体育|娱乐|汽车|房产|游戏|视频|图片|动态|通知|私信"
)
_SENTENCE_END = re.compile("[。！？!?；]")
_RELATED_HEADERS = (
    "相关阅读|相关文章|相关推荐|推荐阅读|猜你喜欢|热门推荐|精彩推荐|为你推荐|今日推荐|"
    "大家都在看|延伸阅读|热门文章|往期回顾|往期推荐|更多精彩|新闻推荐|相关新闻|相关资讯|相关链接|"
    "热门新闻|热点新闻|最新文章|最新新闻|热门阅读|精选文章|同场加映|其他人也在看|大家也在看|"
    "看了本文的人还看了"
)
_RELATED_HEADER = re.compile(rf"^(?:{_RELATED_HEADERS})[：:]?$")
_RELATED_HINT = re.compile(_RELATED_HEADERS)  # finds the few lines worth the full check
_RELATED_ITEM_MAX = 40
_RELATED_MAX_ITEMS = 15


def is_chrome_line(line: str, in_table: bool) -> bool:
    """Does a stripped, character-Simplified line match a chrome pattern or look like a menu?
    A row of a Markdown table (`in_table`) is no menu, however short its cells."""
    return data_fullmatch("boilerplate.txt", line) or (not in_table and _is_menu(line))


def _is_menu(line: str) -> bool:
    if _SENTENCE_END.search(line) or len(_MENU_SEPARATOR.findall(line)) < 2:
        return False
    items = [i for i in _MENU_SEPARATOR.split(line) if i]
    if len(items) < 3 or any("、" in i for i in items):  # 、 lists things: a table row's cell
        return False
    if any(len(i) > 8 for i in items):
        return False
    return len(items) >= 5 or any(_MENU_WORDS.search(i) for i in items)


def _related_list_changes(text: str, matched: str, spans: list[tuple[int, int]]) -> list[Change]:
    changes = []
    end_of_list = 0
    for i in sorted(lines_matching(_RELATED_HINT, matched, spans)):
        a, b = strip_span(matched, *spans[i])
        if i < end_of_list or not _RELATED_HEADER.match(matched[a:b]):
            continue
        changes.append(Change(a, b, "related-articles header"))
        items = 0
        j = i + 1
        while j < len(spans) and items < _RELATED_MAX_ITEMS:
            ia, ib = strip_span(text, *spans[j])
            if ia == ib:
                j += 1
                continue
            item = text[ia:ib]
            # a sentence, or a separator (`======`, `●●●`) between the list and what follows
            if (
                len(item) > _RELATED_ITEM_MAX
                or _SENTENCE_END.search(item[-1:])
                or _is_decoration(item)
            ):
                break
            changes.append(Change(ia, ib, "related-articles list"))
            items += 1
            j += 1
        end_of_list = j
    return changes


_NUMBER_LINE = re.compile(r"[^\S\n]*(\d{1,3})[^\S\n]*")
_NUMBER_LINE_HINT = re.compile(r"^[^\S\n]*\d{1,3}[^\S\n]*$", re.M)
_GUTTER_MIN = 3  # lines


def _gutter_changes(text: str, spans: list[tuple[int, int]]) -> list[Change]:
    """Runs of at least _GUTTER_MIN lines holding one number each, counting up by one: the line
    numbers a code block's gutter leaves when the page is flattened to text (the code itself
    follows and stays). Three digits at most: a column of years (2019, 2020, …) is a table."""
    changes: list[Change] = []
    if not _NUMBER_LINE_HINT.search(text):  # most pages: no line is a bare number
        return changes
    run: list[tuple[int, int]] = []
    previous = None
    for start, end in [*spans, (len(text), len(text))]:
        m = _NUMBER_LINE.fullmatch(text, start, end) if start < end else None
        number = int(m.group(1)) if m else None
        if number is not None and previous is not None and number == previous + 1:
            run.append((start, end))
        else:
            if len(run) >= _GUTTER_MIN:
                changes += [Change(*strip_span(text, a, b), "code line numbers") for a, b in run]
            run = [(start, end)] if number is not None else []
        previous = number
    return changes


# A forum poster's profile panel printed one field per line: the label (`积分`, a rule of its
# own) and its value on the line after or before it, a count or a date (`注册时间` / `2018-6-9`;
# corpus: 59 such values, all boilerplate).
_PROFILE_LABEL = re.compile(
    r"^[^\S\n]*(?:积分|帖子|主题|精华|金钱|威望|贡献|在线时间|听众|收听|好友|发帖|回帖|阅读权限|"
    r"注册时间|注册日期|最后登录|上次登录|加入时间)[：:]?[^\S\n]*$",
    re.M,
)
_PROFILE_VALUE = re.compile(
    r"-?\d{1,9}|\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:\s+\d{1,2}:\d{2}(?::\d{2})?)?"
)


def _profile_count_changes(
    text: str, matched: str, spans: list[tuple[int, int]]
) -> list[Change]:
    """Bare counts and dates next to a profile field label: a poster's profile panel."""
    label_starts = {m.start() for m in _PROFILE_LABEL.finditer(matched)}
    if not label_starts:  # most pages
        return []
    nonblank = nonblank_lines(text, spans)
    is_label = [spans[i][0] in label_starts for i, _, _ in nonblank]
    changes = []
    for k, (_, a, b) in enumerate(nonblank):
        beside_label = (k > 0 and is_label[k - 1]) or (k + 1 < len(nonblank) and is_label[k + 1])
        if beside_label and not is_label[k] and _PROFILE_VALUE.fullmatch(text, a, b):
            changes.append(Change(a, b, "profile field value"))
    return changes


_DATE_COLUMN_MIN = 3  # lines
_DIGIT = re.compile(r"\d")  # DATE_LINE's digits


def _date_column_changes(text: str, spans: list[tuple[int, int]]) -> list[Change]:
    """Runs of at least _DATE_COLUMN_MIN consecutive non-blank lines that are each only a date
    or time: the timestamps of a list whose items the scraper lost (corpus: 48 such lines once
    the other rules have blanked the `more` links between them; 47 boilerplate, and one page's
    own date right above its list's). One date line, or dates between items, are left to the
    classifier."""
    runs: list[list[tuple[int, int]]] = [[]]
    dated = lines_matching(_DIGIT, text, spans)  # a date has digits: one scan finds its lines
    for i, a, b in nonblank_lines(text, spans):  # blank lines do not break a column
        if i in dated and DATE_LINE.match(text[a:b]):
            runs[-1].append((a, b))
        elif runs[-1]:
            runs.append([])
    return [
        Change(a, b, "column of dates")
        for run in runs
        if len(run) >= _DATE_COLUMN_MIN
        for a, b in run
    ]


# Cheap whole-text scans that find the few lines worth the full footer or image check: each is
# implied by the pattern it stands in for.
_FOOTER_HINT = re.compile("返回搜狐|责任编辑|来源")
# `}`, `);`, `]`, `*/`: a line of code with no word on it is still code, and code is content
_CODE_PUNCTUATION = re.compile(r"[{}()\[\];]|^\s*(?:/\*|\*/|//|#|<!--|-->)")
_IMAGE_HINT = re.compile(r"\.(?:png|jpe?g|gif|webp|bmp)|\?wx_fmt=", re.I)


_DIAGRAM_JOINTS = re.compile("[┌┐└┘├┤┬┴┼╔╗╚╝╠╣╦╩╬╭╮╯╰]")
_PROSE_MARKS = frozenset("。，、；：？！…「」『』“”‘’（）《》〈〉")
# Units and mathematical signs: an exam paper printed one token per line leaves `℃`, `°`, `∠`
# or `﹣` alone on a line, part of a formula. (`×` stays out: alone, it is a close button.)
_FORMULA_SIGNS = frozenset("℃℉°′″∠﹣−±≤≥≦≧≈≠≡∵∴⊥∥△∽≌√∞∑∫π%‰")
# ASCII rules drawn with one repeated mark: `----`, `====`, `* * *`, `~~~`
_ASCII_RULE = re.compile(r"([-=_*~#])\1{2,}")


def _is_decoration(line: str) -> bool:
    """No word at all, and not code: symbols and arrows (▼, ↓↓↓, ———, ★★★) or an ASCII rule
    (----, ====, * * *). Other ASCII marks are code, not decoration: `$#`, `$?`, `=>` are a
    shell's or a language's operators on a line of their own, and code split one token per
    line leaves `,`, `=`, `/`, `...` alone on theirs."""
    if any(c.isalnum() for c in line) or _CODE_PUNCTUATION.search(line) or TABLE_RULE.match(line):
        return False
    if _DIAGRAM_JOINTS.search(line):  # ┌───┼───┐: the frame of a box diagram, not a rule
        return False
    compact = "".join(line.split())
    if set(compact.strip("|｜")) <= _FORMULA_SIGNS:  # `℃` alone, or a table cell `| √ |`
        return False
    if compact.isascii():
        return _ASCII_RULE.fullmatch(compact) is not None
    # a lone `。` or `？」` closes a sentence the page broke across lines: punctuation, not art
    return not all(c in _PROSE_MARKS for c in compact)


def _line_changes(
    text: str,
    matched: str,
    start: int,
    end: int,
    footer_hint: bool,
    image_hint: bool,
    in_table: bool,
) -> list[Change]:
    a, b = strip_span(matched, start, end)
    if a == b:
        return []
    line = matched[a:b]
    # `end` in lower case alone on its line closes a block of Ruby, Lua, MATLAB or a mermaid
    # diagram: code. (The patterns match case-folded text; an article's end mark is `END`.)
    if is_chrome_line(line, in_table) and text[a:b] != "end":
        return [Change(a, b, "site chrome")]
    if _is_decoration(line):
        return [Change(a, b, "decoration line")]  # ▼, ↓↓↓, ———: no words at all
    changes = []
    footer = _GLUED_FOOTERS.search(line) if footer_hint else None
    if footer and re.search(f"[{HAN}A-Za-z0-9]", line[: footer.start()]):
        changes.append(Change(a + footer.start(), b, "footer glued to content"))
    images = list(_INLINE_IMAGES.finditer(line)) if image_hint else []
    urls = url_spans(text[a:b]) if images else None
    for m in images:
        if m.start() not in urls and (not footer or a + m.start() < a + footer.start()):
            changes.append(Change(a + m.start(), a + m.end(), "image file name"))
    return changes


# A line's own changes depend on its text alone (`fold` is per character, so the line's folded
# form is its slice of the page's): (start, end, reason) in line coordinates. The cleaning rounds
# hand this stage the same lines again, and pages repeat their chrome: each distinct line is
# judged once per process.
@lru_cache(maxsize=1 << 17)
def _line_verdict(line: str, in_table: bool) -> tuple[tuple[int, int, str], ...]:
    matched = fold(line)
    footer_hint = _FOOTER_HINT.search(matched) is not None
    image_hint = _IMAGE_HINT.search(matched) is not None
    changes = _line_changes(line, matched, 0, len(line), footer_hint, image_hint, in_table)
    return tuple((c.start, c.end, c.reason) for c in changes)


@stage(STAGE, order=40, removes=True)
def boilerplate(doc: Document, ctx: Context) -> Document:
    """Site chrome: menus, login prompts, footers, credits, image names, related lists."""
    text = doc.view.text
    matched = fold(text)
    spans = list(lines(text))
    changes = (
        _related_list_changes(text, matched, spans)
        + _gutter_changes(text, spans)
        + _profile_count_changes(text, matched, spans)
        + _date_column_changes(text, spans)
    )
    taken = {c.start for c in changes}  # related-list and gutter lines, already judged
    rows = text.split("\n")  # each line, as `spans` has them
    tables = table_lines(rows) if "|" in text or "｜" in text else set()
    for i, (start, end) in enumerate(spans):
        if i in tables and LONE_PIPE.fullmatch(rows[i]):
            continue  # a cell delimiter of a table printed one cell per line
        if not taken or strip_span(text, start, end)[0] not in taken:
            for a, b, reason in _line_verdict(text[start:end], i in tables):
                changes.append(Change(start + a, start + b, reason))
    return doc.apply(STAGE, sorted(changes, key=lambda c: c.start))
