"""The classifier stage: junk lines judged in context by the learned model; content, code and
tables stay. The page here is written for the test (no text from the labeled real pages)."""

from __future__ import annotations

from pipeline.settings import Settings
from pipeline.text import table_lines
from tests.conftest import clean

JUNK = [
    "科技频道",  # the site's section name above the menu: the classifier's (no rule has it)
    "首页 | 新闻 | 科技 | 汽车 | 登录 | 注册",
    "首页 > 科技 > 人工智能 > 正文",
    "责任编辑：王小明 审核：李华",
    "相关阅读",
    "• 芯片出口新规发布",
    "• 国产大模型排行榜出炉",
    "分享到：微信 微博 QQ空间",
    "扫一扫关注我们",
]
CONTENT = [
    "大模型训练成本下降的三个原因",
    "2024-05-12 10:30 来源：科技日报",
    "过去一年，训练一个千亿参数的大模型所需的算力成本下降了将近一半。研究人员认为，这主要得益于"
    "硬件效率的提升、训练算法的改进以及数据处理流程的优化。",
    "首先是硬件。新一代加速卡在同样功耗下能提供更高的吞吐量，集群之间的互联带宽也大幅提高。",
    "其次是算法。混合精度训练和更好的并行策略减少了浪费，使得同样的预算可以训练更大的模型。",
    "func main() {",
    '    fmt.Println("hello")',
    "}",
    "| 年份 | 成本 |",
    "|---|---|",
    "| 2023 | 100 |",
]
PAGE = "\n".join(JUNK[:2] + CONTENT + JUNK[2:]) + "\n"


def kept_lines(settings: Settings | None = None) -> set[str]:
    return {line.strip() for line in clean(PAGE, settings).view.text.split("\n") if line.strip()}


def test_chrome_goes_and_content_code_and_tables_stay():
    kept = kept_lines()
    assert {line.strip() for line in CONTENT} <= kept
    assert not kept & set(JUNK)


def classifier_cuts() -> list:
    return [e for e in clean(PAGE).edits if e.stage == "classifier"]


def test_the_classifier_takes_junk_the_rules_miss_and_says_why():
    edits = classifier_cuts()
    assert edits and {e.text.strip() for e in edits} <= set(JUNK)
    for edit in edits:
        assert edit.reason.startswith("junk line (") and "):" in edit.reason


def test_keep_classifier_turns_it_off():
    kept = kept_lines(Settings(keep=("classifier",)))
    assert {e.text.strip() for e in classifier_cuts()} <= kept


def test_markdown_tables_are_protected():
    rows = ["文字", "| a | b |", "|---|---|", "| 1 | 2 |", "", "| 不是 | 表格 |"]
    assert table_lines(rows) == {1, 2, 3}
    bare = ["名称 | 说明", "---|---", "a | b", "正文。"]  # GitHub tables need no outer pipes
    assert table_lines(bare) == {0, 1, 2}
    # the rule dropped by a scraper: three framed rows with filled cells still make a table;
    # two rows, or rows of empty cells, do not
    framed = ["| 月份 | 电费 |", "| 一月 | 62 |", "| 二月 | 70 |", "正文。", "| a | b |", "| c |"]
    assert table_lines(framed) == {0, 1, 2}
    assert table_lines(["| |||", "| |||", "| |||"]) == set()
    # a table printed one cell per line (numbers beside its lone `|`), not a menu's separators
    cells = ["首页", "|", "新闻", "", "初诊", "|", "200", "元", "|", "复诊", "正文写在这里。"]
    assert table_lines(cells) == {4, 5, 6, 7, 8, 9}


def test_line_keys_of_a_page_in_one_pass_are_its_lines_keys():
    from bench import corpus
    from pipeline.linemodel import _KEY_DROP, _code_points, _line_keys
    from pipeline.text import fold

    every = "".join(chr(c) for c in range(1, 0x30000) if not 0xD800 <= c < 0xE000)
    pages = [p.text for p in corpus.fixture_pages()] + [every, every.replace("\n", "")]
    for page in pages:
        ftext = fold(page)
        expected = [_KEY_DROP.sub("", line) for line in ftext.split("\n")]
        assert _line_keys(_code_points(ftext)) == expected


