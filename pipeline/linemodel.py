"""A learned junk-line classifier: site chrome and spam lines of one page, judged in context.

Every line of a page gets one row of shallow features: its own (Han count, length, sentence
punctuation, function-word density, separators, URLs, ASCII noise, code-likeness, today's chrome
patterns and spam words, a seed chrome vocabulary and character bigram weights learned from
labeled pages), its neighbours' (chrome vocabulary and prose of the previous and next non-blank
line), and where it sits: position, the run of short lines around it, before or after the
article body, whether it shares topic words with the body (menus and credits do not, headings
do), how often it repeats in the page and in the run (CCNet). A logistic regression turns the
row into a probability, its logit blended with a text model's (character 1-3-grams of the line
alone, tf-idf, logistic regression); the pipeline removes a line when it reaches THRESHOLD.
Blank lines and visible code (code is content) always get 0.

The weights, the learned vocabulary and the threshold live in `pipeline/data/line_model.json`,
written by `tools/train_line_model.py` (docs/line-model.md). Only numpy and the standard
library run here; `pipeline.text.fold` (character-level Simplified, lowercase) lets Traditional
and Simplified pages share one vocabulary, so the input is the page before conversion.

Public API:
    line_features(lines, batch_counts=None, n_docs=1) -> np.ndarray   one row per line
    junk_probabilities(lines, batch_counts=None, n_docs=1) -> list[float]
    explain(lines, i, batch_counts=None, n_docs=1, k=3) -> list[str]   decisive features
    junk_lines(lines, batch_counts=None, n_docs=1, k=3, threshold=None) -> [(i, prob, reasons)]
    text_logits(model, lines), text_reason(model, line)                 the text model
    THRESHOLD                                                           remove when prob >= it
    line_key(line), count_batch(texts)                                  repetition in a run
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources

import msgspec
import numpy as np
from threadpoolctl import ThreadpoolController

from pipeline.data import data_fullmatch
from pipeline.text import CHAPTER_HEADING, DATE_LINE, fold
from pipeline.text import HAN as _HAN
from pipeline.text import URL_RE as _URL

MODEL_FILE = "line_model.json"

# --- character classes, counted per line with one vectorised pass over the page --------------

_SENT_END = "。！？!?…；;"
_CLAUSE = "，,、：:"
# Chinese function words (single characters, Simplified), which prose has and menus lack.
_FUNC = (
    "的了是在和也就都而与对把被从向跟让给为以于及或但却并且所因如若则其之着过将会能可要这那有不没"
    "很更最还又再已我你他她它们个些吗呢吧啊得地"
)
_SEPARATORS = "|｜>›»/／·•-_—–→"
_ASCII_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
_CLOSERS = "”」』’\"')）】》 \t\u3000"

# bit of each class in the per-code-point table
_B_HAN, _B_DIGIT, _B_ASCII, _B_ALPHA, _B_SPACE = 1, 2, 4, 8, 16
_B_SENT, _B_CLAUSE, _B_FUNC, _B_SEP, _B_APUNCT = 32, 64, 128, 256, 512
_B_DOT, _B_AT = 1024, 2048
_BITS = (_B_HAN, _B_DIGIT, _B_ASCII, _B_ALPHA, _B_SPACE, _B_SENT, _B_CLAUSE, _B_FUNC, _B_SEP,
         _B_APUNCT, _B_DOT, _B_AT)  # fmt: skip
_BIT_ARRAY = np.array(_BITS, dtype=np.uint16)


@lru_cache(maxsize=1)
def _class_table() -> np.ndarray:
    table = np.zeros(0x110000, dtype=np.uint16)
    for lo, hi in re.findall(r"(.)-(.)", _HAN):
        table[ord(lo) : ord(hi) + 1] |= _B_HAN
    table[ord("0") : ord("9") + 1] |= _B_DIGIT
    table[ord("０") : ord("９") + 1] |= _B_DIGIT
    table[ord("a") : ord("z") + 1] |= _B_ASCII
    table[ord("A") : ord("Z") + 1] |= _B_ASCII
    for c in range(0x80, 0x3000):  # other letters: Latin accents, Greek, Cyrillic, kana ranges
        if chr(c).isalpha():
            table[c] |= _B_ALPHA
    for c in range(0x3001):
        if chr(c).isspace() and c != 10:
            table[c] |= _B_SPACE
    for c in "\u200b\u202f\u205f\ufeff":
        table[ord(c)] |= _B_SPACE
    for chars, bit in ((_SENT_END, _B_SENT), (_CLAUSE, _B_CLAUSE), (_FUNC, _B_FUNC),
                       (_SEPARATORS, _B_SEP), (_ASCII_PUNCT, _B_APUNCT), (".", _B_DOT),
                       ("@", _B_AT)):  # fmt: skip
        for c in chars:
            table[ord(c)] |= bit
    return table


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


@lru_cache(maxsize=1)
def _key_table() -> np.ndarray:
    """The code points `_KEY_DROP` keeps (digits, a-z, Han), and the newline."""
    table = np.zeros(0x110000, dtype=bool)
    for lo, hi in re.findall(r"(.)-(.)", "0-9a-z" + _HAN):
        table[ord(lo) : ord(hi) + 1] = True
    table[ord("\n")] = True
    return table


def _line_keys(cp: np.ndarray) -> list[str]:
    """`_KEY_DROP.sub("", line)` for every line of a page given as code points, in one pass."""
    kept = cp[_key_table()[cp]]
    return kept.tobytes().decode("utf-32-le", "surrogatepass").split("\n")


# --- patterns --------------------------------------------------------------------------------

_BULLETS = re.compile(
    r"^[^\S\n]*(?:[-•·*►▶▪○●◆◇■□★☆→»›>]|\d{1,3}[.、)）]|[(（]\d{1,2}[)）]|[一二三四五六七八九十]+、)",
    re.M,
)
_DOMAIN = re.compile(
    r"(?<![\w.-])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|cn|net|org|cc|tw|hk|me|io|info|top|xyz)\b",
    re.I,
)
_DATE = re.compile(r"(?<!\d)\d{1,4}(?:[-/.年]\d{1,2}[-/.月]\d{1,2}|:\d{2})")
_CODE_KEYWORDS = str.split(
    "def return func function import package class public private static void int var let "
    "const elif else while switch case break continue print printf println fmt include struct "
    "interface try catch except null nil true false self this echo sudo select from where "
    "string bool float async await err new"
)
_CODE_OPS = re.compile(
    r"==|!=|:=|->|=>|&&|\|\||\+\+|\(\)|[A-Za-z0-9_]\(|\);|[A-Za-z0-9_]\.[A-Za-z_]\w*\(|</?[a-z]+>|"
    r"^[^\S\n]*(?:#|//)[^\S\n]",
    re.M,
)
# a book's or a thesis's own headings (第3章, 第二节, 第十回): content wherever they stand
_TAG = re.compile(r"</?[a-zA-Z][^<>\n]{0,200}>")
_BRACKETS_ONLY = re.compile(r"[\s{}()\[\];,]+")
_MENU_SPLIT = re.compile(r"\s*[•·|｜/／>›»_]\s*|\s{2,}")
_KEY_DROP = re.compile(f"[^0-9a-z{_HAN}]+")
_DIGITS = re.compile(r"\d+")
_WS = re.compile(r"\s+")
_ASCII_WORD = re.compile(r"[a-z][a-z0-9+#]{2,}")
_ASCII_STOP = frozenset(
    "the and for with from this that are was you your com www http https html".split()  # noqa: SIM905
)

# A seed vocabulary of site chrome (Simplified, lowercase), written from general knowledge of
# Chinese web pages, not from the corpus: the learned bigram weights refine it.
_SEED_WORDS = [
    *"""
