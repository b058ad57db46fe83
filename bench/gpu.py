"""The GPU path, measured: E5 throughput, the device by workload, llama.cpp on CUDA.

    python bench/gpu.py SECTION... --e5 DIR --llm FILE.gguf --texts segments.jsonl \
        --lectures DIR --questions realistic_questions.jsonl [--llama-bench BIN] [--out DIR]

Sections (each prints a table and writes SECTION.json under --out):
  embed     E5 passages/s over the same 10,000 segment texts: a plain
            `SentenceTransformer.encode()` (fp32, its defaults, a fresh process) against fp16
            variants and lecturetui's pipelined path (embedding.encode_pipelined)
  workload  one query, 10 and 1,000 segments on the CPU (all cores, 2 threads) and on CUDA, cold
            (a fresh process: load, first call) and warm; the cost of moving to the GPU
  session   a session (ingest 8 lectures, then 20 questions: search + evidence) and a one-shot
            `search`, each with --device cpu, cuda and auto, wall time from process start
  llama     llama-cpp-python prompt / generation speed (pp512, pp3500, tg128) with flash
            attention on and off, against llama.cpp's own llama-bench on the same file; short
            and long prompts on the CPU against the GPU
  app       the app's status line once its models are loaded (Textual's headless pilot)
  guess     what a question costs before its search, with the answer model where `auto` puts it:
            the translation of a Portuguese question and the lecturer's guess (core/answer/guess.py),
            over the first 40 questions of --questions (median and p90 seconds)

Runs where a CUDA GPU is; the figures go to bench/RESULTS.md with the device and versions.

    python bench/gpu.py --quick [SECTION...]

`--quick` (a check the test suite runs on a CPU, no figures): every section (the default) on
tiny data, on the CPU: the small answer model, E5 from models/, one short lecture
(bench/_realistic.py's quick library), one or two questions, the session on the CPU alone (no
one-shot search), llama.cpp on one CPU thread with a 32-token prompt, all written to a temporary
folder. embed and workload need CUDA in their child processes: there their child code is only
compiled.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
#: --quick: tiny data on the CPU (see the module's docstring)
QUICK = False
SECTIONS = ("embed", "workload", "session", "llama", "app", "guess")
QUICK_SECTIONS = list(SECTIONS)


def sync() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


def texts_from(path: Path, n: int) -> list[str]:
    base = [json.loads(x)["text"] for x in path.read_text(encoding="utf-8").splitlines() if x]
    return ["passage: " + base[i % len(base)] for i in range(n)]


# -- embed --------------------------------------------------------------------------------------
EMBED_CHILD = r"""
import json, os, sys, time
sys.path.insert(0, {src!r})
import torch
from sentence_transformers import SentenceTransformer
variant, path, texts_file, n = {variant!r}, {path!r}, {texts!r}, {n}
base = [json.loads(x)["text"] for x in open(texts_file, encoding="utf-8") if x.strip()]
texts = ["passage: " + base[i % len(base)] for i in range(n)]
model = SentenceTransformer(path, device="cuda")
if variant != "plain":
    model.half()
def run(batch):
    if variant == "plain":
        return model.encode(batch)
    if variant.startswith("encode-"):
        return model.encode(batch, batch_size=int(variant.split("-")[1]), normalize_embeddings=True)
    from lecturetui.core.models.embedding import encode_pipelined
    return encode_pipelined(model, batch, 512, batch_tokens=int(variant.split("-")[1]))
