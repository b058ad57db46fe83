"""Hostile course packs never end in a traceback, never change the library, never write
outside the data home: 26 kinds of damage (tests/core/pack/hostile.py), each drawn 9 times
(234 packs) in the default run; `pytest -m slow -s tests/core/pack/test_hostile.py` draws each
40 times with the same cases every run and prints the figures (bench/RESULTS.md)."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.ingest.pipeline import IngestOptions
from lecturetui.core.library import Library
from lecturetui.core.pack.export import export_pack
from lecturetui.core.pack.importer import import_pack
from tests.conftest import SEED_CORPUS
from tests.core.pack.hostile import KINDS, Members
from tests.core.pack.packs import fake_library, home_state, members_of

HOSTILE = settings(deadline=None, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                          HealthCheck.function_scoped_fixture])  # fmt: skip
#: where a member named to escape would land, were anything extracted
EVIL = (Path("/tmp/lt-pack-evil"), Path("/tmp/evil.txt"))


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Members:
    """A valid pack of the demo corpus, taken apart."""
    root = tmp_path_factory.mktemp("ta")
    library = fake_library(root / "home")
    library.ingest([SEED_CORPUS], IngestOptions(course="Sistemas"))
    library.sync_rerank()
    export_pack(library, root / "course.ltpack", library.lectures())
    library.close()
    return members_of((root / "course.ltpack").read_bytes())


@pytest.fixture(scope="module")
def student(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, Path]]:
    """A student's library with lectures of their own, which no hostile pack may change."""
    home = tmp_path_factory.mktemp("student") / "home"
    library = fake_library(home)
    vtt = home.parent / "own.vtt"
    vtt.write_text("WEBVTT\n\n00:00:01.000 --> 00:00:09.000\nMinha aula sobre redes e GPUs.\n")
    library.ingest([vtt], IngestOptions(course="Meu curso"))
    library.sync_rerank()
    yield library, home
    library.close()


def outside(root: Path, home: Path) -> set[Path]:
    return {p for p in root.rglob("*") if home not in p.parents and p != home}


def run_kind(kind: str, base: Members, student: tuple[Library, Path], folder: Path,
             examples: int, fixed: bool, stats: Counter[str]) -> None:  # fmt: skip
    library, home = student
    folder.mkdir(exist_ok=True)
    before, around = home_state(home), outside(home.parent.parent, home)

    @settings(HOSTILE, max_examples=examples, derandomize=fixed)
    @given(data=st.data())
    def one(data: st.DataObject) -> None:
        pack = folder / f"p{stats['cases']}.ltpack"
        pack.write_bytes(KINDS[kind](dict(base), data.draw))
        stats["cases"] += 1
        try:
            import_pack(library, pack)
        except LectureTuiError as exc:
            stats["refused"] += 1
            assert "\n" not in exc.message and exc.message.endswith("."), exc.message
        except Exception:
            stats["tracebacks"] += 1
            raise
        else:
            raise AssertionError(f"a {kind} pack was imported")
        finally:
            pack.unlink()
        assert home_state(home) == before
        assert outside(home.parent.parent, home) == around
        assert not any(p.exists() for p in EVIL)

    one()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_hostile_pack_is_refused_whole(kind: str, base: Members, tmp_path: Path,
                                         student: tuple[Library, Path]) -> None:  # fmt: skip
    stats: Counter[str] = Counter()
    run_kind(kind, base, student, tmp_path / "packs", 9, False, stats)
    assert stats["cases"] >= 9 and stats["refused"] == stats["cases"] and not stats["tracebacks"]


def test_there_are_enough_kinds() -> None:
    assert len(KINDS) >= 15 and 9 * len(KINDS) >= 200


def test_the_base_pack_is_accepted(base: Members, tmp_path: Path) -> None:
    """The damage makes the refusals: the same pack undamaged imports."""
    from tests.core.pack.packs import rebuild

    pack = tmp_path / "ok.ltpack"
    pack.write_bytes(rebuild(dict(base)))
    library = fake_library(tmp_path / "home")
    assert import_pack(library, pack).count("added") == 8
    library.close()


@pytest.mark.slow
def test_hostile_campaign(base: Members, tmp_path: Path, student: tuple[Library, Path],
                          capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    stats: Counter[str] = Counter()
    for kind in sorted(KINDS):
        run_kind(kind, base, student, tmp_path / "packs", 40, True, stats)
    assert stats["refused"] == stats["cases"] and not stats["tracebacks"]
    with capsys.disabled():
        print(
            f"\nhostile packs: {stats['cases']} of {len(KINDS)} kinds: {stats['refused']}"
            f" refused whole, library unchanged, 0 tracebacks, nothing outside the home"
        )
    shutil.rmtree(tmp_path / "packs", ignore_errors=True)
