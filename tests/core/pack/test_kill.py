"""kill -9 at random moments of an import: every time a library that opens and searches, holding
either its own lectures alone or the whole pack too, and the import run again completes it, with
the same hits and scores as an import never interrupted."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lecturetui.core.ingest.pipeline import IngestOptions
from lecturetui.core.pack.export import export_pack
from lecturetui.core.pack.importer import import_pack
from tests.conftest import ROOT
from tests.core.pack.packs import fake_library, opened

WORDS = ["tensor", "gradiente", "camada", "rede", "função", "erro", "lote", "peso", "taxa", "memória", "núcleo", "GPU", "paralelo", "dados", "modelo", "aula", "kernel", "thread", "cache", "disco"]  # fmt: skip
QUESTIONS = ("gradiente da rede", "memória da GPU", "kernel thread cache")
KILLS = 10


def corpus(path: Path, lectures: int = 30, segments: int = 40) -> Path:
    rng = random.Random(7)
    with path.open("w", encoding="utf-8") as out:
        for n in range(lectures):
            for s in range(segments):
                text = " ".join(rng.choice(WORDS) for _ in range(60))
                out.write(json.dumps({"lecture": f"aula-{n}", "start": 60.0 * s,
                                      "end": 60.0 * s + 55, "text": text}) + "\n")  # fmt: skip
    return path


def child(home: Path, pack: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "tests.core.pack.kill_child", str(home),
                             str(pack)], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)  # fmt: skip


def ready(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"


def hits(home: Path) -> list[list[tuple[str, float, float]]]:
    with opened(home) as library:
        return [[(h.lecture.id, h.segment.start, h.score) for h in library.search(q).hits]
                for q in QUESTIONS]  # fmt: skip


def test_kill_9_during_an_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ta = fake_library(tmp_path / "ta")
    ta.ingest([corpus(tmp_path / "course.jsonl")], IngestOptions(course="Curso"))
    ta.sync_rerank()
    pack = tmp_path / "course.ltpack"
    export_pack(ta, pack, ta.lectures())
    pack_ids = {lec.id for lec in ta.lectures()}
    ta.close()
    base = tmp_path / "base"
    with opened(base) as own:  # a student's library with a lecture of their own
        own.ingest([ROOT / "examples" / "seed_lectures.jsonl"], IngestOptions())
        own.sync_rerank()
        mine = {lec.id for lec in own.lectures()}
    reference = tmp_path / "reference"
    shutil.copytree(base, reference)
    proc = child(reference, pack)
    ready(proc)
    t0 = time.perf_counter()
    assert proc.wait(60) == 0
    took = time.perf_counter() - t0
    expected = hits(reference)
    rng = random.Random()
    landed = []
    for run in range(KILLS):
        home = tmp_path / f"run{run}"
        shutil.copytree(base, home)
        proc = child(home, pack)
        ready(proc)
        time.sleep(rng.uniform(0, took * 0.95))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=60)
        landed.append((out.strip().splitlines() or ["started"])[-1])
        with opened(home) as library:
            assert library.store.integrity_ok()
            ids = {lec.id for lec in library.lectures()}
            assert ids in (mine, mine | pack_ids), "the library as it was, or with the pack whole"
            assert library.search(QUESTIONS[0]).hits
            import_pack(library, pack)
            assert {lec.id for lec in library.lectures()} == mine | pack_ids
        assert hits(home) == expected
        shutil.rmtree(home)
    with capsys.disabled():
        print(
            f"\nkill -9 during an import ({took:.2f} s), {KILLS} times, the last stage said:"
            f" {landed}"
        )