run(texts[:1024]); torch.cuda.synchronize()
t = time.perf_counter(); vecs = run(texts); torch.cuda.synchronize(); dt = time.perf_counter() - t
import numpy as np
np.save({vecs_out!r}, np.asarray(vecs[:500], dtype="float32"))
print(json.dumps({{"variant": variant, "n": n, "seconds": dt, "per_s": n / dt}}))
"""


def compiled(name: str, code: str) -> dict[str, Any]:
    """--quick on a CPU: the child code of a CUDA section, compiled (not run)."""
    compile(code, name, "exec")
    print(f"| {name} | needs CUDA: its child code compiles |", flush=True)
    return {"compiled": True}


def section_embed(args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    if QUICK:
        return compiled("embed", EMBED_CHILD.format(src="", variant="plain", path="", texts="",
                                                    n=1, vecs_out=""))  # fmt: skip

    n = 10_000
    out: dict[str, Any] = {"n": n, "rows": []}
    variants = ["plain", "encode-32", "encode-128", "encode-512",
                "pipe-16384", "pipe-32768", "pipe-65536", "pipe-131072"]  # fmt: skip
    vecs: dict[str, Any] = {}
    for variant in variants:
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "v.npy"
            code = EMBED_CHILD.format(src=str(ROOT / "src"), variant=variant, path=str(args.e5),
                                      texts=str(args.texts), n=n, vecs_out=str(target))  # fmt: skip
            env = {k: v for k, v in os.environ.items() if k != "TOKENIZERS_PARALLELISM"}
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  env=env, timeout=300)  # fmt: skip
            if done.returncode != 0:
                print(variant, "failed:", done.stderr[-2000:], flush=True)
                continue
            row = json.loads(done.stdout.strip().splitlines()[-1])
            vecs[variant] = np.load(target)
        base = vecs.get("plain")
        if base is not None:
            v = vecs[variant] / np.linalg.norm(vecs[variant], axis=1, keepdims=True)
            b = base / np.linalg.norm(base, axis=1, keepdims=True)
            row["min_cos_to_plain"] = float(np.min(np.sum(v * b, axis=1)))
        out["rows"].append(row)
        print(f"| {variant} | {row['per_s']:.0f} segments/s | {row['seconds']:.2f} s |"
              f" min cos {row.get('min_cos_to_plain', 1.0):.5f} |", flush=True)  # fmt: skip
    return out


# -- workload -----------------------------------------------------------------------------------
WORK_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
sys.path.insert(0, {src!r})
import torch
if {threads}:
    torch.set_num_threads({threads})
from lecturetui.core.models.embedding import TorchEmbedder
texts = [json.loads(x)["text"] for x in open({texts!r}, encoding="utf-8") if x.strip()]
texts = (texts * 4)[:1000]
from pathlib import Path
emb = TorchEmbedder(Path({e5!r}), device={device!r})
loaded = time.perf_counter() - t0
def timed(fn):
    t = time.perf_counter(); fn()
    if torch.cuda.is_available(): torch.cuda.synchronize()
    return time.perf_counter() - t
cold_query = timed(lambda: emb.embed_query("o que é uma variável em python?"))
first_total = time.perf_counter() - t0
move = 0.0
if {move}:
    move = timed(emb.use_accelerator)
warm = {{}}
for name, fn in (("query", lambda: emb.embed_query("como funciona um laço while?")),
                 ("10 segments", lambda: emb.embed_passages(texts[:10])),
                 ("1000 segments", lambda: emb.embed_passages(texts))):
    if name != "1000 segments":
        fn()
    warm[name] = min(timed(fn) for _ in range(3 if name != "1000 segments" else 1))
print(json.dumps({{"load_s": loaded, "cold_query_s": cold_query, "start_to_first_query_s": first_total,
                  "move_s": move, "device_after": emb.device, "warm_s": warm}}))
"""


def section_workload(args: argparse.Namespace) -> dict[str, Any]:
    if QUICK:
        return compiled("workload", WORK_CHILD.format(src="", threads=0, texts="", e5="",
                                                      device="cpu", move=False))  # fmt: skip
    rows = []
    for label, device, threads, move in (
        ("cpu, all cores", "cpu", 0, False),
        ("cpu, 2 threads", "cpu", 2, False),
        ("cuda", "cuda", 0, False),
        ("auto, then moved", "auto", 0, True),
    ):
        code = WORK_CHILD.format(src=str(ROOT / "src"), threads=threads, texts=str(args.texts),
                                 e5=str(args.e5), device=device, move=move)  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=600
        )
        if done.returncode != 0:
            print(label, "failed:", done.stderr[-2000:], flush=True)
            continue
        row = {"label": label, **json.loads(done.stdout.strip().splitlines()[-1])}
        rows.append(row)
        w = row["warm_s"]
        print(f"| {label} | load {row['load_s']:.2f} s | first query {row['cold_query_s'] * 1000:.0f} ms"
              f" | move {row['move_s']:.2f} s | query {w['query'] * 1000:.1f} ms | 10 segs"
              f" {w['10 segments'] * 1000:.0f} ms | 1000 segs {w['1000 segments']:.2f} s |", flush=True)  # fmt: skip
    return {"rows": rows}


