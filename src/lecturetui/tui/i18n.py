"""Interface labels: Portuguese for a Portuguese library, English otherwise; the keys stay the same."""

from __future__ import annotations

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "question": "Question", "segments": "Segments", "answer": "Answer", "references": "References",
        "placeholder": "Ask about your lectures and press Enter (/ to come back here)",
        "loading": "loading models…", "ready": "ready", "retrieving": "retrieving…",
        "generating": "generating…", "stopped": "stopped", "empty": "The library is empty: press l to add transcripts.",
        "no_hits": "No segment found.", "lectures": "lectures", "segments_n": "segments", "pending": "pending",
        "similarity_note": "(the model cited nothing; citations matched by similarity)",
        "library": "Library", "history": "History", "help": "Help", "ingest": "Ingest a file or folder",
        "no_link": "This lecture has no video URL or file.", "copied": "Link copied",
        "not_covered": "No segment supports the answer closely enough to cite it.",
        "unsupported_note": "(struck out: not found in the excerpts it cites; check it against the lecture)",
        "mode": "search", "mode_hybrid": "E5 + BM25 fused", "mode_dense": "E5 meaning only",
        "mode_lexical": "BM25 words only",
        "eval_runs": "Evaluation runs (lecturetui eval QUESTIONS makes them) · Enter opens one",
        "no_runs": "No evaluation run in this library yet.", "records": "records",
        "annotated": "annotated", "label_hint": "c/p/i label it and go to the next, x clears",
        "no_answer": "(no answer)", "context": "context", "reference": "Reference",
        "evidence": "Evidence", "new_thread": "New thread: the next question stands alone",
        "ttft": "first token", "follow_up": "follow-up", "guess": "+ lecturer's guess", "on": "on", "off": "off",
    },
    "pt": {
        "question": "Pergunta", "segments": "Segmentos", "answer": "Resposta", "references": "Referências",
        "placeholder": "Pergunte sobre as aulas e tecle Enter (/ volta para cá)",
        "loading": "carregando modelos…", "ready": "pronto", "retrieving": "recuperando…",
        "generating": "gerando…", "stopped": "interrompida", "empty": "A biblioteca está vazia: tecle l para adicionar transcrições.",
        "no_hits": "Nenhum segmento encontrado.", "lectures": "aulas", "segments_n": "segmentos", "pending": "pendentes",
        "similarity_note": "(o modelo não citou; citações atribuídas por similaridade)",
        "library": "Biblioteca", "history": "Histórico", "help": "Ajuda", "ingest": "Adicionar arquivo ou pasta",
        "no_link": "Esta aula não tem URL de vídeo nem arquivo.", "copied": "Link copiado",
        "not_covered": "Nenhum segmento apoia a resposta o bastante para citá-lo.",
        "unsupported_note": "(riscado: não consta dos trechos citados; confira na aula)",
        "mode": "busca", "mode_hybrid": "E5 + BM25 combinados", "mode_dense": "só E5 (sentido)",
        "mode_lexical": "só BM25 (palavras)",
        "eval_runs": "Avaliações (lecturetui eval PERGUNTAS as cria) · Enter abre uma",
        "no_runs": "Nenhuma avaliação nesta biblioteca ainda.", "records": "registros",
        "annotated": "anotados", "label_hint": "c/p/i anota e passa ao próximo, x apaga",
        "no_answer": "(sem resposta)", "context": "contexto", "reference": "Referência",
        "evidence": "Evidência", "new_thread": "Nova conversa: a próxima pergunta é independente",
        "ttft": "1º token", "follow_up": "continuação", "guess": "+ palpite do professor", "on": "ligado", "off": "desligado",
    },
}  # fmt: skip


def labels_for(languages: list[str | None], chosen: str = "auto") -> dict[str, str]:
    """The `chosen` language's labels; auto: Portuguese when most lectures are in Portuguese,
    else English."""
    if chosen in LABELS:
        return LABELS[chosen]
    known = [lang for lang in languages if lang]
    lang = "pt" if known and sum(x == "pt" for x in known) * 2 >= len(known) else "en"
    return LABELS[lang]