def test_text_split_one_character_per_line_is_kept():
    # a scraper that put every character on a line of its own: each line alone looks like a
    # stray mark, the run is the article
    body = "研究人员发布了新的模型，训练和推理的效率都有提升。"
    page = "模型效率提升\n" + "\n".join(body) + "\n"
    kept = clean(page).view.text
    assert "".join(kept.split()) == "模型效率提升" + body


def test_a_menu_column_of_two_character_items_is_not_split_text():
    """A text split one character per line is guarded as prose; a channel menu printed one item
    per line (two characters each) only looks like it, and is judged like any other lines."""
    from pipeline.linemodel import FEATURE_NAMES, line_features

    col = FEATURE_NAMES.index("split_text")
    body = "研究人员发布了新的模型，训练和推理的效率都有提升。"
    menu = ["首页", "新闻", "财经", "体育", "科技", "汽车", "房产", "教育", "健康", "旅游"]
    X = line_features([*menu, body])
    assert (X[:, col] == 0).all()
    X = line_features(list(body))
    assert (X[:, col] == 1).all()


def test_the_likely_title_is_never_the_classifier_s():
    import numpy as np

    from pipeline.linemodel import line_features, predict, title_row

    lines = [
        "登录 | 注册",
        "电池回收企业扩大产能",
        "2024-05-12",
        "多家电池回收企业宣布扩大产能，回收企业认为电池退役高峰即将到来，产能需要提前准备。",
        "业内人士表示，电池回收的利润取决于金属价格，企业正在改进拆解工艺以降低成本。",
    ]
    X = line_features(lines)
    assert title_row(X) == 1  # shares 电池, 回收, 企业, 产能 with the body; the menu shares none
    # a breadcrumb that ends with the title shares as many words, and is still no title
    crumbs = ["首页 > 新能源 > 电池回收企业扩大产能", *lines[1:]]
    assert title_row(line_features(crumbs)) == 1
    # no line above the body shares two topic words: no title is guessed
    assert title_row(line_features(["登录 | 注册", *lines[3:]])) is None
    # a model that calls every line junk still leaves the title (and the page's one date line,
    # and blank lines) alone
    n = X.shape[1]
    everything = {"mean": np.zeros(n), "scale": np.ones(n), "coef": np.zeros(n), "intercept": 9.0}
    p = predict(everything, X)
    assert p[1] == p[2] == 0.0 and (np.delete(p, [1, 2]) > 0.99).all()


def test_chapter_headings_are_never_the_classifier_s():
    import numpy as np

    from pipeline.linemodel import line_features, predict

    lines = ["第1章 绪论", "  • 第二节 研究方法", "第3页", "第十回 大闹天宫", "上一篇"]
    X = line_features(lines)
    n = X.shape[1]
    everything = {"mean": np.zeros(n), "scale": np.ones(n), "coef": np.zeros(n), "intercept": 9.0}
    p = predict(everything, X)
    assert p[0] == p[1] == p[3] == 0.0 and p[2] > 0.99 and p[4] > 0.99



def test_the_page_s_one_date_line_is_never_the_classifier_s_but_a_list_s_dates_are():
    import numpy as np

    from pipeline.linemodel import line_features, predict

    def probs(lines: list[str]) -> np.ndarray:
        X = line_features(lines)
        n = X.shape[1]
        flat = {"mean": np.zeros(n), "scale": np.ones(n), "coef": np.zeros(n), "intercept": 9.0}
        return predict(flat, X)

    one = probs(["首页 新闻 图片", "發布時間：2023年5月2日 10:20", "文章正文的第一段。"])
    assert one[1] == 0.0 and one[0] > 0.99
    listing = probs(["春季植树活动启动", "2023-03-12", "图书馆延长开放时间", "2023-03-10"])
    assert (listing > 0.99).all()

# The text model: character 1-3-grams of the line, tf-idf, logistic regression. Its lines are
# written for the test.
TEXT_JUNK = ["登录 注册 找回密码", "扫码关注公众号", "相关阅读：更多精彩内容", "上一篇 下一篇",
             "分享到 微信 微博", "点击下载 立即登录", "免责声明：本站内容来源于网络"]  # fmt: skip
TEXT_CONTENT = [
    "研究人员在实验室里测试了新的电池材料，结果显示能量密度提高了百分之二十。",
    "这种材料的成本较低，适合大规模生产。",
    "团队计划明年开始中试，并与汽车厂商合作验证。",
    "他们在論文中說明了合成方法和測試條件。",
    "实验  数据\t表明 材料 很稳定",
]