登录 登陆 注册 找回密码 忘记密码 退出 首页 主页 返回顶部 返回首页 设为首页 加入收藏 收藏本站
网站地图 导航 频道 栏目 搜索 会员 个人中心 用户中心 消息 通知 设置 帮助 客服 在线客服 意见反馈
反馈 分享 转发 收藏 点赞 评论 举报 关注 扫码 扫一扫 二维码 微信 微博 公众号 客户端 下载app app
手机版 订阅 打赏 责任编辑 原标题 阅读全文 展开全文 查看原文 原文链接 本文链接 阅读原文 点击查看
浏览 阅读量 次阅读 相关阅读 相关文章 相关推荐 推荐阅读 热门 猜你喜欢 上一篇 下一篇 上一页 下一页
更多 延伸阅读 排行 精选 专题 标签 关键词 关键字 版权 著作权 版权所有 copyright 转载 侵权 删除
免责 声明 备案 icp 公网安备 许可证 违法和不良信息 举报电话 隐私 服务条款 用户协议 联系我们
关于我们 广告服务 商务合作 招聘 投稿 网友 文档 下载 预览 页数 上传 积分 付费 免费下载 文库
阅读模式 回复 楼主 沙发 板凳 发表于 帖子 主题 威望 金钱 贡献 签到 勋章 显示全部楼层 只看该作者
倒序浏览 使用道具 复制链接 本帖最后由 discuz 广告 推广 赞助 热线 咨询 加盟 点击 立即 图片来源
示意图 插入图片 图片描述 查看更多 加载更多 没有更多 打开 微信扫一扫
""".split(),  # noqa: SIM905 - a word list reads better as text
    "powered by",
]


def _trie_regex(words: Iterable[str]) -> re.Pattern:
    """One regex for many literal words, prefixes merged (a trie): re tries one branch per
    first character instead of every word at every position. Longest match first."""
    trie: dict = {}
    for w in set(words):
        if w:
            node = trie
            for c in w:
                node = node.setdefault(c, {})
            node[""] = {}

    def build(node: dict) -> str:
        alts = [re.escape(c) + build(child) for c, child in sorted(node.items()) if c]
        end = "" in node
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 and not end else "(?:" + "|".join(alts) + ")"
        return body + "?" if end else body

    return re.compile(build(trie) or "(?!)")


@lru_cache(maxsize=1)
def _code_words() -> re.Pattern:
    return re.compile(r"\b" + _trie_regex(_CODE_KEYWORDS).pattern + r"\b")


class _Words:
    """Many literal words (two characters or more) found in a page: numpy finds the positions
    whose bigram starts a word, Python checks only those (leftmost-longest, no overlaps)."""

    def __init__(self, words: Iterable[str]):
        by_first: dict[int, list[str]] = {}
        for w in set(words):
            if len(w) >= 2 and "\n" not in w:
                by_first.setdefault(gram_id(w[:2]), []).append(w)
        self.by_first = {k: sorted(v, key=len, reverse=True) for k, v in by_first.items()}
        self.firsts = np.array(sorted(self.by_first), dtype=np.int64)
        self.starts_word = np.zeros(0x110000, dtype=bool)  # first characters of the words
        self.starts_word[[k >> 21 for k in self.by_first]] = True

    def per_line(self, cp: np.ndarray, ftext: str, line_of: np.ndarray, m: int):
        """(matches, characters covered) per line."""
        count = np.zeros(m)
        cover = np.zeros(m)
        if len(cp) < 2 or not len(self.firsts):
            return count, cover
        head = cp[:-1]
        pos = np.flatnonzero(self.starts_word[head])  # a word may start here
        pairs_all = (head[pos].astype(np.int64) << _SHIFT) | cp[pos + 1]
        at = np.minimum(np.searchsorted(self.firsts, pairs_all), len(self.firsts) - 1)
        hit = self.firsts[at] == pairs_all
        cand, pairs = pos[hit], pairs_all[hit]
        free = 0
        for at_, pair in zip(cand.tolist(), pairs.tolist(), strict=True):
            if at_ < free:
                continue
            for w in self.by_first[pair]:
                if ftext.startswith(w, at_):
                    j = line_of[at_]
                    count[j] += 1
                    cover[j] += len(w)
                    free = at_ + len(w)
                    break
        return count, cover


@lru_cache(maxsize=1)
def _seed_words() -> _Words:
    return _Words(_SEED_WORDS)


_RULES = "boilerplate.txt"  # today's chrome patterns, one alternation (pipeline/data)


@lru_cache(maxsize=1)
def _spam_words() -> _Words:
    """The packaged spam vocabulary (pipeline/data/spam_words.txt)."""
    from pipeline.data import data_lines

    return _Words(fold(line.partition("\t")[0].strip()) for line in data_lines("spam_words.txt"))


def _is_menu(folded: str) -> bool:
    """Three or more short items between separators (or wide gaps), no sentence end."""
    items = [i for i in _MENU_SPLIT.split(folded) if i]
    return len(items) >= 3 and all(len(i) <= 8 for i in items)


# --- feature layout -------------------------------------------------------------------------

# (name, reason when the value is high, reason when it is low): the reason shown for a removal
# is the one matching the side on which the line pushed the score towards junk.
_FEATURES = [
    # the line itself
    ("han", "many Han characters", "few Han characters"),
    ("chars", "long", "short"),
    ("han_share", "mostly Chinese", "little Chinese"),
    ("sent_end", "sentence ending", "no sentence ending"),
    ("colon_end", "ends with a colon", "no colon ending"),
    ("sent_punct", "sentence punctuation", "no sentence punctuation"),
    ("clause_punct", "commas", "no commas"),
    ("func", "function words", "no function words"),
    ("digit_share", "digits", "few digits"),
    ("ascii_share", "Latin letters", "few Latin letters"),
    ("symbol_share", "symbols", "few symbols"),
    ("separators", "separators", "no separators"),
    ("bullet", "bullet", "no bullet"),
    ("url", "URL or e-mail", "no URL"),
    ("domain", "domain name", "no domain name"),
    ("date", "date or time", "no date"),
    ("ascii_noise", "ASCII noise", "no ASCII noise"),
    ("short_tokens", "scattered short tokens", "no short tokens"),
    ("code", "code-like", "not code"),
    ("brackets_only", "only brackets", "not only brackets"),
    ("markup", "HTML tags", "no HTML tags"),
    ("lex_mean", "chrome words", "no chrome words"),
    ("lex_max", "chrome words", "no chrome words"),
    ("rule", "chrome pattern", "no chrome pattern"),
    ("menu", "menu", "not a menu"),
    ("spam_words", "spam words", "no spam words"),
    ("seed", "chrome vocabulary", "no chrome vocabulary"),
    ("seed_cover", "chrome vocabulary", "little chrome vocabulary"),
    ("indent", "indented", "not indented"),
    ("topic", "no topic words", "topic words"),
    ("topic_n", "few topic words", "topic words"),
    ("body", "prose", "not prose"),
    # neighbours (previous and next non-blank line)
    ("nb_lex", "chrome neighbours", "content neighbours"),
    ("nb_body", "prose around", "no prose around"),
    # the page
    ("pos", "low in the page", "high in the page"),
    ("index", "far from the top", "near the top"),
    ("index_end", "far from the bottom", "near the bottom"),
    ("head_off_topic", "opening line off the article's topic", "opening line on topic"),
    ("before_body", "before the article", "not before the article"),
    ("after_body", "after the article", "not after the article"),
    ("run", "run of short lines", "no run of short lines"),
    ("first_run", "top run", "not in the top run"),
    ("last_run", "bottom run", "not in the bottom run"),
    ("repeat_doc", "repeated in page", "unique in page"),
    ("repeat_batch", "repeated across pages", "unique across pages"),
    ("n_lines", "long page", "short page"),
    ("no_body", "page without prose", "page with prose"),
    ("near_code", "next to code", "not near code"),
    ("split_text", "text split one character per line", "not split text"),
    ("chapter", "chapter heading", "not a chapter heading"),
    ("page_date", "the page's date", "not the page's date"),
    # blank lines around it (session 12): extracted pages keep paragraphs apart with blank
    # lines and print a menu's or a list's items one under the other
    ("gap_before", "blank line above", "no blank line above"),
    ("gap_after", "blank line below", "no blank line below"),
    ("gap_share", "page spaced with blank lines", "page without blank lines"),
]
FEATURE_NAMES: list[str] = [n for n, _, _ in _FEATURES]
REASONS: dict[str, tuple[str, str]] = {n: (high, low) for n, high, low in _FEATURES}
_I = {n: i for i, n in enumerate(FEATURE_NAMES)}
_N_OWN = _I["body"] + 1

# --- helpers shared with training ------------------------------------------------------------


def line_key(line: str) -> str:
    """A line normalized for repetition counts (CCNet): Simplified, lowercase, digits as 0,
    nothing but letters, digits and Han characters."""
    return _DIGITS.sub("0", _KEY_DROP.sub("", fold(line.strip())))


def count_batch(texts: Iterable[str]) -> dict[str, int]:
    """line_key -> number of the documents (texts) of a run that contain the line."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update({k for k in map(line_key, text.split("\n")) if k})
    return dict(counts)


