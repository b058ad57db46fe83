"""Exports: Markdown (parsed back), the Anki package (opened with SQLite) and CSV (read back)."""

from __future__ import annotations

import csv
import html
import io
import json
import sqlite3
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from lecturetui.cli import cli
from lecturetui.core.answer.prompting import merge_hits
from lecturetui.core.answer.result import Answer
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.lectures import Lecture, StoredSegment
from lecturetui.core.paths import DataHome
from lecturetui.core.records import AnswerRecord, PassageRecord
from lecturetui.core.retrieval.search import Hit
from lecturetui.core.storage.history import History
from lecturetui.core.storage.store import Store
from lecturetui.core.study.bookmarks import Bookmark
from lecturetui.core.study.export import Targets, export_answer, export_bookmarks
from lecturetui.core.study.export.anki import DECK_ID, MODEL_ID, note_guid
from lecturetui.core.study.export.cards import (
    Card,
    Source,
    answer_cards,
    bookmark_cards,
    key_sentences,
)
from lecturetui.core.study.export.csvfile import csv_text, write_csv
from lecturetui.core.study.export.markdown import answer_markdown, bookmarks_markdown
from lecturetui.core.study.export.text import clean
from lecturetui.core.study.moments import Moment
from lecturetui.core.study.saved import Citation, SavedAnswer
from tests.core.study.test_bookmarks import lecture

PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def words(text: str) -> str:
    return " ".join(clean(text).split())


def inline_text(token: Token) -> str:
    """What a viewer shows of an inline token: its text, line breaks as spaces."""
    out = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return words("".join(out))


def blocks(markdown: str) -> list[tuple[str, str]]:
    """(block kind, its text) in document order: h1…h6, p, quote (a quoted paragraph)."""
    tokens = PARSER.parse(markdown)
    out, depth, kind = [], 0, ""
    for token in tokens:
        if token.type == "blockquote_open":
            depth += 1
        elif token.type == "blockquote_close":
            depth -= 1
        elif token.type in ("heading_open", "paragraph_open"):
            kind = token.tag if token.type == "heading_open" else ("quote" if depth else "p")
        elif token.type == "inline":
            out.append((kind, inline_text(token)))
        elif token.type not in ("heading_close", "paragraph_close"):
            raise AssertionError(f"unexpected Markdown block {token.type}: {markdown!r}")
    return out


def moment(
    title: str = "Aula D", course: str | None = "Redes neurais", start: float = 85.0
) -> Moment:
    return Moment(
        title.casefold().replace(" ", "-"),
        title,
        course,
        start,
        start + 120.0,
        f"https://youtu.be/abc?t={int(start)}",
    )


def bookmark(note: str = "", quote: str = "o tensor", **kwargs: object) -> Bookmark:
    return Bookmark(1, moment(**kwargs), quote, note, 7, False)  # type: ignore[arg-type]


# -- Markdown ---------------------------------------------------------------------------------
def test_bookmarks_markdown_has_a_heading_per_course_and_lecture_and_links_at_the_time() -> None:
    marks = [
        bookmark("GPUs *multiplicam* matrizes", "a GPU multiplica [1] matrizes"),
        Bookmark(2, moment(start=3725.0), "depois # salvamos", "", 8, True),
        Bookmark(3, moment("Aula E", start=10.0), "outra", "- não é lista", None, False),
    ]
    text = bookmarks_markdown(marks)
    assert "[00:01:25–00:03:25](https://youtu.be/abc?t=85)" in text
    assert "[01:02:05–01:04:05](https://youtu.be/abc?t=3725)" in text
    assert blocks(text) == [
        ("h1", "Bookmarks"),
        ("h2", "Redes neurais"),
        ("h3", "Aula D"),
        ("p", "00:01:25–00:03:25"),
        ("p", "GPUs *multiplicam* matrizes"),
        ("quote", "a GPU multiplica [1] matrizes"),
        ("p", "01:02:05–01:04:05 (lecture no longer in the library)"),
        ("quote", "depois # salvamos"),
        ("h3", "Aula E"),
        ("p", "00:00:10–00:02:10"),
        ("p", "- não é lista"),
        ("quote", "outra"),
    ]