def fitted_text_model():
    """(scikit-learn vectorizer, classifier, the same model in the model file's form)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    from pipeline.linemodel import char_grams

    texts = TEXT_JUNK + TEXT_CONTENT
    y = [1] * len(TEXT_JUNK) + [0] * len(TEXT_CONTENT)
    vec = TfidfVectorizer(analyzer=char_grams, sublinear_tf=True)
    clf = LogisticRegression(C=10.0).fit(vec.fit_transform(texts), y)
    text = {
        "weight": 0.5,
        "intercept": float(clf.intercept_[0]),
        "grams": list(vec.get_feature_names_out()),
        "idf": vec.idf_.tolist(),
        "coef": clf.coef_[0].tolist(),
    }
    return vec, clf, text


def test_the_text_model_in_numpy_scores_as_scikit_learn_does():
    import numpy as np

    from pipeline.linemodel import prepare_text, text_logits

    vec, clf, text = fitted_text_model()
    lines = ["", "  登录后可以下载全文  ", "电池材料的成本", "   ", "ＡＢＣ 扫码　关注",
             "全新的句子"]  # fmt: skip
    z = text_logits({"text": prepare_text(text)}, lines)
    blank = [0, 3]
    expected = clf.decision_function(vec.transform([lines[i] for i in (1, 2, 4, 5)]))
    assert np.allclose(np.delete(z, blank), expected, atol=1e-9)
    assert np.allclose(z[blank], text["intercept"])  # no grams: the intercept alone
    assert z[1] > 0 > z[2]


def test_the_trees_in_numpy_score_as_scikit_learn_does_and_their_steps_add_up():
    import json

    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier

    from pipeline.linemodel import prepare_trees, tree_contributions, tree_logits, trees_from_nodes

    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(0, 30, 400), rng.random(400), rng.integers(0, 2, 400)])
    y = ((X[:, 0] < 8) & (X[:, 2] == 1) | (X[:, 1] > 0.9)).astype(int)
    g = HistGradientBoostingClassifier(max_depth=3, max_iter=40, random_state=0).fit(X, y)
    tables = [predictors[0].nodes for predictors in g._predictors]
    # through json, as the model file holds it
    trees = prepare_trees(json.loads(json.dumps(
        trees_from_nodes(tables, np.ravel(g._baseline_prediction)[0], 0.5)
    )))  # fmt: skip
    unseen = np.column_stack([rng.integers(0, 30, 50), rng.random(50), rng.integers(0, 2, 50)])
    assert np.allclose(tree_logits(trees, unseen), g.decision_function(unseen), atol=1e-9)
    roots = trees["baseline"] + trees["value"].take(trees["roots"]).sum()
    for x, z in zip(unseen[:10], tree_logits(trees, unseen[:10]), strict=True):
        steps = tree_contributions(trees, x)
        assert np.isclose(roots + steps.sum(), z)  # the path's steps split the logit exactly
    assert np.abs(tree_contributions(trees, unseen[0]))[[0, 2]].sum() > 0  # the features used


def test_the_text_model_is_blended_and_named_in_the_reason():
    import numpy as np

    from pipeline.linemodel import line_features, predict, prepare_text, text_logits, text_reason

    _, _, text = fitted_text_model()
    model = {"text": prepare_text(text)}
    lines = ["扫码关注公众号", "", "研究人员测试了新的电池材料。"]  # apart: no block pull
    X = line_features(lines)
    n = X.shape[1]
    model.update(mean=np.zeros(n), scale=np.ones(n), coef=np.zeros(n), intercept=0.0)
    z = text_logits(model, lines)
    p = predict(model, X, z)
    assert p[1] == 0.0  # blank
    assert np.allclose(p[[0, 2]], 1 / (1 + np.exp(-0.5 * z[[0, 2]])))  # context 0, weight 0.5
    reason = text_reason(model, lines[0])
    assert reason.startswith("text ") and all(len(g) >= 2 for g in reason[5:].split(", "))
    assert text_reason(model, lines[1]) is None or "公众" not in text_reason(model, lines[1])


def test_a_line_is_pulled_towards_its_block():
    """Consecutive short lines form a block; each line's logit moves BLOCK_PULL of the way to
    the block's median. A line alone (blank lines around it) or next to prose is not pulled."""
    import numpy as np

    from pipeline.linemodel import BLOCK_PULL, FEATURE_NAMES, line_features, predict

    prose = "研究人员在实验室里测试了新的电池材料，结果显示能量密度提高了百分之二十。"
    lines = ["• 首页", "• 新闻", "关于我们", "", "关于我们", "", prose, "关于我们"]
    X = line_features(lines)
    n = X.shape[1]
    bullet = FEATURE_NAMES.index("bullet")
    assert X[0, bullet] > 0 and X[1, bullet] > 0 and X[2, bullet] == 0
    coef = np.zeros(n)
    coef[bullet] = 6.0 / X[0, bullet]
    model = {"mean": np.zeros(n), "scale": np.ones(n), "coef": coef, "intercept": -2.0}
    z = X @ coef - 2.0
    p = predict(model, X)
    block = z[:3]
    pulled = block + BLOCK_PULL * (np.median(block) - block)
    assert np.allclose(p[:3], 1 / (1 + np.exp(-pulled)))
    assert p[2] > 1 / (1 + np.exp(2.0))  # the bullet-less item goes up with its menu
    assert np.allclose(p[[4, 7]], 1 / (1 + np.exp(2.0)))  # alone, and beside prose: unmoved


