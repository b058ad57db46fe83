from __future__ import annotations

from lecturetui.core.retrieval.small_units import MAX_UNITS, split_units


def test_units_are_half_overlapping_word_windows_with_offsets_into_the_text() -> None:
    text = "  ".join(f"w{i}" for i in range(100))
    units = split_units(text, width=48, stride=24)
    assert [u.text.split()[0] for u in units] == ["w0", "w24", "w48", "w72"]
    assert units[-1].text.split()[-1] == "w99"  # every word is in a unit
    for u in units:
        assert text[u.start : u.end] == u.text
        assert len(u.text.split()) <= 48 + 24


def test_short_empty_and_very_long_texts() -> None:
    assert split_units("") == []
    (only,) = split_units("uma frase curta.")
    assert (only.start, only.end) == (0, 16)
    long = " ".join("x" for _ in range(48 * MAX_UNITS))
    units = split_units(long)
    assert len(units) == MAX_UNITS
    assert units[0].start == 0 and units[-1].end == len(long)  # every word still in a unit
