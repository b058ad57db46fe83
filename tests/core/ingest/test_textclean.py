from __future__ import annotations

from pathlib import Path

import pytest

from lecturetui.core.errors import TranscriptError
from lecturetui.core.ingest.textclean import clean_cue_text, collapse_rolling, decode_transcript
from lecturetui.core.lectures import Cue


def test_seed_notebook_mojibake_is_repaired(fixtures: Path) -> None:
    raw = (fixtures / "notebook_mojibake_003.txt").read_bytes()
    assert "Import√¢ncia".encode() in raw  # the file really is broken
    decoded = decode_transcript(raw)
    text = decoded.text
    assert "## 🎓 **Importância da GPU no treinamento de redes neurais**" in text
    assert "Possui no máximo dezenas de CORES." in text
    assert "### **Exemplo prático**" in text
    assert "Tempo de execução:" in text
    for junk in ("√", "\uf8ff", "Ã", "ü§"):
        assert junk not in text
    assert any("mojibake" in w for w in decoded.warnings)


def test_cp1252_mojibake_is_repaired() -> None:
    broken = "Aula de programação: ações e funções".encode().decode("cp1252").encode("utf-8")
    assert decode_transcript(broken).text == "Aula de programação: ações e funções"


def test_clean_utf8_is_left_alone() -> None:
    text = "Olá — “aspas curvas”, fi ligature ﬁ, ½ e 1º lugar"
    decoded = decode_transcript(text.encode("utf-8"))
    assert decoded.text == text
    assert decoded.warnings == []


def test_utf8_bom_is_dropped() -> None:
    assert decode_transcript(b"\xef\xbb\xbfWEBVTT\n").text == "WEBVTT\n"


def test_cp1252_fallback_warns() -> None:
    decoded = decode_transcript("Atenção: exercício".encode("cp1252"))
    assert decoded.text == "Atenção: exercício"
    assert decoded.warnings == ["not valid UTF-8; read as Windows-1252"]


def test_utf16_with_bom() -> None:
    assert decode_transcript("1\nolá".encode("utf-16")).text == "1\nolá"


@pytest.mark.parametrize("blob", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", bytes(range(256)) * 4])
def test_binary_is_refused(blob: bytes) -> None:
    with pytest.raises(TranscriptError, match="binary"):
        decode_transcript(blob)


def test_markup_is_stripped() -> None:
    raw = "<v Ana><i>Olá</i> <c.yellow>turma</c><00:00:01.500> {\\an8}&amp; bem-vindos\n[Música]"
    assert clean_cue_text(raw) == "Olá turma & bem-vindos"


def test_rolling_captions_collapse() -> None:
    cues = [
        Cue(0, 2, "então a gente"),
        Cue(2, 2.01, "então a gente"),
        Cue(2.01, 4, "então a gente\nvai usar a GPU"),
        Cue(4, 4.01, "vai usar a GPU"),
        Cue(4.01, 6, "vai usar a GPU\npara treinar"),
    ]
    out = collapse_rolling(cues)
    assert [c.text for c in out] == ["então a gente", "vai usar a GPU", "para treinar"]
    assert out[0].end == 2.01 and out[-1].end == 6