# -- session --------------------------------------------------------------------------------------
SESSION_CHILD = r"""
import json, os, sys, time
t0 = time.perf_counter()
sys.path.insert(0, {src!r})
from pathlib import Path
from lecturetui.core.paths import DataHome
from lecturetui.core.library import Library
from lecturetui.core.answer.found import retrieve
from lecturetui.core.conversation import Turn
from lecturetui.core.models.placement import Placement
lib = Library(DataHome.resolve(Path({home!r})), placement=Placement({device!r}))
qs = [json.loads(x) for x in open({questions!r}, encoding="utf-8") if x.strip()]
marks = {{}}
if {ingest}:
    files = sorted(Path({lectures!r}).glob("*.srt"))[:8]
    lib.ingest(files)
    marks["ingested"] = time.perf_counter() - t0
n = {n_questions}
for q in qs[:n]:
    if n == 1:
        lib.search(q["question"], 10)
    else:
        retrieve(lib, Turn(q["question"], q["question"]))
marks["done"] = time.perf_counter() - t0
marks["device_after"] = lib.embedder.device
print(json.dumps(marks))
"""


def section_session(args: argparse.Namespace) -> dict[str, Any]:
    rows = []
    for device in ("cpu",) if QUICK else ("cpu", "cuda", "auto"):
        for rep in range(1):
            with tempfile.TemporaryDirectory() as home:
                row: dict[str, Any] = {"device": device, "rep": rep}
                runs = (("session", True, 2 if QUICK else 20), ("one-shot search", False, 1))
                for name, ingest, n in runs[:1] if QUICK else runs:  # --quick: the session alone
                    code = SESSION_CHILD.format(src=str(ROOT / "src"), home=home, device=device,
                                                questions=str(args.questions), ingest=ingest,
                                                lectures=str(args.lectures), n_questions=n)  # fmt: skip
                    env = {**os.environ, "LECTURETUI_MODELS": str(args.e5.parent)}
                    t = time.perf_counter()
                    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                          text=True, timeout=600, env=env)  # fmt: skip
                    wall = time.perf_counter() - t
                    if done.returncode != 0:
                        print(device, name, "failed:", done.stderr[-2000:], flush=True)
                        if QUICK:
                            raise RuntimeError(f"{device} {name} failed")
                        continue
                    row[name] = {"wall_s": wall, **json.loads(done.stdout.strip().splitlines()[-1])}
                rows.append(row)
                print(f"| {device} #{rep} | session {row.get('session', {}).get('wall_s', 0):.2f} s"
                      f" | one-shot search {row.get('one-shot search', {}).get('wall_s', 0):.2f} s |"
                      f" {json.dumps(row)}", flush=True)  # fmt: skip
    return {"rows": rows}


# -- llama ----------------------------------------------------------------------------------------
def llama_speed(llm: Any, n_prompt: int, n_gen: int, reps: int = 3) -> tuple[float, float]:
    """(prompt tokens/s, generation tokens/s) measured as llama-bench does: a prompt of
    n_prompt tokens from a cleared cache, then n_gen single-token decodes."""
    tokens = [1000 + (i * 7919) % 30000 for i in range(n_prompt)]
    best_pp = 0.0
    for _ in range(reps):
        llm.reset()
        t = time.perf_counter()
        llm.eval(tokens)
        best_pp = max(best_pp, n_prompt / (time.perf_counter() - t))
    best_tg = 0.0
    for _ in range(min(reps, 2)):
        llm.reset()
        llm.eval(tokens[:1])
        t = time.perf_counter()
        for i in range(n_gen):
            llm.eval([2000 + i])
        best_tg = max(best_tg, n_gen / (time.perf_counter() - t))
    return best_pp, best_tg


