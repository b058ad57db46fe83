"""A lecture's summary (core/summary/writing.py): the parts at once, each part's summary
checked, the gist, kept part by part; with fakes. (The questions that ask for one:
tests/core/test_requests.py.)"""

from __future__ import annotations

import threading
from pathlib import Path

from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.storage.summaries import Written
from lecturetui.core.study.parts import Part
from lecturetui.core.summary.events import GistWritten, PartsReady, PartWritten
from lecturetui.core.summary.writing import (
    borne_out,
    gist_groups,
    sentences,
    summary_events,
    write_gist,
)
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator


def _library() -> Library:
    library = Library(DataHome.resolve(), embedder=FakeEmbedder())
    library.ingest([SEED_CORPUS])
    return library


class PartsThenGist(FakeGenerator):
    """Summarises every part alike, and writes the gist's sentences it is given, one per run of
    parts (the last again when it has no more)."""

    def __init__(self, part: str, *gist: str) -> None:
        super().__init__(part)
        self.gist = list(gist)
        self.pieces = 0  # pieces of a reply taken by the summary

    def stream(self, messages, max_tokens, stop=None, temperature=None):  # type: ignore[no-untyped-def]
        if "These parts:" in messages[-1]["content"]:
            self.prompts.append(messages)
            yield self.gist.pop(0) if len(self.gist) > 1 else self.gist[0]
            return
        for piece in super().stream(messages, max_tokens, stop, temperature):
            self.pieces += 1
            yield piece


def _parts(n: int) -> list[tuple[Part, Written]]:
    """n parts of a lecture about tensors, each already summarised."""
    out = []
    for i in range(1, n + 1):
        said = f"Na parte {i} o professor fala de tensores e de GPUs."
        part = Part(i, 60.0 * (i - 1), 60.0 * i, f"tensores {i}", True, (), said, said)
        out.append((part, Written(i, part.start, f"A parte {i} trata de tensores.", ())))
    return out


def test_a_sentence_the_part_does_not_bear_out_is_struck() -> None:
    text = "O TensorFlow executa as operações na GPU quando há uma, e na CPU se não houver."
    kept, struck = borne_out(
        "A aula mostra que o TensorFlow prefere a GPU. Foram 42 núcleos no PyTorch.", text
    )
    assert kept == "A aula mostra que o TensorFlow prefere a GPU."
    assert struck == ("Foram 42 núcleos no PyTorch.",)


def test_a_name_the_lecture_says_elsewhere_holds_a_number_must_be_in_the_part() -> None:
    part = "Aqui o professor ordena a lista com sorted."
    lecture = "Na aula toda usamos Python; são 42 exemplos."
    kept, struck = borne_out("O `sorted` do Python ordena. São 42 exemplos aqui.", part, lecture)
    assert kept == "O `sorted` do Python ordena." and struck == ("São 42 exemplos aqui.",)
    assert sentences("Usa `line.startswith` e não `find`. Depois 3.5 vezes!") == [
        "Usa `line.startswith` e não `find`.",
        "Depois 3.5 vezes!",
    ]


def test_the_parts_come_first_then_each_summary_then_the_gist_and_all_is_kept(
    home: Path,
) -> None:
    library = _library()
    lecture = library.lectures()[0]
    gen = PartsThenGist("Esta parte explica o que o professor diz [1].", "A aula explica [1].")
    events = list(summary_events(library, lecture, lambda: gen, "Portuguese"))
    ready = events[0]
    assert isinstance(ready, PartsReady) and ready.parts and ready.lecture == lecture
    written = [e for e in events if isinstance(e, PartWritten)]
    assert [e.part.number for e in written] == [p.number for p in ready.parts]
    assert all(e.written.summary == "Esta parte explica o que o professor diz." for e in written)
    assert isinstance(events[-1], GistWritten) and events[-1].gist.summary
    # each part was read by the model with its words, the gist with the parts' summaries
    first_part = gen.prompts[0][-1]["content"]
    assert ready.parts[0].digest in first_part and "in Portuguese" in gen.prompts[0][0]["content"]
    groups = gist_groups(written)
    assert written[0].written.summary in gen.prompts[-len(groups)][-1]["content"]
    assert len(gen.prompts) == len(written) + len(groups)
    # asked again: read back, the model not asked
    again = FakeGenerator("nunca")
    events = list(summary_events(library, lecture, lambda: again, "Portuguese"))
    assert again.prompts == [] and isinstance(events[-1], GistWritten)

    def not_loaded() -> None:
        raise AssertionError("the model was loaded for a summary it wrote already")

    # its name known before it loads: read back without loading it
    events = list(summary_events(library, lecture, not_loaded, "Portuguese", name="fake.gguf"))
    assert isinstance(events[-1], GistWritten) and len(events) == len(written) + 2
    # in another language, or by another model, it is written again
    other = FakeGenerator("This part explains it.")
    list(summary_events(library, lecture, lambda: other, "English"))
    assert other.prompts
    library.close()


