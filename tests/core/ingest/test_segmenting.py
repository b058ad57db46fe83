from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lecturetui.core.ingest.segmenting import SegmentConfig, segment_cues
from lecturetui.core.lectures import Cue
from lecturetui.core.models.tokens import TokenCounter

WORDS = ["gpu", "tensor", "retropropagação", "gradiente", "a", "de", "multiplicação", "núcleo"]


@st.composite
def lectures(draw: st.DrawFn) -> list[Cue]:
    """Time-ordered cues with unique marker words (w0, w1, ...) so each cue can be traced."""
    n = draw(st.integers(1, 80))
    t = draw(st.floats(0, 30))
    cues = []
    for i in range(n):
        gap = draw(st.floats(0, 8))
        dur = draw(st.floats(0, 40))
        overlap_prev = draw(st.booleans())
        start = max(0.0, t - 1.0) if overlap_prev and cues else t + gap
        words = draw(st.lists(st.sampled_from(WORDS), max_size=draw(st.sampled_from([5, 30, 300]))))
        cues.append(Cue(start, start + dur, " ".join([f"w{i}", *words])))
        t = start + dur
    return sorted(cues, key=lambda c: (c.start, c.end))


configs = st.builds(
    SegmentConfig,
    window_s=st.floats(20, 300),
    overlap_s=st.floats(0, 19),
    max_tokens=st.integers(40, 600),
)


@settings(max_examples=150, deadline=None)
@given(cues=lectures(), config=configs)
def test_segment_properties(cues: list[Cue], config: SegmentConfig) -> None:
    counter = TokenCounter()
    segments = segment_cues(cues, config, counter)
    assert segments
    lecture_start = min(c.start for c in cues)
    lecture_end = max(c.end for c in cues)
    # every cue's text lands in at least one segment
    words_in_segments = {w for s in segments for w in s.text.split()}
    for cue in cues:
        assert set(cue.text.split()) <= words_in_segments
    for seg in segments:
        # never over the token budget (prefix and special tokens included)
        assert counter.total(seg.text) <= config.max_tokens
        assert seg.n_tokens == counter.total(seg.text)
        # inside the lecture, start before end
        assert lecture_start - 1e-6 <= seg.start <= seg.end <= lecture_end + 1e-6
    for prev, nxt in itertools.pairwise(segments):
        assert prev.start <= nxt.start  # ordered
        # the cues a window repeats from the previous one all start within the overlap
        repeated = set(prev.text.split()) & set(nxt.text.split())
        for cue in cues:
            if cue.text.split()[0] in repeated:
                assert cue.start >= prev.end - config.overlap_s - 1e-6


def test_defaults_match_the_seeds_two_minute_windows() -> None:
    # ~2.5 words/s of Portuguese speech in 5-second cues, 10 minutes
    cues = [Cue(i * 5.0, i * 5.0 + 5.0, " ".join(["fala"] * 12)) for i in range(120)]
    segments = segment_cues(cues)
    lengths = [s.end - s.start for s in segments[:-1]]
    steps = [b.start - a.start for a, b in itertools.pairwise(segments)]
    assert all(100 <= x <= 120 for x in lengths)
    assert all(x >= 120 - 35 - 5 for x in steps)
    for a, b in itertools.pairwise(segments):
        assert 0 < a.end - b.start <= 35


def test_token_budget_cuts_windows_short_for_fast_speech() -> None:
    cues = [Cue(float(i), float(i + 1), " ".join(["palavra"] * 10)) for i in range(120)]
    segments = segment_cues(cues, SegmentConfig(max_tokens=128))
    counter = TokenCounter()
    assert all(counter.total(s.text) <= 128 for s in segments)
    assert max(s.end - s.start for s in segments) < 120


def test_a_single_huge_cue_is_split() -> None:
    text = " ".join(f"p{i}" for i in range(3000))
    segments = segment_cues([Cue(0, 600, text)], SegmentConfig(max_tokens=200))
    assert len(segments) > 5
    assert " ".join(s.text for s in segments).split() == text.split()  # no overlap: one cue
    assert segments[0].start == 0 and segments[-1].end == pytest.approx(600)


def test_bad_config_is_refused() -> None:
    with pytest.raises(ValueError):
        SegmentConfig(window_s=30, overlap_s=40)
