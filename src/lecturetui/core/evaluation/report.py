"""The evaluation report in the seeds' Markdown record format, with a summary on top.

Each record: `**Pergunta N**`, the retrieved segments (Corpus ID, Score, URL, Início, Fim,
Transcrição), the answer, Referências, Anotação manual, Answer Relevance (AR), Anotação
automatizada, Raciocínio (AR CoT), then groundedness and context relevance; records are separated
by `---`. Labels are Portuguese by default, English with `lang="en"`. `parse_report` reads a
report back (the tests check every field with it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lecturetui.core.evaluation.metrics import RetrievalScores, cohen_kappa, percent_agreement
from lecturetui.core.evaluation.saved_runs import EvalRecord, RunInfo
from lecturetui.core.timefmt import format_timestamp

LABELS: dict[str, dict[str, str]] = {
    "pt": {
        "question": "Pergunta", "segments": "Segmentos recuperados pelo", "corpus_id": "Corpus ID",
        "score": "Score", "url": "URL", "hidden": "oculto", "start": "Início", "end": "Fim",
        "text": "Transcrição", "answer": "Resposta gerada pelo LLM", "references": "Referências",
        "manual": "Anotação manual", "ar": "Answer Relevance (AR)",
        "auto": "Anotação automatizada", "cot": "Raciocínio (AR CoT)",
        "grounded": "Groundedness", "context": "Relevância do contexto",
        "pending": "pendente", "title": "Avaliação", "statements": "afirmações sustentadas",
        "summary_questions": "Perguntas", "mode": "busca", "llm": "modelo de resposta",
        "judge": "juiz", "means": "Médias", "auto_counts": "Anotação automatizada",
        "manual_counts": "Anotação manual", "annotated": "anotadas", "agreement": "Concordância manual × automatizada",
        "kappa": "kappa de Cohen", "records": "registros", "retrieval": "Recuperação",
        "with_gold": "perguntas com evidência", "overlap": "Top-10 em comum com o ranking de referência",
        "time": "Tempo por pergunta", "no_answer": "(sem resposta)", "none": "nenhuma",
        "seed": "semente", "keypoints": "Pontos-chave", "coverage": "cobertura",
        "precision": "precisão das citações", "with_points": "perguntas com pontos-chave",
        "stated": "ditos", "judge_note": "O que as notas do juiz valem",
        "as_summary": "pedido de resumo de uma aula: respondida com o resumo, sem segmentos",
        "as_course": "pergunta sobre o que o curso cobre: respondida com uma linha por aula",
    },
    "en": {
        "question": "Question", "segments": "Segments retrieved by", "corpus_id": "Corpus ID",
        "score": "Score", "url": "URL", "hidden": "hidden", "start": "Start", "end": "End",
        "text": "Transcript", "answer": "LLM-generated answer", "references": "References",
        "manual": "Manual annotation", "ar": "Answer Relevance (AR)",
        "auto": "Automated annotation", "cot": "Reasoning (AR CoT)",
        "grounded": "Groundedness", "context": "Context relevance",
        "pending": "pending", "title": "Evaluation", "statements": "statements supported",
        "summary_questions": "Questions", "mode": "search", "llm": "answer model",
        "judge": "judge", "means": "Means", "auto_counts": "Automated annotation",
        "manual_counts": "Manual annotation", "annotated": "annotated", "agreement": "Manual × automated agreement",
        "kappa": "Cohen's kappa", "records": "records", "retrieval": "Retrieval",
        "with_gold": "questions with evidence", "overlap": "Top-10 shared with the reference ranking",
        "time": "Time per question", "no_answer": "(no answer)", "none": "none",
        "seed": "seed", "keypoints": "Key points", "coverage": "coverage",
        "precision": "citation precision", "with_points": "questions with key points",
        "stated": "stated", "judge_note": "What the judge's scores are worth",
        "as_summary": "asks for a lecture's summary: answered with the summary, no segments",
        "as_course": "asks what the course covers: answered with a line per lecture",
    },
}  # fmt: skip

RETRIEVERS = {"dense": "E5", "lexical": "BM25", "hybrid": "E5 + BM25"}

#: what the shipped judge (the 1.5B answer model) is worth, measured against key points and
#: hand labels on the answer benchmark (bench/RESULTS.md, "Answers by their key points")
JUDGE_NOTE = {
    "pt": "o juiz padrão (o modelo de resposta de 1,5B) deu nota máxima de relevância a todas as 75"
    " respostas lidas à mão no benchmark de respostas, inclusive às 24 incorretas (AUC 0,50, o"
    " acaso); a cobertura de pontos-chave separa as corretas das incorretas (AUC 0,95)."
    " Use pontos-chave (`key_points`) ou outro juiz (`--judge`).",
    "en": "the default judge (the 1.5B answer model) gave full answer relevance to all 75 answers"
    " read by hand on the answer benchmark, the 24 incorrect ones included (AUC 0.50, chance);"
    " key-point coverage tells correct from incorrect (AUC 0.95). Use key points (`key_points`)"
    " or another judge (`--judge`).",
}


def _f(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


@dataclass(slots=True)
class Summary:
    n: int = 0
    answer_relevance: float | None = None
    groundedness: float | None = None
    context_relevance: float | None = None
    auto_counts: dict[str, int] = field(default_factory=dict)
    manual_counts: dict[str, int] = field(default_factory=dict)
    paired: int = 0
    agreement: float | None = None
    kappa: float | None = None
    retrieval: dict[str, float] = field(default_factory=dict)
    with_gold: int = 0
    overlaps: list[int] = field(default_factory=list)
    seconds_per_question: float | None = None
    with_key_points: int = 0
    key_point_coverage: float | None = None
    citation_precision: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}


def summarize(records: Sequence[EvalRecord]) -> Summary:
    s = Summary(n=len(records))
    judged = [r.payload.judge for r in records]
    s.answer_relevance = _mean([j.answer_relevance.value for j in judged])
    s.groundedness = _mean([j.groundedness.value for j in judged])
    s.context_relevance = _mean([j.context_relevance.value for j in judged])
    for r in records:
        if r.auto_label:
            s.auto_counts[r.auto_label] = s.auto_counts.get(r.auto_label, 0) + 1
        if r.manual_label:
            s.manual_counts[r.manual_label] = s.manual_counts.get(r.manual_label, 0) + 1
    pairs = [(r.manual_label, r.auto_label) for r in records if r.manual_label and r.auto_label]
    if pairs:
        manual, auto = [p[0] for p in pairs], [p[1] for p in pairs]
        s.paired = len(pairs)
        s.agreement = percent_agreement(manual, auto)
        s.kappa = cohen_kappa(manual, auto)
    scores = RetrievalScores()
    for r in records:
        retrieval = r.payload.retrieval
        if retrieval is not None and retrieval.metrics:
            scores.add_row(retrieval.metrics)
        if retrieval is not None and retrieval.reference_overlap is not None:
            s.overlaps.append(retrieval.reference_overlap)
    s.retrieval, s.with_gold = scores.means(), scores.n
    s.seconds_per_question = _mean([r.payload.timings.get("total_s") for r in records])
    points = [r.payload.key_points for r in records if r.payload.key_points is not None]
    s.with_key_points = len(points)
    s.key_point_coverage = _mean([p.coverage for p in points])
    s.citation_precision = _mean([p.citation_precision for p in points])
    return s


def _counts(counts: Mapping[str, int]) -> str:
    return " · ".join(f"{label} {counts.get(label, 0)}" for label in ("C", "P", "I"))


def render_summary(run: RunInfo, summary: Summary, lang: str = "pt") -> str:
    t = LABELS[lang]
    st = run.settings
    lines = [
        f"# {t['title']}: {run.name}",
        "",
        f"- {t['summary_questions']}: {summary.n} · {t['mode']}: {st.get('mode')} · k = {st.get('k')}"
        f" · {t['llm']}: {st.get('llm')} · {t['judge']}: {st.get('judge')}"
        + (f" · {t['seed']} {st['seed']}" if "seed" in st else ""),
        f"- {t['means']}: {t['ar']} {_f(summary.answer_relevance)} · {t['grounded']}"
        f" {_f(summary.groundedness)} · {t['context']} {_f(summary.context_relevance)}",
        f"- {t['auto_counts']}: {_counts(summary.auto_counts)} · {t['manual_counts']}:"
        f" {_counts(summary.manual_counts)} ({sum(summary.manual_counts.values())}/{summary.n}"
        f" {t['annotated']})",
    ]
    if summary.with_key_points:
        lines.append(
            f"- {t['keypoints']} ({summary.with_key_points} {t['with_points']}):"
            f" {t['coverage']} {_f(summary.key_point_coverage)} · {t['precision']}"
            f" {_f(summary.citation_precision)}"
        )
    if st.get("judge") != "none":
        lines.append(f"- {t['judge_note']}: {JUDGE_NOTE[lang]}")
    if summary.agreement is not None:
        lines.append(
            f"- {t['agreement']}: {summary.agreement:.0%} · {t['kappa']}: {_f(summary.kappa)}"
            f" ({summary.paired} {t['records']})"
        )
    if summary.retrieval:
        metrics = " · ".join(f"{k} {v:.2f}" for k, v in summary.retrieval.items())
        lines.append(f"- {t['retrieval']} ({summary.with_gold} {t['with_gold']}): {metrics}")
    if summary.overlaps:
        each = ", ".join(f"{o}/10" for o in summary.overlaps)
        lines.append(f"- {t['overlap']}: {each}")
    if summary.seconds_per_question is not None:
        lines.append(f"- {t['time']}: {summary.seconds_per_question:.0f} s")
    return "\n".join(lines) + "\n"


def render_record(record: EvalRecord, lang: str = "pt") -> str:
    t = LABELS[lang]
    p = record.payload
    ar, grounded, context = (
        p.judge.answer_relevance,
        p.judge.groundedness,
        p.judge.context_relevance,
    )
    out = [f"**{t['question']} {record.number}**: {record.question} ", ""]
    if p.answered_as in ("summary", "course"):
        out += [f"*({t['as_' + p.answered_as]})*", ""]
    out += [f"**{t['segments']} {RETRIEVERS.get(p.mode, 'E5')}**:"]
    for h in p.hits:
        cid = h.corpus_id if h.corpus_id is not None else h.segment_id
        out += [
            f"- *{t['corpus_id']}:* {cid}",
            f"- *{t['score']}:* {h.score!r}",
            f"- *{t['url']}:* {h.url or t['hidden']}",
            f"- *{t['start']}:* {format_timestamp(h.start_s)}",
            f"- *{t['end']}:* {format_timestamp(h.end_s)}",
            f"- *{t['text']}:* {' '.join(h.text.split())}",
            "",
        ]
    out += ["", f"**{t['answer']}**: {p.answer or t['no_answer']}", ""]
    out += [f"**{t['references']}**:"]
    for c in p.citations:
        out.append(f"- [{c.number}] [{c.lecture_title}, {c.span}]({c.url or ''})")
    if not p.citations:
        out.append(f"- {t['none']}")
    statements = grounded.statements
    g_detail = (
        f" ({sum(grounded.supported)}/{len(statements)} {t['statements']})"
        if grounded.value is not None
        else ""
    )
    ctx_scores = " ".join("—" if s is None else str(s) for s in context.scores)
    reasoning = ar.reasoning
    out += [
        "",
        f"**{t['manual']}**: {record.manual_label or t['pending']}",
        "",
        f"**{t['ar']}**: {_f(ar.value)}",
        "",
        f"**{t['auto']}**: {record.auto_label or '—'}",
        "",
        f"**{t['cot']}**: {reasoning}",
        "",
        f"**{t['grounded']}**: {_f(grounded.value)}{g_detail}",
        "",
        f"**{t['context']}**: {_f(context.value)} ({ctx_scores})",
        "",
    ]
    kp = p.key_points
    if kp is not None:
        marks = " · ".join(("✓ " if f.stated else "✗ ") + f.point for f in kp.points)
        out += [
            f"**{t['keypoints']}**: {kp.stated}/{len(kp.points)} {t['stated']}"
            f" ({t['coverage']} {kp.coverage:.2f}; {t['precision']} {_f(kp.citation_precision)}):"
            f" {marks}",
            "",
        ]
    out += ["", "---"]
    return "\n".join(out) + "\n"


def render_report(run: RunInfo, records: Sequence[EvalRecord], lang: str = "pt") -> str:
    if lang not in LABELS:
        raise ValueError(f"report language {lang!r}: use one of {', '.join(LABELS)}")
    parts = [render_summary(run, summarize(records), lang), "---\n"]
    parts += [render_record(r, lang) for r in records]
    return "\n".join(parts)


# -- reading a report back -------------------------------------------------------------------
_SEG_FIELDS = ("corpus_id", "score", "url", "start", "end", "text")


def parse_report(text: str, lang: str = "pt") -> list[dict[str, Any]]:
    """The records of a report (or of a seed file) as dicts of their fields."""
    t = LABELS[lang]
    fields = (
        "answer",
        "references",
        "manual",
        "ar",
        "auto",
        "cot",
        "grounded",
        "context",
        "keypoints",
    )
    head = re.compile(rf"^\*\*{re.escape(t['question'])} (\d+)\*\*: (.*)$", re.M)
    starts = list(head.finditer(text))
    records = []
    for i, m in enumerate(starts):
        body = text[m.end() : starts[i + 1].start() if i + 1 < len(starts) else len(text)]
        rec: dict[str, Any] = {"number": int(m.group(1)), "question": m.group(2).strip()}
        label_re = "|".join(re.escape(t[f]) for f in fields)
        parts = re.split(rf"^\*\*({label_re})\*\*:[ ]?", body, flags=re.M)
        seg_block, rest = parts[0], parts[1:]
        rec["segments"] = _parse_segments(seg_block, t)
        by_label = {t[f]: f for f in fields}
        for label, value in zip(rest[::2], rest[1::2], strict=True):
            rec[by_label[label]] = value.split("\n---")[0].strip()
        rec["references"] = [
            line[2:].strip()
            for line in rec.get("references", "").splitlines()
            if line.startswith("- ")
        ]
        records.append(rec)
    return records


def _parse_segments(block: str, t: Mapping[str, str]) -> list[dict[str, str]]:
    segments: list[dict[str, str]] = []
    names = {t[f]: f for f in _SEG_FIELDS}
    item = re.compile(r"^- \*(.+?):\* ?(.*)$", re.M)
    for m in item.finditer(block):
        key = names.get(m.group(1))
        if key is None:
            continue
        if key == "corpus_id":
            segments.append({})
        segments[-1][key] = m.group(2).strip()
    return segments


def render_retrieval_table(
    table: Mapping[str, Mapping[str, float]],
    n_questions: int,
    overlaps: Mapping[str, Sequence[int]] | None = None,
) -> str:
    """Markdown table: one row per search mode, recall@1/5/10, MRR, nDCG@10 (over the questions
    with gold evidence) and, where questions carry a reference ranking, the top-10 overlap."""
    keys = list(RetrievalScores.KEYS) if n_questions else []
    shared = {m: list(v) for m, v in (overlaps or {}).items() if v}
    head = [*keys, "top-10 overlap"] if shared else keys
    lines = [
        f"| mode ({n_questions} questions with gold) | " + " | ".join(head) + " |",
        "|---|" + "---:|" * len(head),
    ]
    for mode, means in table.items():
        cells = [f"{means.get(k, 0.0):.3f}" for k in keys]
        if shared:
            each = shared.get(mode, [])
            cells.append(", ".join(f"{o}/10" for o in each))
        lines.append(f"| {mode} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