def section_llama(args: argparse.Namespace) -> dict[str, Any]:
    import llama_cpp

    out: dict[str, Any] = {"system_info": llama_cpp.llama_print_system_info().decode(), "rows": []}
    configs = (
        ("cuda, flash attn, batch 2048", -1, True, 2048, None),
        ("cuda, no flash attn, batch 512", -1, False, 512, None),
        ("cuda, flash attn, batch 512", -1, True, 512, None),
        ("cpu, 16 threads", 0, False, 512, 16),
        ("cpu, 2 threads", 0, False, 512, 2),
    )
    if QUICK:  # one thread: llama.cpp's threads wait on each other when others share the cores
        configs = (("cpu, 1 thread", 0, False, 512, 1),)
    for label, layers, flash, batch, threads in configs:
        t = time.perf_counter()
        llm = llama_cpp.Llama(model_path=str(args.llm), n_ctx=4096, n_gpu_layers=layers,
                              flash_attn=flash, n_batch=batch, n_ubatch=batch, verbose=False,
                              n_threads=threads or 8, n_threads_batch=threads or 16)  # fmt: skip
        load_s = time.perf_counter() - t
        cpu = layers == 0
        row: dict[str, Any] = {"label": label, "load_s": load_s}
        sizes = (32,) if QUICK else (100, 512) if cpu and threads == 2 else (100, 512, 3500)
        for n in sizes:
            pp, tg = llama_speed(llm, n, 4 if QUICK else 16 if cpu else 128, 1 if cpu else 3)
            row[f"pp{n}"] = pp
            row["tg"] = tg
            row[f"prompt{n}_s"] = n / pp
        out["rows"].append(row)
        print(f"| {label} | load {load_s:.2f} s | " + " | ".join(
            f"{k} {v:.1f}" for k, v in row.items() if k.startswith(("pp", "tg", "prompt"))) + " |",
              flush=True)  # fmt: skip
        del llm
    if args.llama_bench:
        cmd = [str(args.llama_bench), "-m", str(args.llm), "-p", "512,3500", "-n", "128",
               "-ngl", "99", "-fa", "0,1", "-b", "2048", "-ub", "512,2048", "-o", "json", "-r", "3"]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=400)
        try:
            bench = json.loads(done.stdout)
        except ValueError:
            bench = []
            print("llama-bench failed:", done.stderr[-2000:])
        out["llama_bench"] = [
            {
                k: r.get(k)
                for k in (
                    "n_prompt",
                    "n_gen",
                    "flash_attn",
                    "n_batch",
                    "n_ubatch",
                    "avg_ts",
                    "stddev_ts",
                    "build_commit",
                    "gpu_info",
                )
            }
            for r in bench
        ]
        for r in out["llama_bench"]:
            print(f"| llama-bench fa={r['flash_attn']} ub={r['n_ubatch']} p={r['n_prompt']} "
                  f"n={r['n_gen']} | {r['avg_ts']:.1f} ± {r['stddev_ts']:.1f} t/s |", flush=True)  # fmt: skip
    return out


# -- app ----------------------------------------------------------------------------------------
def section_app(args: argparse.Namespace) -> dict[str, Any]:
    import asyncio

    from textual.widgets import Static

    from lecturetui.core.library import Library
    from lecturetui.core.llm import process
    from lecturetui.core.paths import DataHome
    from lecturetui.tui.app import AppServices, LectureApp

    os.environ["LECTURETUI_MODELS"] = str(args.e5.parent)
    home = tempfile.mkdtemp()
    library = Library(DataHome.resolve(Path(home)))
    if QUICK:  # two of the demo lectures (bench/_common.py), in a home removed at exit
        import atexit
        import shutil

        from _common import quick_corpus

        atexit.register(shutil.rmtree, home, ignore_errors=True)

        library.ingest([quick_corpus(Path(home))])
    else:
        library.ingest([ROOT / "examples" / "seed_lectures.jsonl"])
    # in its own process, as the app runs it; placement None: `auto`, the GPU where there is one
    app = LectureApp(AppServices(library, lambda: process.open_model(args.llm),
                                 llm_label="qwen2.5-coder-1.5b"))  # fmt: skip
    line: dict[str, str] = {}

    async def run() -> None:
        async with app.run_test(size=(200, 30)) as pilot:
            for _ in range(600):
                await pilot.pause(0.1)
                if app.models.settled:
                    break
            await pilot.pause(0.5)
            line["status"] = str(app.query_one("#status", Static).render())

    asyncio.run(run())
    print("status line:", line.get("status"), flush=True)
    return line