def saved_answer() -> SavedAnswer:
    """An answer as `ask` keeps it in the history (Answer.to_json), read back."""
    lec = Lecture("aula-d", "Aula D", "Redes neurais", "pt", None, "https://youtu.be/abc",
                  "jsonl", 3600.0, "h")  # fmt: skip
    other = Lecture("aula-f", "Aula F | *2*", None, "pt", None, None, "jsonl", 3600.0, "h2")
    hits = [
        Hit(1, 0.9, StoredSegment(1, "aula-d", 0, 110.0, 240.0, "recursos na GPU"), lec,
            "https://youtu.be/abc?t=110"),
        Hit(2, 0.8, StoredSegment(9, "aula-f", 3, 1088.0, 1212.0, "um arquivo csv"), other, None),
        Hit(3, 0.7, StoredSegment(5, "aula-d", 9, 3000.0, 3100.0, "não citado"), lec, None),
    ]  # fmt: skip
    passages = merge_hits(hits)
    text = "O TensorFlow usa a GPU [1].\nO modelo fica num arquivo [2] e [1, 2]; [3] não é citado."
    answer = Answer("O que o TensorFlow prioriza?", text, passages, hits, cited=[1, 2])
    return SavedAnswer.of(answer.record(), answer.record().answer, 12, "2026-11-23")


def test_answer_markdown_resolves_citation_marks_to_footnotes() -> None:
    text = answer_markdown(saved_answer())
    assert "O TensorFlow usa a GPU [^1]." in text
    assert "arquivo [^2] e [^1][^2]; \\[3\\] não é citado." in text
    assert "[^1]: Aula D, [00:01:50–00:04:00](https://youtu.be/abc?t=110)" in text
    assert "[^2]: Aula F \\| \\*2\\*, 00:18:08–00:20:12" in text  # no video: no link
    parsed = blocks(text)
    assert parsed[0] == ("h1", "O que o TensorFlow prioriza?")
    assert ("h2", "Citations") in parsed
    assert ("quote", "recursos na GPU") in parsed and ("quote", "um arquivo csv") in parsed
    assert ("p", "[1] Aula D, 00:01:50–00:04:00") in parsed
    assert ("p", "[2] Aula F | *2*, 00:18:08–00:20:12") in parsed


# -- cards ------------------------------------------------------------------------------------
def test_key_sentences_are_whole_and_prefer_the_note_s_words() -> None:
    quote = (
        "fossem tudo, esta aula seria perda de tempo. Hoje vamos falar de redes. A GPU "
        "multiplica matrizes muito depressa, se d(x²) = 2x dx. O café acabou. Salvamos o "
        "modelo em hdf5. Até a próxima"
    )
    assert key_sentences(quote, "por que a GPU multiplica matrizes?") == (
        "… A GPU multiplica matrizes muito depressa, se d(x²) = 2x dx. …"
    )
    # the pieces cut at either end are no sentences: never on a card
    first = key_sentences(quote)
    assert first.startswith("… Hoje vamos falar de redes.") and first.endswith(" …")
    assert "fossem tudo" not in first and "Até a próxima" not in first
    assert key_sentences("") == ""
    # a sentence that leans on the one before brings it along
    leaning = "Antes disso. A derivada de x² é 2x. Isso vale para todo x real. Fim da aula"
    assert key_sentences(leaning, "vale para todo real") == (
        "… A derivada de x² é 2x. Isso vale para todo x real. …"
    )
    # captions without punctuation: their pieces
    assert key_sentences("a gente multiplica as matrizes na gpu") == (
        "a gente multiplica as matrizes na gpu"
    )


def test_cards_from_bookmarks_and_answers() -> None:
    cards = bookmark_cards(
        [bookmark("o que é um tensor?"), bookmark(""), bookmark("o que é um tensor?")]
    )
    assert [c.front for c in cards] == ["o que é um tensor?", "Aula D, 00:01:25–00:03:25"]
    assert cards[0].back == "o tensor" and cards[0].first == moment()
    (card,) = answer_cards(saved_answer())
    assert card.front == "O que o TensorFlow prioriza?" and card.back.startswith("O TensorFlow")
    assert [s.label for s in card.sources] == ["[1]", "[2]"]
    assert answer_cards(SavedAnswer("pergunta", "", ())) == []


# -- Anki and CSV -----------------------------------------------------------------------------
def anki_notes(path: Path) -> list[tuple[str, list[str]]]:
    """(GUID, fields) of the package's notes, read with SQLite; checks the note type and deck."""
    with zipfile.ZipFile(path) as package:
        data = package.read("collection.anki2")
    db_path = path.with_suffix(".anki2")
    db_path.write_bytes(data)
    db = sqlite3.connect(db_path)
    try:
        models = json.loads(db.execute("SELECT models FROM col").fetchone()[0])
        decks = json.loads(db.execute("SELECT decks FROM col").fetchone()[0])
        assert str(MODEL_ID) in models and str(DECK_ID) in decks
        rows = db.execute("SELECT guid, flds, mid FROM notes ORDER BY id").fetchall()
        assert {int(r[2]) for r in rows} <= {MODEL_ID}
        return [(str(r[0]), str(r[1]).split("\x1f")) for r in rows]
    finally:
        db.close()


