"""`python -m bench`: print one table of every measurement and write bench/results.json."""

from __future__ import annotations

import argparse
import json

from bench import big_inputs, scaling, text_stages, translation, whole_process, writers
from bench.common import ROOT, peak_rss_mb

COLUMNS = ("part", "measure", "result", "vs baseline (same run)", "peak RSS")


def _text_rows(rows: list[dict], peak_mb: int) -> list[tuple]:
    out = []
    for r in rows:
        vs = f"{r['vs_baseline']}× {r['baseline']}" if "baseline" in r else ""
        result = f"{r['chars_per_s'] / 1e6:.2f} M chars/s = {r['mb_per_s']} MB/s"
        peak = f"{peak_mb} MB" if r["stage"] == "end-to-end text stages" else ""
        out.append(("text, 1 core", r["stage"], result, vs, peak))
    return out


def _whole_rows(r: dict) -> list[tuple]:
    """The cleaning pass as a user runs it, against the by-hand script in the same run."""
    rows = []
    for key in ("pipeline", "by_hand"):
        x = r[key]
        vs = ""
        if key == "pipeline":
            each = ", ".join(f"{v}×" for v in r["vs_by_hand_each"])
            vs = f"{r['vs_by_hand']}× by-hand (CPU {r['vs_by_hand_cpu']}×; each run: {each})"
        rows.append(
            (
                f"whole process, {r['mb']} MB, {r['documents']} pages",
                x["name"],
                f"{x['wall_s']} s = {x['mb_per_s']} MB/s; {x['mb_per_cpu_s']} MB per CPU-s",
                vs,
                f"{x['peak_rss_mb']} MB",
            )
        )
    return rows


def _writer_rows(rows: list[dict]) -> list[tuple]:
    return [
        (
            "JSON writer",
            r["measure"],
            f"{r['seconds']} s = {r['mb_per_s']} MB/s of JSON",
            f"{r['vs_baseline']}× {r['baseline']}" if "baseline" in r else "",
            f"{r['peak_rss_mb']} MB" if "peak_rss_mb" in r else "",
        )
        for r in rows
    ]


def _translation_rows(results: dict) -> list[tuple]:
    out = []
    for r in results["throughput"]:
        vs = r["vs_transformers_fp32"]
        out.append(
            (
                "translate",
                f"{r['engine']}, {r['decoding']}, batch {r['batch']}",
                f"{r['sentences_per_s']} sent/s, {r['tokens_per_s']} tok/s",
                f"{vs}× transformers fp32" if vs != "-" else "",
                f"{r['peak_rss_mb']} MB",
            )
        )
    waste = results["padding_waste"]
    out.append(("translate", "padding waste, sorted token-budget batches", f"{waste:.1%}", "", ""))
    by_engine = {r["engine"]: r for r in results["startup"]}
    base = by_engine.get("transformers", {})
    for engine, r in by_engine.items():
        for key, label in (
            ("first_sentence_s", "first sentence"),
            ("first_document_s", "first document"),
        ):
            if key not in r:
                continue
            vs = ""
            if engine != "transformers" and base.get(key):
                vs = f"{base[key] / r[key]:.1f}× sooner than transformers"
            out.append(("start-up", f"{engine}: {label}", f"{r[key]} s", vs, ""))
    return out


def _scaling_rows(rows: list[dict]) -> list[tuple]:
    out = []
    for r in rows:
        same = "; same bytes as local" if r.get("same_output_as_local") else ""
        out.append(
            (
                "scaling",
                f"{r['setup']} ({r['records']} records, {r['mb']} MB)",
                f"{r['seconds']} s = {r['mb_per_s']} MB/s",
                f"{r['speedup_vs_1_worker']}× local, 1 worker{same}",
                "",
            )
        )
    return out


def _big_rows(rows: list[dict]) -> list[tuple]:
    return [
        (
            "big input",
            f"{r['input']} ({r['mb']} MB)",
            f"{r['seconds']} s = {r['mb_per_s']} MB/s",
            "",
            f"{r['peak_rss_mb']} MB",
        )
        for r in rows
    ]


def _table(rows: list[tuple]) -> str:
    widths = [max(len(str(r[i])) for r in [COLUMNS, *rows]) for i in range(len(COLUMNS))]
    lines = [
        "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [COLUMNS, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=5.0, help="size of the replicated corpus")
    parser.add_argument("--sentences", type=int, default=128, help="sentences to translate")
    parser.add_argument("--skip-translation", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true", help="no 1→2 worker / Ray runs")
    parser.add_argument("--repeat", type=int, default=3, help="whole-process runs of each")
    parser.add_argument("--big", action="store_true", help="also time a 50 MB file (minutes)")
    args = parser.parse_args()

    results: dict = {"whole_process": whole_process.run(int(args.mb * 1e6), args.repeat)}
    rows = _whole_rows(results["whole_process"])
    results["text_stages"] = text_stages.run(int(args.mb * 1e6))
    rows += _text_rows(results["text_stages"], peak_rss_mb())
    results["json_writer"] = writers.run(int(args.mb * 1e6))
    rows += _writer_rows(results["json_writer"])
    if not args.skip_translation:
        results["translation"] = translation.run(args.sentences)
        rows += _translation_rows(results["translation"])
    if not args.skip_scaling:
        results["scaling"] = scaling.run()
        rows += _scaling_rows(results["scaling"])
    if args.big:
        results["big_inputs"] = big_inputs.run()
        rows += _big_rows(results["big_inputs"])
    results["table"] = [dict(zip(COLUMNS, row, strict=True)) for row in rows]
    print(_table(rows))
    (ROOT / "bench" / "results.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