def test_stopped_between_parts_it_keeps_what_was_written(home: Path) -> None:
    library = _library()
    lecture = max(library.lectures(), key=lambda x: x.segment_count)
    stop = threading.Event()
    gen = FakeGenerator("Uma parte.")
    seen = 0
    for event in summary_events(library, lecture, lambda: gen, "Portuguese", stop):
        if isinstance(event, PartWritten):
            seen += 1
            stop.set()  # Esc after the first part
    assert seen == 1
    again = FakeGenerator("Outra parte.")
    parts = list(summary_events(library, lecture, lambda: again, "Portuguese"))
    written = [e.written.summary for e in parts if isinstance(e, PartWritten)]
    assert written[0] == "Uma parte."  # the part written before the stop, read back
    library.close()


def test_without_a_model_there_are_the_parts_alone(home: Path) -> None:
    library = _library()
    events = list(summary_events(library, library.lectures()[0], lambda: None, "Portuguese"))
    assert len(events) == 1 and isinstance(events[0], PartsReady)
    library.close()


def test_the_gist_says_one_sentence_on_each_run_of_parts_citing_them() -> None:
    assert [[p.number for p, _ in g] for g in gist_groups(_parts(5))] == [[1, 2], [3], [4, 5]]
    assert [[p.number for p, _ in g] for g in gist_groups(_parts(2))] == [[1], [2]]
    assert gist_groups([]) == []
    lecture = _library().lectures()[0]
    gen = PartsThenGist("", "A aula começa pelos tensores.", "Depois vêm as GPUs [7].",
                        "Foram 4242 núcleos no Kubernetes.")  # fmt: skip
    gist = write_gist(gen, lecture, _parts(5), "Portuguese", threading.Event())
    # cited by the parts of its run (a citation the model made up dropped); the sentence whose
    # facts its parts do not hold is struck
    assert gist.summary == "A aula começa pelos tensores [1][2]. Depois vêm as GPUs [3]."
    assert gist.struck == ("Foram 4242 núcleos no Kubernetes.",)
    assert "A parte 4 trata de tensores." in gen.prompts[-1][-1]["content"]


def test_a_gist_sentence_copying_a_part_s_summary_is_left_out() -> None:
    lecture = _library().lectures()[0]
    gen = PartsThenGist("", "A parte 1 trata de tensores.", "A aula trata de tensores em GPUs.")
    gist = write_gist(gen, lecture, _parts(2), "Portuguese", threading.Event())
    assert gist.summary == "A aula trata de tensores em GPUs [2]." and gist.struck == ()


def test_a_part_keeps_two_sentences_and_its_reply_stops_there(home: Path) -> None:
    library = _library()
    lecture = library.lectures()[0]
    part = "A parte apresenta o assunto. Depois mostra um exemplo. E ainda conclui algo longo."
    gen = PartsThenGist(part, "A aula inteira trata do assunto.")
    events = list(summary_events(library, lecture, lambda: gen, "Portuguese"))
    written = [e.written for e in events if isinstance(e, PartWritten)]
    assert written[0].summary == "A parte apresenta o assunto. Depois mostra um exemplo."
    # the third sentence was never written: the reply stops at the end of the second
    words = 10  # "A parte apresenta o assunto. Depois mostra um exemplo. E"
    assert gen.pieces == len(written) * words
    library.close()


def test_a_sentence_cut_off_by_the_token_limit_is_not_shown(home: Path) -> None:
    library = _library()
    lecture = library.lectures()[0]
    gen = PartsThenGist("A parte apresenta o assunto. E depois mostra um exemplo de", "E a aula")
    events = list(summary_events(library, lecture, lambda: gen, "Portuguese"))
    written = [e.written for e in events if isinstance(e, PartWritten)]
    assert written and all(w.summary == "A parte apresenta o assunto." for w in written)
    gist = events[-1]
    assert isinstance(gist, GistWritten) and gist.gist.summary == ""
    library.close()