def _training_script():
    """tools/train_line_model.py as a module (tools/ is not a package)."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "tools" / "train_line_model.py"
    spec = importlib.util.spec_from_file_location("train_line_model", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("train_line_model", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return sys.modules["train_line_model"]


def test_the_sequence_network_in_numpy_scores_as_torch_does_and_is_blended():
    """The GRU run in numpy over a page's non-blank rows gives torch's logits (random weights,
    through the model file's json); blank rows stay 0 and are skipped, so the blank line
    changes nothing; the order of the rows matters; the blend moves a line's logit by the
    file's weight."""
    import json

    import numpy as np
    import torch

    from pipeline import linemodel as lm

    n = len(lm.FEATURE_NAMES)
    torch.manual_seed(5)
    net = _training_script().sequence_net(n, width=5, hidden=4).eval()
    rng = np.random.default_rng(4)
    mean, scale = rng.normal(size=n) * 0.1, rng.uniform(0.2, 2.0, size=n)
    state = {k: v.detach().numpy() for k, v in net.state_dict().items()}
    stored = json.dumps(lm.sequence_from_state(state, mean, scale, 0.4))  # as the model file
    seq = lm.prepare_sequence(json.loads(stored))
    lines = ["首页", "新闻中心", "", "联系我们 | 关于我们", "扫码关注", "版权所有 2024 某某网"]
    X = lm.line_features(lines)
    rows = [0, 1, 3, 4, 5]
    with torch.no_grad():
        expected = net(torch.tensor(np.clip((X[rows] - mean) / scale, -5, 5), dtype=torch.float32))
    z = lm.sequence_logits(seq, X)
    assert np.allclose(z[rows], expected.numpy(), atol=1e-5)
    assert z[2] == 0.0
    assert np.allclose(lm.sequence_logits(seq, X[rows]), z[rows], atol=1e-6)
    assert not np.allclose(lm.sequence_logits(seq, X[rows][::-1])[::-1], z[rows], atol=1e-3)

    # a context model of logit 0 on every line leaves the network's share of the blend
    model = {"mean": np.zeros(n), "scale": np.ones(n), "coef": np.zeros(n), "intercept": 0.0,
             "sequence": seq}  # fmt: skip
    p = lm.predict(model, X)
    assert p[2] == 0.0
    assert np.allclose(p[rows], 1 / (1 + np.exp(-0.4 * z[rows])))


def test_a_removal_the_sequence_network_decided_says_so(monkeypatch):
    """When the line's and its block's logits would keep it and the network's share of the
    blend removes it, its reason names the network."""
    import numpy as np
    import torch

    from pipeline import linemodel as lm

    n = len(lm.FEATURE_NAMES)
    torch.manual_seed(2)
    net = _training_script().sequence_net(n, width=4, hidden=3).eval()
    state = {k: v.detach().numpy() * 0.01 for k, v in net.state_dict().items()}
    state["out2.bias"] = np.array([40.0])  # the network calls every line junk
    seq = lm.prepare_sequence(lm.sequence_from_state(state, np.zeros(n), np.ones(n), 0.3))
    shipped = lm._model()
    model = {
        "threshold": 0.9, "lexicon_arrays": shipped["lexicon_arrays"], "sequence": seq,
        "mean": np.zeros(n), "scale": np.ones(n), "coef": np.zeros(n), "intercept": -3.0,
    }  # fmt: skip
    monkeypatch.setattr(lm, "_model", lambda: model)
    lines = ["首页", "", "扫码关注"]
    found = lm.junk_lines(lines)
    assert [i for i, _, _ in found] == [0, 2]  # logit 0.7 * -3 + 0.3 * 40 > logit(0.9)
    assert all(why[-1] == lm.SEQUENCE_REASON for _, _, why in found)
    del model["sequence"]
    assert lm.junk_lines(lines) == []


def test_a_page_without_prose_is_marked_as_such():
    """Without prose no line shares topic words with the article, content included: the
    `no_body` feature tells the model so on every line of such a page, and on none otherwise."""
    from pipeline.linemodel import FEATURE_NAMES, line_features

    col = FEATURE_NAMES.index("no_body")
    lines = ["第一站：火山口", "", "第二站：温泉", "第三站：博物馆"]
    X = line_features(lines)
    assert (X[[0, 2, 3], col] == 1.0).all() and X[1, col] == 0.0  # blank rows stay zero
    prose = "火山口的温泉在冬天也很热闹，游客可以在博物馆里了解这座火山的历史和地质变化。"
    X = line_features([*lines, prose])
    assert (X[:, col] == 0.0).all()


def test_blank_lines_around_a_line_are_features_of_it():
    """Paragraphs come apart with blank lines, a menu's items one under the other: each line
    knows whether a blank line is above and below it, and the page how spaced it is."""
    from pipeline.linemodel import FEATURE_NAMES, line_features

    lines = ["", "首页", "新闻", "体育", "", "记者走访了三座城市的社区食堂。", "", "", "编辑：王"]
    X = line_features(lines)
    before, after, share = map(FEATURE_NAMES.index, ("gap_before", "gap_after", "gap_share"))
    assert X[[1, 2, 3, 5, 8], before].tolist() == [1, 0, 0, 1, 1]
    assert X[[1, 2, 3, 5, 8], after].tolist() == [0, 0, 1, 1, 0]  # the page's end is no gap
    assert X[[1, 5], share].tolist() == [0.4, 0.4]  # 2 of the 5 lines have a blank line below
    assert not X[[0, 4, 6, 7]].any()  # blank rows stay zero


def test_junk_threshold_sets_how_much_the_classifier_takes():
    cuts = {
        p: [e for e in clean(PAGE, Settings(junk_threshold=p)).edits if e.stage == "classifier"]
        for p in (0.999999, 1e-6)
    }
    assert len(cuts[1e-6]) > len(classifier_cuts()) > len(cuts[0.999999])
    # what it takes at a low threshold is still never code, a table or the prose
    assert not {e.text.strip() for e in cuts[1e-6]} & {line.strip() for line in CONTENT[5:]}


def test_bylines_stay_even_where_the_model_would_cut_every_line():
    # a threshold near 0: the model takes every line it scores at all
    bylines = ["作者：王小明", "• 记者：李华 张强", "文/周一鸣", "来源：原创", "Posted on 1 May"]
    page = "\n".join(["科技频道", *bylines, *CONTENT[2:5]]) + "\n"
    low = Settings(junk_threshold=1e-6)
    edits = [e.text.strip() for e in clean(page, low).edits if e.stage == "classifier"]
    assert "科技频道" in edits  # the low threshold does cut
    assert not set(edits) & set(bylines)


def test_the_model_s_products_run_on_one_blas_thread(monkeypatch):
    """OpenBLAS would spread each small product over every core (more CPU, no less time, and
    last bits that depend on the core count): the scores are computed on one thread."""
    from pipeline import linemodel as lm

    numpy_blas = lm._blas().select(user_api="blas")  # (torch, once imported, has its own)
    seen = []
    sequence_logits = lm.sequence_logits

    def watched(seq, X):
        seen.extend(lib["num_threads"] for lib in numpy_blas.info())
        return sequence_logits(seq, X)

    monkeypatch.setattr(lm, "sequence_logits", watched)
    lm.junk_probabilities(PAGE.split("\n"))
    assert seen and set(seen) == {1}