# -- guess --------------------------------------------------------------------------------------
def section_guess(args: argparse.Namespace) -> dict[str, Any]:
    from lecturetui.core.answer.guess import guess
    from lecturetui.core.answer.prompt_speed import prepare
    from lecturetui.core.answer.translate import translate
    from lecturetui.core.llm import process

    gen = process.open_model(args.llm)  # its own process; `auto` puts it on the GPU
    prepare(gen, None)
    lines = args.questions.read_text(encoding="utf-8").splitlines()
    questions = [json.loads(x) for x in lines if x.strip()][:40]
    if QUICK:  # one question, in Portuguese: translated, then guessed
        questions = [q for q in questions if q["lang"] != "en"][:1]
    rows: list[dict[str, Any]] = []
    try:
        for q in questions:
            t0 = time.perf_counter()
            if q["lang"] != "en":  # the benchmark's library is in English
                translate(gen, q["question"], "en")
            t1 = time.perf_counter()
            # guessed on as asked, in the library's language (core/answer/guess.py Guesser)
            said = guess(gen, q["question"], "English", ["Python for Everybody"])
            t2 = time.perf_counter()
            rows.append({"lang": q["lang"], "translate_s": t1 - t0 if q["lang"] != "en" else None,
                         "guess_s": t2 - t1, "guess_chars": len(said or "")})  # fmt: skip
    finally:
        gen.close()

    def spread(values: list[float]) -> dict[str, float]:
        values = sorted(values)
        p90 = values[min(len(values) - 1, round(0.9 * (len(values) - 1)))]
        return {"median": statistics.median(values), "p90": p90}

    out: dict[str, Any] = {"placement": gen.placement, "rows": rows,
                           "guess_s": spread([r["guess_s"] for r in rows]),
                           "translate_s": spread([r["translate_s"] for r in rows
                                                  if r["translate_s"] is not None] or [0.0])}  # fmt: skip
    print(f"| {gen.placement} | guess median {out['guess_s']['median']:.2f} s, p90 "
          f"{out['guess_s']['p90']:.2f} s | translation median {out['translate_s']['median']:.2f} s,"
          f" p90 {out['translate_s']['p90']:.2f} s |", flush=True)  # fmt: skip
    return out


def quick(args: argparse.Namespace) -> None:
    """--quick's arguments: the small model, one lecture, a temporary folder (removed at exit)."""
    import atexit
    import shutil

    global QUICK
    QUICK = True
    sys.path.insert(0, str(ROOT / "bench"))
    import _realistic

    from lecturetui.core.models.gguf import FAST_LLM, resolve_llm

    models = Path(os.environ.get("LECTURETUI_MODELS", ROOT / "models"))
    folder = Path(tempfile.mkdtemp(prefix="lt-bench-quick-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    _realistic.use_quick()
    args.sections = args.sections or QUICK_SECTIONS
    args.e5 = args.e5 or models / "multilingual-e5-small"
    args.llm = args.llm or resolve_llm(models, FAST_LLM)
    args.lectures = args.lectures or _realistic.LECTURES
    args.questions = args.questions or _realistic.QUESTIONS
    if args.texts is None:
        args.texts = folder / "segments.jsonl"
        seed = (ROOT / "examples" / "seed_lectures.jsonl").read_text(encoding="utf-8")
        args.texts.write_text("".join(seed.splitlines(keepends=True)[:4]), encoding="utf-8")
    args.out = folder


def main() -> None:
    ap = argparse.ArgumentParser()
    # no `choices`: argparse refuses an empty list against them (checked below instead)
    ap.add_argument("sections", nargs="*", help="embed workload session llama app guess")
    ap.add_argument("--e5", type=Path)
    ap.add_argument("--llm", type=Path)
    ap.add_argument("--texts", type=Path)
    ap.add_argument("--lectures", type=Path)
    ap.add_argument("--questions", type=Path)
    ap.add_argument("--llama-bench", type=Path)
    ap.add_argument("--out", type=Path, default=Path())
    ap.add_argument("--quick", action="store_true",
                    help="tiny data on the CPU, a temporary folder: a check, no figures")  # fmt: skip
    args = ap.parse_args()
    if args.quick:
        quick(args)
    if not args.sections or args.e5 is None:
        ap.error("SECTION... and --e5 are required (or --quick)")
    if set(args.sections) - set(SECTIONS):
        ap.error(f"the sections: {' '.join(SECTIONS)}")
    fns = {"embed": section_embed, "workload": section_workload, "session": section_session,
           "llama": section_llama, "app": section_app, "guess": section_guess}  # fmt: skip
    assert set(fns) == set(SECTIONS)
    failed = []
    for name in args.sections:
        print(f"\n## {name}", flush=True)
        t = time.perf_counter()
        try:
            result = fns[name](args)
        except Exception as exc:  # one section's failure must not lose the others' figures
            import traceback

            traceback.print_exc()
            result = {"error": repr(exc)}
            failed.append(name)
        result["section_s"] = time.perf_counter() - t
        (args.out / f"{name}.json").write_text(json.dumps(result, indent=1, default=str))
        print(f"({name}: {result['section_s']:.0f} s)", flush=True)
    _ = statistics  # imported for ad-hoc summaries when run interactively
    if failed and QUICK:
        sys.exit(f"failed: {' '.join(failed)}")


if __name__ == "__main__":
    main()
