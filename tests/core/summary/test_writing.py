"""A lecture's summary (core/summary/writing.py): the parts at once with the lecturer's whole
thoughts, each part named by a checked label, the subjects citing their parts, all kept part by
part; with fakes. (The questions that ask for one: tests/core/test_requests.py.)"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.storage.summaries import Written
from lecturetui.core.study.parts import Part
from lecturetui.core.summary.events import GistWritten, PartsReady, PartWritten
from lecturetui.core.summary.label import (
    LABEL_MAX_WORDS,
    LABEL_SYSTEM,
    NEGATIONS,
    Said,
    ask_label,
    label_fault,
    label_messages,
)
from lecturetui.core.summary.writing import (
    first_sentence,
    summary_events,
    write_gist,
    write_part,
)
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator, FakeLabeller


def _library() -> Library:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])
    return library


Labeller = FakeLabeller


class PartsThenGist(Labeller):
    """A Labeller for the tests of the faces, which once gave it each part's summary and the
    gist's sentences: a part is named now, and the gist asks the model nothing."""

    def __init__(self, *_replies: str) -> None:
        super().__init__()


def _part(n: int, text: str, title: str = "") -> Part:
    return Part(n, 60.0 * (n - 1), 60.0 * n, title, True, (), text, text)


def test_the_parts_come_first_then_each_label_then_the_subjects_and_all_is_kept(
    home: Path,
) -> None:
    library = _library()
    lecture = max(library.lectures(), key=lambda x: x.segment_count)
    gen = Labeller()
    events = list(summary_events(library, lecture, lambda: gen, "Portuguese"))
    ready = events[0]
    assert isinstance(ready, PartsReady) and ready.parts and ready.lecture == lecture
    written = [e for e in events if isinstance(e, PartWritten)]
    assert [e.part.number for e in written] == [p.number for p in ready.parts]
    # each label is the model's where the check keeps it (said in its part), else none: the
    # demo's parts are cut by lecturetui (no author's chapter to fall back on)
    assert all(bool(e.written.label) == (e.written.refused == ()) for e in written)
    kept = [e for e in written if e.written.refused == ()]
    assert kept and all(e.written.label.split()[0] in e.part.text for e in kept)
    assert all(e.written.label not in e.written.refused for e in written)
    gist = events[-1]
    assert isinstance(gist, GistWritten) and gist.gist.label.startswith("Assuntos: ")
    assert f"[{written[-1].part.number}]" in gist.gist.label  # every part cited
    # each part was read by the model with its words, asked in Portuguese; the gist asks nothing
    assert ready.parts[0].digest in gen.prompts[0][-1]["content"]
    assert "in Portuguese" in gen.prompts[0][0]["content"] and gen.asked == len(written)
    # asked again: read back, the model not asked
    again = FakeGenerator("nunca")
    events = list(summary_events(library, lecture, lambda: again, "Portuguese"))
    assert again.prompts == [] and isinstance(events[-1], GistWritten)

    def not_loaded() -> None:
        raise AssertionError("the model was loaded for a summary it wrote already")

    # its name known before it loads: read back without loading it
    events = list(summary_events(library, lecture, not_loaded, "Portuguese", name="fake.gguf"))
    assert isinstance(events[-1], GistWritten) and len(events) == len(written) + 2
    # in another language it is written again
    other = Labeller()
    list(summary_events(library, lecture, lambda: other, "English"))
    assert other.prompts
    library.close()


def test_a_label_the_check_refuses_or_that_repeats_its_neighbour_gives_way_to_the_key_phrase() -> (
    None
):
    lecture = _library().lectures()[0]
    part = _part(2, "O professor fala de tensores e de GPUs.", "tensores")
    stop = threading.Event()
    refused = write_part(FakeGenerator("Receitas de bolo"), lecture, part, "Portuguese", stop,
                         lambda label, p: False)  # fmt: skip
    assert refused == Written(2, 60.0, "", ("Receitas de bolo",))  # unnamed, not misnamed
    kept = write_part(FakeGenerator("Tensores em GPUs"), lecture, part, "Portuguese", stop,
                      lambda label, p: True)  # fmt: skip
    assert kept == Written(2, 60.0, "Tensores em GPUs", ())
    repeated = write_part(
        FakeGenerator("As GPUs e os tensores"),
        lecture,
        part,
        "Portuguese",
        stop,
        lambda label, p: True,
        before=["Tensores em GPUs", "Cálculo"],
    )  # any earlier, not only the last
    assert repeated.label == "" and repeated.refused == ("As GPUs e os tensores",)
    chapter = Part(2, 60.0, 120.0, "Tensores", False, (), "t", "t")  # the author's chapter
    assert write_part(FakeGenerator("Receitas de bolo"), lecture, chapter, "Portuguese", stop,
                      lambda label, p: False).label == "Tensores"  # fmt: skip


def test_a_label_is_a_name_not_a_sentence() -> None:
    stop = threading.Event()
    asked = [{"role": "system", "content": "Name it."}]
    assert ask_label(FakeGenerator("“Multiplicação de matrizes.”\nE mais"), asked, stop) == (
        "Multiplicação de matrizes"
    )
    sentence = "O professor explica que a GPU é mais rápida que a CPU"
    assert ask_label(FakeGenerator(sentence), asked, stop) == ""
    # the short words that join a name's words are not counted against it
    name = "Manipulação de pontos de referência com quadro-chaves"
    assert ask_label(FakeGenerator(name), asked, stop) == name
    # a sentence is not read to its end
    talker = FakeGenerator(" ".join(["palavra"] * 40))
    taken: list[str] = []

    class Counting:
        def stream(self, *args: object, **kwargs: object) -> Iterator[str]:
            for piece in talker.stream(*args, **kwargs):  # type: ignore[no-untyped-call]
                taken.append(piece)
                yield piece

    assert ask_label(Counting(), asked, stop) == ""  # type: ignore[arg-type]
    assert 0 < len(taken) <= LABEL_MAX_WORDS + 1