def unhtml(field: str) -> str:
    return html.unescape(field.replace("<br>", "\n"))


def test_anki_package_holds_the_cards_and_a_second_export_has_the_same_guids(
    tmp_path: Path,
) -> None:
    marks = [bookmark("o que é <b>um</b> tensor & \"por quê\"?", "o tensor é um vetor"),
             bookmark("", "a GPU", start=10.0)]  # fmt: skip
    first, second = tmp_path / "a.apkg", tmp_path / "b.apkg"
    assert export_bookmarks(marks, Targets(anki=first))[0].count == 2
    export_bookmarks(list(reversed(marks)), Targets(anki=second))
    notes = anki_notes(first)
    assert sorted(g for g, _ in notes) == sorted(g for g, _ in anki_notes(second))
    fields = dict(notes)
    card = bookmark_cards(marks)[0]
    front, back, source = fields[note_guid(card)]
    assert front == "o que é &lt;b&gt;um&lt;/b&gt; tensor &amp; &quot;por quê&quot;?"
    assert unhtml(front) == card.front and unhtml(back) == "o tensor é um vetor"
    assert source == 'Aula D · <a href="https://youtu.be/abc?t=85">00:01:25–00:03:25</a>'


def test_csv_reads_back_with_the_csv_module(tmp_path: Path) -> None:
    path = tmp_path / "cards.csv"
    cards = [*bookmark_cards([bookmark('nota, com "aspas"\ne linha', "x")]),
             *answer_cards(saved_answer())]  # fmt: skip
    assert write_csv(cards, path) == 2
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 with a byte-order mark
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    assert rows[0] == ["front", "back", "lecture", "start", "link"]
    assert rows[1] == ['nota, com "aspas"\ne linha', "x", "Aula D", "00:01:25",
                       "https://youtu.be/abc?t=85"]  # fmt: skip
    front, back, lec, start, link = rows[2]
    assert front == "O que o TensorFlow prioriza?" and lec == "Aula D" and start == "00:01:50"
    assert link == "https://youtu.be/abc?t=110"
    assert back.endswith("[1] Aula D, 00:01:50–00:04:00\n[2] Aula F | *2*, 00:18:08–00:20:12")


# -- odd text -----------------------------------------------------------------------------------
# Markdown's, Obsidian's, HTML's and CSV's special characters, line breaks of every kind,
# control characters, and non-Latin scripts, among any other characters
PIECES = st.characters(codec="utf-8") | st.sampled_from(
    [*"#*_[]()<>`|~=$%^&!\\>-+.:\"',;\n\r\t\u2028\x00\x1f\x85", "1. ", "- ", "```", "    ",
     "==", "%%", "[[x]]", "[^1]", "<b>", "&amp;", "مرحبا", "你好", "Привет", "😀"]
)  # fmt: skip
ODD = st.lists(PIECES, max_size=30).map("".join)
LONG = st.integers(1, 4000).map(lambda n: "palavra " * n)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(title=ODD, course=ODD, note=ODD, quote=ODD | LONG, question=ODD)
def test_odd_text_keeps_every_format_whole(
    tmp_path: Path, title: str, course: str, note: str, quote: str, question: str
) -> None:
    mark = Bookmark(1, moment(title, course or None), quote, note, 3, False, 9, question)
    parsed = blocks(bookmarks_markdown([mark]))
    kinds = [k for k, _ in parsed]
    levels = 3 if words(course) else 2
    assert kinds[:levels] == ["h1", "h2", "h3"][:levels]
    assert sum(k.startswith("h") for k in kinds) == levels
    heading = parsed[levels - 1][1]
    assert heading == (words(title) or "…")
    body = parsed[len(kinds) - len([k for k in kinds if not k.startswith("h")]) :]
    assert body[0] == ("p", "00:01:25–00:03:25")
    assert " ".join(t for k, t in body[1:] if k == "p" and not t.startswith("From the")) == words(
        note
    )
    assert " ".join(t for k, t in body if k == "quote") == words(quote)
    if words(question):
        assert body[-1] == ("p", f"From the question: {words(question)}")

    answer = SavedAnswer(question, f"{note} [1]", (Citation(1, mark.moment, quote),))
    parsed = blocks(answer_markdown(answer))
    assert parsed[0] == ("h1", words(question) or "…")
    assert [k for k, _ in parsed].count("h2") == 1 and parsed[-1][1].startswith("[^1]: ")
    cited = parsed.index(("h2", "Citations"))
    assert " ".join(t for _, t in parsed[1:cited]) == words(f"{note} [^1]")
    assert " ".join(t for k, t in parsed if k == "quote") == words(quote)

    cards = bookmark_cards([mark])
    rows = list(csv.reader(io.StringIO(csv_text(cards), newline="")))
    assert len(rows) == 2 and rows[1][0] == cards[0].front and rows[1][2] == words(title)
    assert "\x00" not in csv_text(cards) and "\x1f" not in csv_text(cards)
    path = tmp_path / "odd.apkg"
    export_bookmarks([mark], Targets(anki=path))
    ((guid, fields),) = anki_notes(path)
    assert guid == note_guid(cards[0]) and len(fields) == 3
    assert unhtml(fields[0]) == cards[0].front and unhtml(fields[1]) == cards[0].back