_SHIFT = np.int64(21)  # a code point fits in 21 bits: a bigram is (first << 21) | second
_LINE_SHIFT = np.int64(43)  # above every unit: bigrams < 2**42, Latin words in [2**42, 2**43)


def gram_id(gram: str) -> int:
    return (ord(gram[0]) << 21) | ord(gram[1])


def gram_str(gid: int) -> str:
    return chr(gid >> 21) + chr(gid & 0x1FFFFF)


def lexicon_arrays(lexicon: dict[str, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The learned vocabulary (bigram -> weight) as sorted ids, weights (for searchsorted) and
    a table of the characters that start a bigram of it."""
    grams = list(lexicon)
    if any(len(g) != 2 for g in grams):
        raise ValueError("the learned vocabulary holds character bigrams only")
    pairs = _code_points("".join(grams)).astype(np.int64).reshape(-1, 2)
    ids = (pairs[:, 0] << _SHIFT) | pairs[:, 1]  # gram_id of each, vectorised
    order = np.argsort(ids)  # distinct keys: distinct ids
    ids = ids[order]
    weights = np.fromiter(lexicon.values(), np.float64, len(grams))[order]
    starts = np.zeros(0x110000, dtype=bool)
    starts[ids >> 21] = True
    return ids, weights, starts


def _unique_pairs(line: np.ndarray, unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct (line, unit) pairs, sorted by line."""
    if len(line) == 0:
        return line.astype(np.int64), unit.astype(np.int64)
    key = np.sort((line.astype(np.int64) << _LINE_SHIFT) | unit)
    key = key[np.concatenate([[True], key[1:] != key[:-1]])]
    return key >> _LINE_SHIFT, key & ((np.int64(1) << _LINE_SHIFT) - 1)


def line_grams(
    cp: np.ndarray, cls: np.ndarray, line_of: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct character bigrams of every line of a folded page, the units of the learned
    chrome vocabulary: white space out, a run of digits as one 0. Returns (line, bigram id)."""
    keep = ((cls & _B_SPACE) == 0) & (line_of >= 0)
    seq = np.where((cls & _B_DIGIT) != 0, ord("0"), cp)[keep].astype(np.int64)
    lid = line_of[keep]
    dig = (cls[keep] & _B_DIGIT) != 0
    if len(seq) > 1:
        again = np.concatenate([[False], dig[1:] & dig[:-1] & (lid[1:] == lid[:-1])])
        seq, lid = seq[~again], lid[~again]
    same = lid[1:] == lid[:-1]
    return _unique_pairs(lid[:-1][same], (seq[:-1][same] << _SHIFT) | seq[1:][same])


def page_arrays(ftext: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(code points, class bits, line index; -1 on the newlines) of a folded page."""
    cp = _code_points(ftext)
    cls = _class_table()[cp]
    nl = cp == 10
    line_of = np.cumsum(nl)
    line_of[nl] = -1
    return cp, cls, line_of


def _topic_pairs(cp, cls, line_of, ftext) -> tuple[np.ndarray, np.ndarray]:
    """Topic units of every line: Han bigrams without function characters, and Latin words."""
    content = ((cls & _B_HAN) != 0) & ((cls & _B_FUNC) == 0)
    both = content[:-1] & content[1:]
    pos = np.flatnonzero(both)
    lines = line_of[pos]
    units = (cp[pos].astype(np.int64) << _SHIFT) | cp[pos + 1]
    found = [(m.start(), m.group()) for m in _ASCII_WORD.finditer(ftext)]
    found = [(at, w) for at, w in found if w not in _ASCII_STOP]
    if found:
        starts, found_words = zip(*found, strict=True)
        words: dict[str, int] = {}  # each word's number, in order of first appearance
        numbers = [words.setdefault(w, len(words)) for w in found_words]
        base = 1 << 42  # above every bigram id
        # the words' lines looked up all at once (a numpy scalar read one by one is slow)
        lines = np.concatenate([lines, line_of[np.array(starts)].astype(np.int64)])
        units = np.concatenate([units, base + np.array(numbers, dtype=np.int64)])
    return _unique_pairs(lines, units)


def _per_line(pattern: re.Pattern, text: str, starts: np.ndarray, n: int, size: bool = False):
    """Matches of `pattern` in the whole page counted per line (and, with `size`, the
    characters they cover); a match counts on the line it starts on (no pattern spans lines)."""
    spans = [(m.start(), m.end()) for m in pattern.finditer(text)]
    line = np.searchsorted(starts, [a for a, _ in spans], side="right") - 1
    count = np.bincount(line, minlength=n).astype(float) if spans else np.zeros(n)
    if not size:
        return count
    cover = (
        np.bincount(line, weights=[b - a for a, b in spans], minlength=n) if spans else np.zeros(n)
    )
    return count, cover


def _features(
    lines: list[str],
    lexicon: tuple[np.ndarray, np.ndarray, np.ndarray],
    batch_counts: dict[str, int] | None = None,
    n_docs: int = 1,
) -> np.ndarray:
    """The feature rows of one document; blank lines get a row of zeros. `lexicon` as from
    lexicon_arrays."""
    n = len(lines)
    X = np.zeros((n, len(FEATURE_NAMES)))
    idx = [i for i, line in enumerate(lines) if line and not line.isspace()]
    if not idx:
        return X
    raw = [lines[i] for i in idx]
    text = "\n".join(raw)
    ftext = fold(text)
    folded = ftext.split("\n")
    m = len(raw)
    lens = np.array([len(x) for x in raw])
    start_arr = np.concatenate([[0], np.cumsum(lens + 1)[:-1]])
    cp, cls, line_of = page_arrays(ftext)

    # character classes: one table lookup per character, summed per line
    flags = ((cls[:, None] & _BIT_ARRAY) != 0).view(np.uint8)
    per = np.add.reduceat(flags, start_arr, axis=0, dtype=np.int32)  # a line runs to the next
    cnt = {bit: per[:, k] for k, bit in enumerate(_BITS)}
    chars = lens - cnt[_B_SPACE]
    han = cnt[_B_HAN]
    digits = cnt[_B_DIGIT]
    letters = cnt[_B_ASCII]
    symbols = np.maximum(0, chars - han - digits - letters - cnt[_B_ALPHA])
    inv = 1.0 / np.maximum(chars, 1)
    sent = cnt[_B_SENT]

    F = np.zeros((m, _N_OWN))
    F[:, _I["han"]] = np.log1p(han)
    F[:, _I["chars"]] = np.log1p(chars)
    F[:, _I["han_share"]] = han * inv
    F[:, _I["sent_punct"]] = sent / (han + 1)
    F[:, _I["clause_punct"]] = cnt[_B_CLAUSE] / (han + 1)
    F[:, _I["func"]] = cnt[_B_FUNC] / (han + 1)
    F[:, _I["digit_share"]] = digits * inv
    F[:, _I["ascii_share"]] = letters * inv
    F[:, _I["symbol_share"]] = symbols * inv
    F[:, _I["separators"]] = np.log1p(cnt[_B_SEP])
    F[:, _I["ascii_noise"]] = cnt[_B_APUNCT] * inv

    # patterns run only on the lines that can match them (re costs per character scanned)
    def per_line(pattern: re.Pattern, rows: np.ndarray, size: bool = False) -> np.ndarray:
        out = np.zeros((2, m))
        if len(rows):
            sub = "\n".join([raw[j] for j in rows])
            sub_starts = np.concatenate([[0], np.cumsum(lens[rows] + 1)[:-1]])
            out[:, rows] = _per_line(pattern, sub, sub_starts, len(rows), True)
        return out[1] if size else out[0]

    dots = cnt[_B_DOT] > 0
    F[:, _I["domain"]] = per_line(_DOMAIN, np.flatnonzero(dots & (letters > 1))) > 0
    F[:, _I["date"]] = per_line(_DATE, np.flatnonzero(digits > 0)) > 0
    F[:, _I["bullet"]] = _per_line(_BULLETS, text, start_arr, m) > 0
    seeds, seed_chars = _seed_words().per_line(cp, ftext, line_of, m)
    F[:, _I["seed"]] = np.log1p(seeds)
    F[:, _I["seed_cover"]] = seed_chars * inv
    F[:, _I["spam_words"]] = np.minimum(1.0, _spam_words().per_line(cp, ftext, line_of, m)[1] * inv)
    linky = np.flatnonzero((cnt[_B_AT] > 0) | (dots & (letters > 2)))
    F[:, _I["url"]] = np.minimum(1.0, per_line(_URL, linky, size=True) * inv * 2)
    code = per_line(_code_words(), np.flatnonzero((letters > 1) & (letters >= han)))
    code += per_line(_CODE_OPS, np.flatnonzero(cnt[_B_APUNCT] > 0))
    tagged = np.array([j for j in range(m) if "<" in raw[j]], dtype=int)
    F[:, _I["markup"]] = np.minimum(1.0, per_line(_TAG, tagged, size=True) * inv)
    code_only = han == 0

    # the learned vocabulary: mean and max weight of a line's distinct bigrams
    g_line, g_id = line_grams(cp, cls, line_of)
    ids, weights, starts_gram = lexicon
    if len(g_id) and len(ids):
        w = np.zeros(len(g_id))
        maybe = np.flatnonzero(starts_gram[g_id >> _SHIFT])  # first character in the vocabulary
        at = np.minimum(np.searchsorted(ids, g_id[maybe]), len(ids) - 1)
        w[maybe] = np.where(ids[at] == g_id[maybe], weights[at], 0.0)
        n_grams = np.bincount(g_line, minlength=m)
        F[:, _I["lex_mean"]] = np.bincount(g_line, weights=w, minlength=m) / np.maximum(n_grams, 1)
        firsts = np.flatnonzero(np.concatenate([[True], g_line[1:] != g_line[:-1]]))
        F[g_line[firsts], _I["lex_max"]] = np.maximum.reduceat(w, firsts)

    # what needs the line as a string (Python lists: numpy scalars are slow one by one)
    sent_end, colon_end, short_tokens, brackets, rule_hit, menu, indent, code_end = (
        [0] * m for _ in range(8)
    )
    seps = cnt[_B_SEP].tolist()
    spaces = cnt[_B_SPACE].tolist()
    code_only_l = code_only.tolist()
    sent_l = sent.tolist()
    lens_l = lens.tolist()
    for j, r in enumerate(raw):
        s = r.strip()
        last = s.rstrip(_CLOSERS)[-1:]
        if last:
            sent_end[j] = last in _SENT_END
            colon_end[j] = last in "：:"
        if spaces[j]:
            tokens = s.split()
            short_tokens[j] = sum(len(t) <= 2 and t.isascii() for t in tokens) / len(tokens)
        else:
            short_tokens[j] = len(s) <= 2 and s.isascii()
        if code_only_l[j]:
            code_end[j] = (
                s.endswith((";", "{", "}", ",", "(", ")")) + r.startswith(("  ", "\t")) + ("=" in s)
            )
            brackets[j] = _BRACKETS_ONLY.fullmatch(s) is not None
        if lens_l[j] <= 200:
            f = folded[j].strip()
            rule_hit[j] = data_fullmatch(_RULES, f)
            if sent_l[j] == 0 and (seps[j] >= 2 or spaces[j] >= 2):
                menu[j] = _is_menu(f)
        if spaces[j]:
            indent[j] = len(r) - len(r.lstrip())
    F[:, _I["sent_end"]] = sent_end
    F[:, _I["colon_end"]] = colon_end
    F[:, _I["short_tokens"]] = short_tokens
    F[:, _I["code"]] = np.log1p(code + np.array(code_end))
    F[:, _I["brackets_only"]] = brackets
    F[:, _I["rule"]] = rule_hit
    F[:, _I["menu"]] = menu
    F[:, _I["indent"]] = np.log1p(indent)
    sent_end = F[:, _I["sent_end"]]
    body = (han >= 20) & (sent > 0)
    F[:, _I["body"]] = body

    # topic words: units shared with the article body (long prose lines) elsewhere in the page
    head_off = np.zeros(m)
    t_line, t_unit = _topic_pairs(cp, cls, line_of, ftext)
    if len(t_unit):
        in_body = body[t_line]
        b_units, b_counts = np.unique(t_unit[in_body], return_counts=True)
        if len(b_units):
            at = np.minimum(np.searchsorted(b_units, t_unit), len(b_units) - 1)
            bc = np.where(b_units[at] == t_unit, b_counts[at], 0)
        else:
            bc = np.zeros(len(t_unit), dtype=np.int64)
        shared = np.bincount(t_line, weights=(bc - in_body) > 0, minlength=m)
        total = np.bincount(t_line, minlength=m)
        has = total > 0
        F[has, _I["topic"]] = 1.0 - shared[has] / total[has]  # 1 = shares nothing
        F[:, _I["topic_n"]] = -np.log1p(shared)
        head_off[0] = total[0] >= _HEAD_MIN_UNITS and shared[0] == 0 and not body[0]

    # neighbours: the previous and next non-blank line
    C = np.zeros((m, len(FEATURE_NAMES) - _N_OWN))
    c0 = _N_OWN
    for name, col in (("nb_lex", "lex_mean"), ("nb_body", "body")):
        pad = np.concatenate([[0.0], F[:, _I[col]], [0.0]])
        C[:, _I[name] - c0] = (pad[:-2] + pad[2:]) / 2

    # the page
    ar = np.arange(m)
    short = (han < 15) & (sent_end == 0)
    # runs of short lines: their length, and whether a run opens or closes the page
    begin, end = _runs(short)
    run_id = np.searchsorted(begin, ar, side="right") - 1  # the run each short line is in
    run = np.where(short, np.log1p((end - begin)[run_id]), 0.0) if len(begin) else np.zeros(m)
    first_run = short & (begin[0] == 0 if len(begin) else False) & (run_id == 0)
    last_run = short & (end[-1] == m if len(end) else False) & (run_id == len(begin) - 1)
    body_idx = np.flatnonzero(body)
    if len(body_idx):
        C[:, _I["before_body"] - c0] = ar < body_idx[0]
        C[:, _I["after_body"] - c0] = ar > body_idx[-1]
    keys = _line_keys(cp)
    # in the page, repetition is exact: rows of a list or table differ by their numbers
    # (`范围1: S18-19`, `范围2: S20-21`) and are content; across pages, digits are folded (a
    # counter or a date changes from page to page, the chrome around it does not)
    in_page = Counter(keys)
    repeat_doc = [in_page[k] - 1 if k else 0 for k in keys]
    for j in np.flatnonzero(digits):
        keys[j] = _DIGITS.sub("0", keys[j])
    C[:, _I["pos"] - c0] = ar / max(1, m - 1)
    C[:, _I["index"] - c0] = np.log1p(ar)
    C[:, _I["index_end"] - c0] = np.log1p(m - 1 - ar)
    C[:, _I["run"] - c0] = run
    C[:, _I["first_run"] - c0] = first_run
    C[:, _I["last_run"] - c0] = last_run
    C[:, _I["repeat_doc"] - c0] = np.log1p(repeat_doc)
    if batch_counts and n_docs > 1:
        C[:, _I["repeat_batch"] - c0] = [
            min(3, batch_counts.get(k, 1) - 1) / 3 if k else 0.0 for k in keys
        ]
    C[:, _I["n_lines"] - c0] = math.log1p(m)
    # without prose no line can share topic words with it: `topic_n` says "off topic" of every
    # line, content included (lists, poems, Q&A, code pages); this lets the model discount that
    C[:, _I["no_body"] - c0] = not len(body_idx)
    if int(han[body].sum()) >= _HEAD_MIN_BODY_HAN:
        C[:, _I["head_off_topic"] - c0] = head_off
    cpad = np.concatenate([[0.0, 0.0], F[:, _I["code"]], [0.0, 0.0]])
    C[:, _I["near_code"] - c0] = np.max(
        np.stack([cpad[0:m], cpad[1 : m + 1], cpad[3 : m + 3], cpad[4 : m + 4]]), axis=0
    )
    C[:, _I["split_text"] - c0] = _split_text(chars, han)
    C[:, _I["chapter"] - c0] = _per_line(CHAPTER_HEADING, text, start_arr, m) > 0
    short_digits = np.flatnonzero((digits > 0) & (chars <= 40))
    date_lines = [j for j in short_digits if DATE_LINE.match(raw[j])]
    if len(date_lines) == 1:
        C[date_lines[0], _I["page_date"] - c0] = 1.0
    at = np.asarray(idx)
    gap_after = np.diff(np.append(at, n)) > 1
    C[:, _I["gap_before"] - c0] = np.diff(np.insert(at, 0, -1)) > 1
    C[:, _I["gap_after"] - c0] = gap_after
    C[:, _I["gap_share"] - c0] = gap_after.mean()
    X[idx] = np.hstack([F, C])
    return X


_HEAD_MIN_UNITS = 3  # topic units of the opening line: fewer say too little to judge
_HEAD_MIN_BODY_HAN = 120  # Han characters of article prose needed to judge the opening line


def _runs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the runs of True in a boolean array (ends exclusive)."""
    edge = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)


_SPLIT_RUN = 8  # lines


def _split_text(chars: np.ndarray, han: np.ndarray) -> np.ndarray:
    """Lines of a run of at least _SPLIT_RUN one- or two-character lines, most of them Han and
    most of them one character: a text a scraper split one character per line. Each line alone
    says nothing; the run is prose (a line-number gutter, digits only, is not; nor is a menu
    column of two-character items, 首页 / 论坛 / 财经, which is what it looks like)."""
    out = np.zeros(len(chars))
    for a, b in zip(*_runs(chars <= 2), strict=True):
        n = b - a
        if (
            n >= _SPLIT_RUN
            and 2 * np.count_nonzero(han[a:b]) >= n
            and 2 * np.count_nonzero(chars[a:b] == 1) >= n
        ):
            out[a:b] = 1.0
    return out


# --- the model ------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _model() -> dict:
    # msgspec reads the 6 MB of JSON (bytes, no decoding to str first) in half json's time,
    # into the same objects: floats correctly rounded, as json's are (every run loads it)
    data = msgspec.json.decode(resources.files("pipeline.data").joinpath(MODEL_FILE).read_bytes())
    if data.get("feature_names") != FEATURE_NAMES:
        raise ValueError(f"pipeline/data/{MODEL_FILE} was trained on other features: retrain it")
    return prepare(data)


def prepare(data: dict) -> dict:
    """The model's arrays as numpy (json holds lists)."""
    for key in ("mean", "scale", "coef"):
        data[key] = np.asarray(data[key], dtype=np.float64)
    data["lexicon_arrays"] = lexicon_arrays(data["lexicon"])
    if "text" in data:
        data["text"] = prepare_text(data["text"])
    if "trees" in data:
        data["trees"] = prepare_trees(data["trees"])
    if "sequence" in data:
        data["sequence"] = prepare_sequence(data["sequence"])
    return data


# --- the text model: character n-grams of the line itself -------------------------------------
#
# A second, plain model reads only the line's own characters (1-3-grams, tf-idf, logistic
# regression): chrome vocabulary in every spelling the pages use (登录, 下载, 相关, 扫码 …),
# which the shallow features see only through the seed words and the bigram lexicon. Its logit
# is blended with the context model's (weight in the model file), so context still decides:
# the same words in a sentence of the article stay. Training uses char_grams as the
# vectorizer's analyzer; text_logits recomputes the same tf-idf in numpy.

_WS_RUN = re.compile(r"\s+")
_GRAM_MAX = 3
_GRAM_BITS = 21  # a code point + 1 fits in 21 bits, so a gram of up to 3 characters fits int64


def text_form(line: str) -> str:
    """What the text model reads of a line: folded (Simplified, lowercase), stripped, every run
    of white space as one space."""
    return _WS_RUN.sub(" ", fold(line).strip())


def char_grams(line: str) -> list[str]:
    """The text model's tokens: every 1- to 3-character gram of the line's text form."""
    t = text_form(line)
    return [t[i : i + k] for k in range(1, _GRAM_MAX + 1) for i in range(len(t) - k + 1)]


def _gram_codes(grams: list[str]) -> np.ndarray:
    """Each gram as one integer: its characters' code points + 1 (so lengths never collide),
    _GRAM_BITS apiece. Vectorised: a model has a hundred thousand grams and more, and a Python
    call each was a fifth of a second of every run's start."""
    lengths = np.fromiter(map(len, grams), np.int64, len(grams))
    if len(grams) and lengths.max() > _GRAM_MAX:
        raise ValueError(f"a gram longer than {_GRAM_MAX} characters does not fit an int64")
    cp = _code_points("".join(grams)).astype(np.int64) + 1
    first = np.cumsum(lengths) - lengths
    codes = np.zeros(len(grams), dtype=np.int64)
    for k in range(_GRAM_MAX):  # character k of every gram that has one
        has = np.flatnonzero(lengths > k)
        codes[has] = (codes[has] << _GRAM_BITS) | cp[first[has] + k]
    return codes


def prepare_text(text: dict) -> dict:
    """The text model of a model file, as sorted numpy arrays (what text_logits reads)."""
    codes = _gram_codes(text["grams"])
    order = np.argsort(codes, kind="stable")
    return {
        "grams": [text["grams"][i] for i in order],
        "codes": codes[order],
        "idf": np.asarray(text["idf"], dtype=np.float64)[order],
        "coef": np.asarray(text["coef"], dtype=np.float64)[order],
        "intercept": float(text["intercept"]),
        "weight": float(text["weight"]),
    }


def _text_forms(lines: list[str]) -> str:
    """text_form of every line, joined by newlines: one fold and two substitutions for the
    page instead of three calls per line."""
    # str.split() splits at the white space of `\s` and drops it at both ends: per line, one
    # call instead of two regex scans of the page (the `^ | $` one tried at every position)
    return "\n".join([" ".join(line.split()) for line in fold("\n".join(lines)).split("\n")])


def _gram_rows(forms: str) -> tuple[np.ndarray, np.ndarray]:
    """(row, gram code) of every 1-3-gram of each line of `forms` (none crosses a line end)."""
    cp = _code_points(forms).astype(np.int64) + 1
    newline = cp == ord("\n") + 1
    row = np.cumsum(newline)
    rows, codes = [], []
    code, ok = cp, ~newline
    for k in range(1, _GRAM_MAX + 1):
        if k > 1:
            code = (code[:-1] << _GRAM_BITS) | cp[k - 1 :]
            ok = ok[:-1] & ~newline[k - 1 :]
        rows.append(row[: len(code)][ok])
        codes.append(code[ok])
    return np.concatenate(rows), np.concatenate(codes)


def _text_terms(text: dict, lines: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """(row, vocabulary index, tf-idf weight) of every in-vocabulary gram of the non-blank lines
    (l2-normalized per row, sublinear tf: as the trainer's vectorizer), and the rows' lines."""
    idx = [i for i, line in enumerate(lines) if line and not line.isspace()]
    row, code = _gram_rows(_text_forms([lines[i] for i in idx]))
    vocab = text["codes"]
    # a page repeats its grams: look up each distinct one (sorted queries search faster)
    distinct, inverse = np.unique(code, return_inverse=True)
    found = np.minimum(np.searchsorted(vocab, distinct), len(vocab) - 1)
    pos, hit = found[inverse], (vocab[found] == distinct)[inverse]
    size = np.int64(len(vocab))
    key, count = np.unique(row[hit] * size + pos[hit], return_counts=True)
    r, g = key // size, key % size
    w = (1.0 + np.log(count)) * text["idf"][g]
    norm = np.sqrt(np.bincount(r, weights=w * w, minlength=len(idx)))
    return r, g, w / np.maximum(norm[r], 1e-12), idx


def text_logits(model: dict, lines: list[str]) -> np.ndarray | None:
    """The text model's logit per line of ONE document (its intercept on blank lines); None
    when the model file has no text model."""
    text = model.get("text")
    if text is None:
        return None
    r, g, w, idx = _text_terms(text, lines)
    z = np.full(len(lines), text["intercept"])
    z[idx] += np.bincount(r, weights=w * text["coef"][g], minlength=len(idx))
    return z


def text_reason(model: dict, line: str, k: int = 2) -> str | None:
    """The (up to k) grams of `line` that pushed the text model most towards junk, as
    `text "登录", "下载"`; None when none did."""
    text = model.get("text")
    if text is None:
        return None
    _, g, w, _ = _text_terms(text, [line])
    contrib = w * text["coef"][g]
    top = [
        text["grams"][g[j]]
        for j in np.argsort(-contrib, kind="stable")
        if contrib[j] > 0 and len(text["grams"][g[j]].strip()) >= 2  # single characters say little
    ][:k]
    return "text " + ", ".join(f'"{t}"' for t in top) if top else None


def __getattr__(name: str):  # THRESHOLD is read from the model file on first use
    if name == "THRESHOLD":
        return float(_model()["threshold"])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_CODE2 = math.log1p(2)
_CHARS12 = math.log1p(12)


def code_guard(X: np.ndarray) -> np.ndarray:
    """Rows that are visibly code (code is content, never decoration): no Han character, not
    markup, and two code signals (keywords, operators, `;`/brace ends, indentation), or a short
    line (`}`, `)`, a listing's bare line number) next to such code."""
    return (
        (X[:, _I["han"]] == 0)
        & (X[:, _I["markup"]] < 0.5)
        & (
            (X[:, _I["code"]] >= _CODE2)
            | ((X[:, _I["near_code"]] >= _CODE2) & (X[:, _I["chars"]] <= _CHARS12))
        )
    )


_TITLE_MIN_SHARED = 2  # topic units shared with the body


def title_row(X: np.ndarray) -> int | None:
    """The row of ONE document most likely its title: of the lines above the article body, the
    one sharing the most topic words with the body (at least _TITLE_MIN_SHARED; the first on a
    tie). Menus and credits share none; a title names what the body is about. A menu or a line
    of a chrome pattern is no title even when it shares words: a breadcrumb ends with the
    title, a channel menu names the article's topic."""
    candidate = (X[:, _I["before_body"]] > 0) & (X[:, _I["menu"]] == 0) & (X[:, _I["rule"]] == 0)
    above = np.flatnonzero(candidate & X.any(axis=1))
    if not len(above):
        return None
    shared = np.expm1(-X[above, _I["topic_n"]])  # topic_n = -log(1 + shared units)
    best = int(np.argmax(shared))
    return int(above[best]) if shared[best] >= _TITLE_MIN_SHARED - 1e-9 else None


# How far a line's logit moves towards the median of its block (jusText's idea that a short
# line takes the class of its neighbours, as a pull rather than a rule). Session 9, grouped CV
# on train + dev (411 pages, two fold assignments; model-judged junk at 0.25 / 0.5 / 1% OOF
# content loss): 22.5 / 27.9 / 35.2% without, 25.4 / 31.1 / 37.6% with a pull of 0.5 on blocks
# of >= 2 lines (0.3: lower; 0.7: the same), 31.8 / 35.2 / 40.5% with `no_body` too.
BLOCK_PULL = 0.5
BLOCK_REASON = "in a block of chrome-like lines"


def _pull_to_blocks(z: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """Each run of >= 2 consecutive `judged` lines (non-blank, not prose, not kept by a guard)
    is a block: a menu, a related list, a credits strip, or a run of headings and bylines. Each
    line's logit moves BLOCK_PULL of the way to the block's median, so that one line in a block
    of confident chrome goes with it, and a short line among content stays with the content."""
    out = z.copy()
    for a, b in zip(*_runs(judged), strict=True):
        if b - a >= 2:
            out[a:b] += BLOCK_PULL * (np.median(z[a:b]) - z[a:b])
    return out


# --- the tree ensemble: gradient-boosted trees over the same rows -----------------------------
#
# Shallow trees (scikit-learn's HistGradientBoosting, exported by tools/train_line_model.py)
# see what a linear model cannot: a short line is chrome at the top of a page and a heading
# between paragraphs. Their logit is averaged with the logistic regression's (`tree_weight` in
# the model file). The file holds (trees, nodes) arrays; a leaf has left = -1; a node's `value`
# is the mean leaf value below it (leaves: their own), so a path's steps split the logit by
# feature.


def trees_from_nodes(tables: list[np.ndarray], baseline: float, weight: float) -> dict:
    """The model file's form of an ensemble from its trees' node tables (fields `feature_idx`,
    `num_threshold`, `left`, `right`, `is_leaf`, `value`, `count`, `depth`, as scikit-learn's
    TreePredictor.nodes; a child's index is above its parent's). Rows go left when
    x[feature] <= threshold."""
    width = max(len(t) for t in tables)
    feature = np.zeros((len(tables), width), dtype=np.intp)
    left = np.full((len(tables), width), -1, dtype=np.intp)
    right = np.full((len(tables), width), -1, dtype=np.intp)
    threshold = np.zeros((len(tables), width))
    value = np.zeros((len(tables), width))
    for k, nodes in enumerate(tables):
        split = ~nodes["is_leaf"].astype(bool)
        n = len(nodes)
        feature[k, :n] = np.where(split, nodes["feature_idx"], 0)
        threshold[k, :n] = np.where(split, nodes["num_threshold"], 0.0)
        left[k, :n] = np.where(split, nodes["left"].astype(np.intp), -1)  # stored unsigned
        right[k, :n] = np.where(split, nodes["right"].astype(np.intp), -1)
        values = np.where(split, 0.0, nodes["value"]).astype(np.float64)
        count = nodes["count"].astype(np.float64)
        for i in np.flatnonzero(split)[::-1]:  # children first: a node is the mean of its leaves
            a, b = nodes["left"][i], nodes["right"][i]
            values[i] = (count[a] * values[a] + count[b] * values[b]) / (count[a] + count[b])
            count[i] = count[a] + count[b]
        value[k, :n] = values
    return {
        "weight": weight,
        "depth": int(max(int(t["depth"].max()) for t in tables)),
        "baseline": float(baseline),
        "feature": feature.tolist(),
        "threshold": threshold.tolist(),
        "left": left.tolist(),
        "right": right.tolist(),
        "value": value.tolist(),
    }


def prepare_trees(trees: dict) -> dict:
    """The ensemble's json lists as flat numpy arrays, one slot per (tree, node) and children
    as slot numbers: a walk step is then a few `take`s over every row and tree at once."""
    shape = np.asarray(trees["feature"]).shape
    roots = np.arange(shape[0], dtype=np.intp) * shape[1]

    own = np.arange(shape[0] * shape[1], dtype=np.intp).reshape(shape)

    def slots(children: list) -> np.ndarray:  # a leaf (-1) is its own child
        local = np.asarray(children, dtype=np.intp)
        return np.where(local < 0, own, local + roots[:, None]).ravel()

    return {
        "weight": trees["weight"],
        "depth": trees["depth"],
        "baseline": trees["baseline"],
        "roots": roots,
        "feature": np.asarray(trees["feature"], dtype=np.intp).ravel(),
        "threshold": np.asarray(trees["threshold"], dtype=np.float64).ravel(),
        "value": np.asarray(trees["value"], dtype=np.float64).ravel(),
        # slot 2 k: node k's left child, 2 k + 1: its right one; one `take` finds either
        "children": np.stack([slots(trees["left"]), slots(trees["right"])], axis=1).ravel(),
    }


def _walk(trees: dict, X: np.ndarray, steps: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """(the leaf slot each row reaches in each tree, and when `steps` the (rows, features) sum
    of the value steps taken on each feature's splits): all rows and trees level by level."""
    n, width = X.shape
    node = np.repeat(trees["roots"][None, :], n, axis=0)
    flat = X.ravel()
    row_start = (np.arange(n, dtype=np.intp) * width)[:, None]
    contrib = np.zeros(n * width) if steps else None
    for _ in range(trees["depth"]):
        cell = row_start + trees["feature"].take(node)
        goes_left = flat.take(cell) <= trees["threshold"].take(node)
        # a leaf is its own child either way: rows that reached one stay there
        side = 2 * node + 1
        side -= goes_left
        child = trees["children"].take(side)
        if contrib is not None:
            step = trees["value"].take(child) - trees["value"].take(node)
            np.add.at(contrib, cell.ravel(), step.ravel())
        node = child
    return node, None if contrib is None else contrib.reshape(n, width)


def tree_logits(trees: dict, X: np.ndarray) -> np.ndarray:
    """The ensemble's logit per row."""
    leaves, _ = _walk(trees, X, steps=False)
    return trees["baseline"] + trees["value"].take(leaves).sum(axis=1)


def tree_contributions(trees: dict, x: np.ndarray) -> np.ndarray:
    """How much each feature moved one row's ensemble logit along its paths (Saabas): with the
    root values, the steps add up to the logit."""
    return _walk(trees, x[None, :], steps=True)[1][0]


def _linear(model: dict, X: np.ndarray) -> np.ndarray:
    return ((X - model["mean"]) / model["scale"]) @ model["coef"] + model["intercept"]


def logits(model: dict, X: np.ndarray, text_z: np.ndarray | None = None) -> np.ndarray:
    """Junk logit per row of ONE document, before the block pull: the context model (logistic
    regression, averaged with the trees when the model has them), with the text model's logits
    (`text_z`, from text_logits) blended in with the model file's weight."""
    z = _linear(model, X)
    if "trees" in model:
        weight = model["trees"]["weight"]
        lines = X.any(axis=1)  # blank rows are never judged (kept_rows): no walk for them
        z[lines] = (1.0 - weight) * z[lines] + weight * tree_logits(model["trees"], X[lines])
    if text_z is not None:
        weight = model["text"]["weight"]
        z = (1.0 - weight) * z + weight * text_z
    return z


# --- the sequence model: a bidirectional GRU over the page's lines (tenth version) ----------------
#
# The features above see a line's neighbours through a few hand-made summaries (nb_lex, run,
# first_run, gaps). A small recurrent network reads the whole page's feature rows in order, both
# ways, and learns which sequences of rows are chrome: a run of short keyed lines under a title
# is a byline, the same run after the article's last paragraph is a credits strip. Trained in
# torch by tools/train_line_model.py; run here in numpy (the recurrence is one step per line, the
# input projections are done for the whole page at once). Its logit is blended with the pulled
# context logit (`weight` in the model file).

SEQUENCE_REASON = "its place in the page's sequence of lines"


def sequence_inputs(rows: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Feature rows as the network reads them, in training and here: standardized, clipped to
    +-5 (a long page's `index` or a huge `chars` must not swamp the other inputs)."""
    return np.clip((rows - mean) / scale, -5.0, 5.0)


def prepare_sequence(data: dict) -> dict:
    """The model file's sequence network as numpy arrays, with both GRU directions packed gate
    by gate ([r fwd, r bwd, z fwd, z bwd, n fwd, n bwd]) so that one step of the page is one
    matrix product and a few operations on one vector."""
    out = {k: np.asarray(v, dtype=np.float64) for k, v in data.items() if k != "hidden"}
    out["weight"] = float(data["weight"])
    h = out["hidden"] = int(data["hidden"])

    def packed(per_direction: np.ndarray) -> np.ndarray:  # (2, ..., 3H) -> (..., 6H)
        parts = [per_direction[d][..., g * h : (g + 1) * h] for g in range(3) for d in range(2)]
        return np.concatenate(parts, axis=-1)

    w_hh = np.zeros((2 * h + 1, 6 * h))  # the last row is the bias: the state ends with a 1
    for d in range(2):  # each direction's state feeds only its own gates
        one = np.zeros((2, h, 3 * h))
        one[d] = out["w_hh"][d]
        w_hh[d * h : (d + 1) * h] = packed(one)
    w_hh[-1] = packed(out["b_hh"])
    w_ih = np.vstack([packed(out["w_ih"]), packed(out["b_ih"])])  # the inputs end with a 1 too
    # sigmoid(a) = (1 + tanh(a / 2)) / 2: the gates' sums are stored halved (the reset and update
    # gates' inputs and the hidden side of every gate), so that a step is one product, two
    # tanh and a few in-place operations (sequence_logits)
    w_ih[:, : 4 * h] *= 0.5
    w_hh *= 0.5
    # float32 as in training: the step's small products and tanh run several times faster
    out["packed"] = (w_ih.astype(np.float32), w_hh.astype(np.float32))
    for key in ("w_ih", "b_ih", "w_hh", "b_hh"):  # only their packed form is read
        del out[key]
    return out


def sequence_from_state(
    state: dict[str, np.ndarray], mean: np.ndarray, scale: np.ndarray, weight: float
) -> dict:
    """The model file's form of the network from its torch state (numpy arrays by torch's
    names: inp, gru (+ _reverse), out1, out2), the feature rows' mean and scale, and the blend
    weight. Matrices are stored for right-multiplication; the GRU's per direction."""

    def r(a: np.ndarray) -> list:
        return np.round(np.asarray(a, dtype=np.float64), 6).tolist()

    return {
        "weight": weight,
        "hidden": int(state["gru.weight_hh_l0"].shape[1]),
        "mean": r(mean),
        "scale": r(scale),
        "w_in": r(state["inp.weight"].T),
        "b_in": r(state["inp.bias"]),
        "w_ih": r([state["gru.weight_ih_l0"].T, state["gru.weight_ih_l0_reverse"].T]),
        "b_ih": r([state["gru.bias_ih_l0"], state["gru.bias_ih_l0_reverse"]]),
        "w_hh": r([state["gru.weight_hh_l0"].T, state["gru.weight_hh_l0_reverse"].T]),
        "b_hh": r([state["gru.bias_hh_l0"], state["gru.bias_hh_l0_reverse"]]),
        "w_out1": r(state["out1.weight"].T),
        "b_out1": r(state["out1.bias"]),
        "w_out2": r(state["out2.weight"][0]),
        "b_out2": r(state["out2.bias"][0]),
    }


def sequence_logits(seq: dict, X: np.ndarray) -> np.ndarray:
    """The network's junk logit per row of ONE document, read over its non-blank rows in order
    (blank rows: 0). Same arithmetic as torch's GRU: gates r, z, n; h' = (1 - z) n + z h."""
    rows = np.flatnonzero(X.any(axis=1))
    out = np.zeros(len(X))
    if rows.size == 0:
        return out
    h = seq["hidden"]
    w_ih, w_hh = seq["packed"]
    inputs = sequence_inputs(X[rows], seq["mean"], seq["scale"])
    inputs = np.maximum(inputs @ seq["w_in"] + seq["b_in"], 0.0)  # (T, width)
    ones = np.ones((len(rows), 1))
    gates_in = np.hstack([inputs, ones]).astype(np.float32) @ w_ih  # (T, 6H): every step's
    backward = np.tile(np.r_[np.zeros(h, bool), np.ones(h, bool)], 3)  # backward reads upwards
    gates_in[:, backward] = gates_in[::-1][:, backward]
    in_rz, in_n = gates_in[:, : 4 * h].copy(), gates_in[:, 4 * h :].copy()
    # Row t of `history` is the state before step t followed by a 1 (the bias row of w_hh):
    # a step reads one row and writes the next, so the state is never copied.
    history = np.zeros((len(rows) + 1, 2 * h + 1), dtype=np.float32)
    history[:, -1] = 1.0
    g = np.empty(6 * h, dtype=np.float32)
    rz, reset, update, new = g[: 4 * h], g[: 2 * h], g[2 * h : 4 * h], g[4 * h :]
    steps = zip(in_rz, in_n, history[:-1], history[:-1, :-1], history[1:, :-1], strict=True)
    for x_rz, x_n, before_one, before, state in steps:  # halved sums (prepare_sequence)
        np.dot(before_one, w_hh, out=g)  # the same BLAS product as matmul, less overhead
        rz += x_rz
        np.tanh(rz, out=rz)
        rz += 1.0  # 2 r and 2 z: sigmoid = (1 + tanh) / 2
        new *= reset  # r (W_hn h + b_hn)
        new += x_n
        np.tanh(new, out=new)
        np.subtract(before, new, out=state)
        state *= update
        state *= 0.5
        state += new  # h' = n + z (h - n)
    states = history[1:, :-1]
    both = np.concatenate([states[:, :h], states[::-1, h:], inputs], axis=1)
    head = np.maximum(both @ seq["w_out1"] + seq["b_out1"], 0.0)
    out[rows] = head @ seq["w_out2"] + seq["b_out2"]
    return out


def kept_rows(X: np.ndarray) -> np.ndarray:
    """Rows the model never removes: blank lines (all-zero rows), code, text split one
    character per line, chapter headings, the page's one date line and the likely title."""
    kept = (
        ~X.any(axis=1)
        | code_guard(X)
        | (X[:, _I["split_text"]] > 0)
        | (X[:, _I["chapter"]] > 0)
        | (X[:, _I["page_date"]] > 0)
    )
    title = title_row(X)
    if title is not None:
        kept[title] = True
    return kept


@lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    return ThreadpoolController()


def _scores(
    model: dict, X: np.ndarray, text_z: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(logit of each line alone, logit after the block pull, junk probability with the
    sequence network blended in; 0 for kept rows)."""
    # One BLAS thread: the products are small (a page's rows, then one GRU step per line), and
    # OpenBLAS spreads each over every core, spinning: 2.5x the CPU for no gain in time
    # (bench/). It also makes the last bits of a probability independent of the core count.
    with _blas().limit(limits=1, user_api="blas"):
        return _scores_one_thread(model, X, text_z)


def _scores_one_thread(
    model: dict, X: np.ndarray, text_z: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    kept = kept_rows(X)
    alone = logits(model, X, text_z)
    pulled = _pull_to_blocks(alone, ~kept & (X[:, _I["body"]] == 0))
    z = pulled
    if "sequence" in model:
        weight = model["sequence"]["weight"]
        z = (1.0 - weight) * pulled + weight * sequence_logits(model["sequence"], X)
    p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
    p[kept] = 0.0
    return alone, pulled, p


def predict(model: dict, X: np.ndarray, text_z: np.ndarray | None = None) -> np.ndarray:
    """Junk probability per row of ONE document; 0 for the kept rows (kept_rows). `text_z`: the
    text model's logits (text_logits)."""
    return _scores(model, X, text_z)[2]


def line_features(
    lines: list[str], batch_counts: dict[str, int] | None = None, n_docs: int = 1
) -> np.ndarray:
    """One row per line of ONE document (`text.split("\\n")`); blank lines get a zero row.
    `batch_counts`: line_key -> number of documents of the current run containing it (see
    count_batch), `n_docs` the number of documents of the run; None for a single document."""
    return _features(lines, _model()["lexicon_arrays"], batch_counts, n_docs)


def junk_probabilities(
    lines: list[str], batch_counts: dict[str, int] | None = None, n_docs: int = 1
) -> list[float]:
    """The probability that each line is junk (chrome or spam); 0.0 for blank lines."""
    model = _model()
    X = line_features(lines, batch_counts, n_docs)
    return predict(model, X, text_logits(model, lines)).tolist()


def reasons(model: dict, x: np.ndarray, k: int = 3) -> list[str]:
    """Names of the (up to) k features that pushed row x most towards junk."""
    dev = (x - model["mean"]) / model["scale"]
    contrib = dev * model["coef"]
    if "trees" in model:
        weight = model["trees"]["weight"]
        contrib = (1.0 - weight) * contrib + weight * tree_contributions(model["trees"], x)
    out: list[str] = []
    for j in np.argsort(-contrib, kind="stable"):
        if contrib[j] <= 0 or len(out) == k:
            break
        reason = REASONS[FEATURE_NAMES[j]][0 if dev[j] > 0 else 1]
        if reason not in out:
            out.append(reason)
    return out


def explain(
    lines: list[str],
    i: int,
    batch_counts: dict[str, int] | None = None,
    n_docs: int = 1,
    k: int = 3,
) -> list[str]:
    """The (up to) k features that pushed line i most towards junk, as short names
    ("chrome words", "short", "top run")."""
    model = _model()
    text_z = text_logits(model, lines)
    leans = text_z is not None and text_z[i] > 0
    return _reasons(model, line_features(lines, batch_counts, n_docs)[i], lines[i], leans, k)


def junk_lines(
    lines: list[str],
    batch_counts: dict[str, int] | None = None,
    n_docs: int = 1,
    k: int = 3,
    threshold: float | None = None,
) -> list[tuple[int, float, list[str]]]:
    """(index, probability, reasons) of every line at or above `threshold` (None: THRESHOLD,
    the model's own), from one feature pass: what a stage needs."""
    model = _model()
    X = line_features(lines, batch_counts, n_docs)
    text_z = text_logits(model, lines)
    alone, pulled, p = _scores(model, X, text_z)
    leans = np.zeros(len(lines), dtype=bool) if text_z is None else text_z > 0
    cut = model["threshold"] if threshold is None else threshold
    limit = math.log(cut / (1.0 - cut))
    out = []
    for i in np.flatnonzero(p >= cut):
        why = _reasons(model, X[i], lines[i], bool(leans[i]), k)
        if pulled[i] < limit:  # line and block would have stayed: the page's sequence decided
            why.append(SEQUENCE_REASON)
        elif alone[i] < limit:  # the line alone would have stayed: its block decided
            why.append(BLOCK_REASON)
        out.append((int(i), float(p[i]), why))
    return out


def _reasons(model: dict, x: np.ndarray, line: str, text_leans: bool, k: int) -> list[str]:
    """The context features' reasons, and the words the text model leaned on when it leaned
    towards junk (`text_leans`)."""
    out = reasons(model, x, k)
    if text_leans:
        words = text_reason(model, line)
        if words:
            out.append(words)
    return out