def test_a_label_holds_six_words_that_carry_meaning_at_most() -> None:
    lecture = _library().lectures()[0]
    part = _part(2, "Pontos de referência e quadros-chave no Synfig.", "quadros")
    stop = threading.Event()
    joined = "Manipulação de pontos de referência com quadros-chave"
    kept = write_part(FakeGenerator(joined), lecture, part, "Portuguese", stop,
                      lambda label, p: True)  # fmt: skip
    assert kept.label == joined
    listed = "Pontos referência quadros chave Synfig animação braços"
    long = write_part(FakeGenerator(listed), lecture, part, "Portuguese", stop,
                      lambda label, p: True)  # fmt: skip
    assert long.label == "" and long.refused == (listed,)


def test_a_label_names_its_part_only_in_the_lecturer_s_words_and_sense() -> None:
    stop = frozenset({"de", "a", "o", "é", "que", "uma", "em", "e", "do", "da", "com", "não"})
    part = (
        "Hoje vamos ver dicionários em Python. Um dicionário do Python conta palavras: cada palavra é "
        "uma chave do dicionário. A função não linear aparece aqui, a função não linear."
    )

    def fault(label: str, title: str = "Aula 9") -> str | None:
        return label_fault(label, Said(part, title, stop, NEGATIONS["pt"]))

    assert fault("Dicionário de palavras") is None
    assert fault("Redes neurais") == "unsaid"  # words no one said
    assert fault("Função linear") == "negation"  # said only as "não linear"
    assert fault("Função não linear") is None
    assert fault("Dicionários", title="Dicionários") == "title"
    assert fault("palavra palavra") == "fragment"


def test_the_subjects_run_in_order_each_citing_its_parts() -> None:
    parts = [_part(i, "texto") for i in range(1, 5)]
    labels = ["Tensores", "tensores", "GPUs", ""]
    written = [(p, Written(p.number, p.start, x, ())) for p, x in zip(parts, labels, strict=True)]
    gist = write_gist(written, "English")
    assert gist.label == "Subjects: Tensores [1][2] · GPUs [3]."
    assert first_sentence(gist.label) == "Tensores"
    assert write_gist([], "Portuguese").label == ""


def test_stopped_between_parts_it_keeps_what_was_written(home: Path) -> None:
    library = _library()
    lecture = max(library.lectures(), key=lambda x: x.segment_count)
    stop = threading.Event()
    gen = Labeller()
    seen = 0
    for event in summary_events(library, lecture, lambda: gen, "Portuguese", stop):
        if isinstance(event, PartWritten):
            seen += 1
            first = event.written.label
            stop.set()  # Esc after the first part
    assert seen == 1
    again = Labeller()
    parts = list(summary_events(library, lecture, lambda: again, "Portuguese"))
    written = [e.written.label for e in parts if isinstance(e, PartWritten)]
    assert written[0] == first and again.asked == len(written) - 1  # read back, not asked
    library.close()


def test_without_a_model_there_are_the_parts_alone(home: Path) -> None:
    library = _library()
    events = list(summary_events(library, library.lectures()[0], lambda: None, "Portuguese"))
    assert len(events) == 1 and isinstance(events[0], PartsReady)
    library.close()


def test_the_lecture_s_title_is_no_part_s_label() -> None:
    from lecturetui.core.summary.label import without_title

    assert without_title("Aula D: Black Friday", "Aula D") == "Black Friday"
    assert without_title("GPU vs CPU: Operações", "Aula D") == "GPU vs CPU: Operações"


def test_a_label_is_no_scrap_of_speech_and_a_part_is_left_unnamed_rather_than_misnamed() -> None:
    from lecturetui.core.summary.label import fragment
    from lecturetui.core.summary.writing import fallback_label

    assert fragment("partial derivative partial") and fragment("Olá, Olá mundo")
    assert fragment("equal b yk") and fragment("transpose S inverse")
    assert not fragment("Regra da cadeia") and not fragment("IA generativa")
    phrases = ("cadeia", "regra da cadeia")
    made = Part(3, 120.0, 180.0, "equal b yk", True, (), "texto", "texto", phrases)
    # a part lecturetui cut is left unnamed rather than named by a key phrase or a word run
    assert fallback_label(made, lambda label, p: True) == ""
    titled = Part(3, 120.0, 180.0, "Capítulo do autor", False, (), "t", "t", phrases)
    assert fallback_label(titled, lambda label, p: False) == "Capítulo do autor"


def test_a_label_prompt_keeps_the_lecture_among_the_instructions_and_the_part_after_them() -> None:
    # every part of a lecture shares the prompt's start (read once, then from llama.cpp's
    # cache); what differs, the part's words, comes last
    one = label_messages("Aula 3: filas", "o professor fala de filas", "Portuguese")
    two = label_messages("Aula 3: filas", "agora pilhas e recursão", "Portuguese")
    assert one[0] == two[0] and one[0]["role"] == "system"
    assert "Aula 3: filas" in one[0]["content"] and "Aula 3: filas" not in one[1]["content"]
    assert "o professor fala de filas" in one[1]["content"]
    assert one[1]["content"].endswith("(português, duas a seis palavras):")
    # two lectures in one language share the instructions: only the title differs
    other = label_messages("Aula 4: grafos", "um grafo tem vértices", "Portuguese")
    instructions = LABEL_SYSTEM.format(language="Portuguese")
    assert one[0]["content"].startswith(instructions)
    assert other[0]["content"].startswith(instructions)