# -- the command line -------------------------------------------------------------------------
def test_cli_exports_bookmarks_and_the_last_answer(home: Path, tmp_path: Path) -> None:
    with Store(DataHome.resolve().db_path) as store:
        ids = lecture(store)
        lecture(store, "intro", "Introdução", None)
        history = History(store)
        history.add(AnswerRecord("primeira?", "nada"), "nada")
        cited = PassageRecord(1, "aula-d", "Aula D", None, 85.0, 205.0,
                              text="a GPU multiplica", url="https://youtu.be/abc?t=85")  # fmt: skip
        entry = history.add(
            AnswerRecord("O que o TensorFlow prioriza?", "A GPU [1].", citations=(cited,)),
            "A GPU [1].",
        )
    assert (
        run("bookmarks", "add", str(ids[1]), "--note", "# GPU *rápida*", "--answer", str(entry))[0]
        == 0
    )
    md, apkg, table = tmp_path / "notas.md", tmp_path / "notas.apkg", tmp_path / "notas.csv"
    code, out = run("export", "--bookmarks", "--course", "Redes", "--md", str(md), "--anki",
                    str(apkg), "--csv", str(table))  # fmt: skip
    assert code == 0 and "(1 moment)" in out and "(1 card)" in out, out
    text = md.read_text(encoding="utf-8")
    assert (
        "## Redes neurais\n\n### Aula D\n\n**[00:01:25–00:03:25](https://youtu.be/abc?t=85)**"
        in text
    )
    assert (
        "\\# GPU \\*rápida\\*" in text
        and "From the question: *O que o TensorFlow prioriza?*" in text
    )
    assert [f[0] for _, f in anki_notes(apkg)] == ["# GPU *rápida*"]
    assert table.read_text(encoding="utf-8-sig").splitlines()[1].startswith("# GPU *rápida*,")

    code, out = run("export", "--answer", "last", "--md", "-")
    assert code == 0 and out.startswith("# O que o TensorFlow prioriza?\n") and "A GPU [^1]." in out
    assert "[^1]: Aula D, [00:01:25–00:03:25](https://youtu.be/abc?t=85)" in out
    code, out = run("export", "--answer", str(entry - 1), "--csv", str(table))
    assert code == 0 and "primeira?" in table.read_text(encoding="utf-8-sig")


def test_cli_export_mistakes_are_one_line(home: Path, tmp_path: Path) -> None:
    code, out = run("export", "--answer", "last", "--md", str(tmp_path / "a.md"))
    assert code == 1 and "no answer in the history" in out
    code, out = run("export", "--bookmarks", "--md", str(tmp_path / "a.md"))
    assert code == 1 and "no bookmarks" in out
    code, out = run("export", "--md", str(tmp_path / "a.md"))
    assert code == 2 and "--answer ID|last or --bookmarks" in out
    code, out = run("export", "--answer", "last")
    assert code == 2 and "where to write" in out
    code, out = run("export", "--answer", "nine", "--md", "-")
    assert code == 2 and "not an answer id" in out
    with pytest.raises(LectureTuiError, match="folder does not exist"):
        export_answer(saved_answer(), Targets(markdown=tmp_path / "no" / "a.md"))
    assert not (tmp_path / "no").exists()
    card = Card("f", "b", (Source("", moment()),))
    assert len(csv_text([card, card]).splitlines()) == 2  # the same card once
