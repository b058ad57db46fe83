"""A stand-in for a sentence-transformers model folder that carries in a few MB and runs at the
real model's speed, ranking by the words a question shares with a passage.

    python bench/embed_standin.py skeleton MODEL_DIR OUT.skel [--common A]   # all but the weights
    python bench/embed_standin.py build OUT.skel MODEL_DIR                   # the weights made
    python bench/embed_standin.py --quick    # E5's stand-in made and read back (a check)

The skeleton (a tar.xz) holds the folder's files (configs, tokenizer, modules) and, for each
.safetensors file, only its header (names, dtypes, shapes, offsets). `build` writes each weights
file again with that same header and values chosen so that the model computes a bag of words:

- token embeddings random (normal, 1) plus A times one direction shared by all (`--common`,
  default 0: it raises every cosine alike; `--seed` the embeddings' seed); zero for the tokens that carry no topic (the
  prompts' tokens, the special tokens, punctuation and short Portuguese and English function
  words, `STOP`): a zero embedding stays zero through every norm, so those tokens drop out;
  position and token-type embeddings zero;
- each layer's output projections zero (BERT's attention output and FFN output dense, Gemma's
  o_proj and down_proj), so every layer adds nothing to the residual stream and the last
  hidden state is each token's normalised embedding;
- LayerNorm weights one (BERT), Gemma's RMSNorm weights zero (it scales by 1 + weight),
  biases zero, the other matrices random (normal, 0.02);
- a Dense module (EmbeddingGemma's 768 -> 3072 -> 768) an identity block ([I; 0], [I 0]).

After mean pooling and normalising, the cosine of a question and a passage is then about the
overlap of their topic tokens: a lexical ranking, not the model's. With random weights a
question is refused (relevance far under the coverage threshold); the shared direction sets the
scale instead, so that a question about the lectures is answered as with the real model
(bench/cold_gpu_stage.py chooses A for EmbeddingGemma). The skeleton records the zeroed token
ids and A in `standin.json` (the tokenizer is read here, with `tokenizers`). The shapes, dtypes, file sizes and
every matrix product are the real model's (a GPU does not skip zeros), so loading and running it
take the real time. The product's cache of the weights' sha256 is left out (the first command
that needs it makes it again). A record `.lecturetui-verified.json` in the folder (EmbeddingGemma's check
of its files by size and mtime) is rewritten for the built files. numpy only (`--quick`, a check
that the test suite runs: the skeleton of models/'s E5, the folder built from it, its files
against the original's sizes and its weights against the recipe, read back with safetensors).
"""

from __future__ import annotations

import argparse
import io
import json
import re
import tarfile
from pathlib import Path

import numpy as np

VERIFIED = ".lecturetui-verified.json"
RECIPE = "standin.json"
STOP = """a o e é de do da dos das em no na nos nas um uma uns umas para pra por com sem que se
não mais mas como ou ao aos à às eu ele ela eles elas nós você vocês isso isto esse essa este
esta aquele aquela lá aqui já também só muito então né tá tem ter ser foi era são está estão vai
vou qual quais the of and to in is it that this for on with as be are was by or an at from not
but have has what which how why when who do does""".split()  # noqa: SIM905
PUNCT = list(".,;:?!()\"'-")
HEADER_SUFFIX = ".safetensors-header"
#: the product's cache of the weights' sha256, stale for the built weights (it is made again)
SKIP = {".lecturetui-weights-hash.json"}
ZERO = re.compile(
    r"(position_embeddings\.weight|token_type_embeddings\.weight|attention\.output\.dense\.weight"
    r"|layer\.\d+\.output\.dense\.weight|o_proj\.weight|down_proj\.weight)$"
)
EMBED = re.compile(r"(word_embeddings|embed_tokens)\.weight$")


def zero_tokens(src: Path) -> list[int]:
    """Token ids that carry no topic: the prompts', the special tokens, punctuation, STOP."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(src / "tokenizer.json"))
    config = json.loads((src / "config_sentence_transformers.json").read_text())
    out = set()
    for prompt in config.get("prompts", {}).values():
        out.update(tok.encode(prompt).ids)  # with the special tokens around it
    for word in STOP + PUNCT:
        for form in {word, word.capitalize()}:
            for text in (form, " " + form):
                ids = tok.encode(text, add_special_tokens=False).ids
                if len(ids) == 1:
                    out.add(ids[0])
    return sorted(out)


def recipe_for(src: Path, common: float = 0.0, seed: int = 0) -> dict:
    return {"zero_tokens": zero_tokens(src), "common": common, "seed": seed}


def skeleton(src: Path, out: Path, common: float = 0.0, seed: int = 0, preset: int = 6) -> None:
    """`preset`: xz's (0 is several times faster, the file a little larger)."""
    recipe = json.dumps(recipe_for(src, common, seed)).encode()
    with tarfile.open(out, "w:xz", preset=preset) as tar:
        info = tarfile.TarInfo(RECIPE)
        info.size = len(recipe)
        tar.addfile(info, io.BytesIO(recipe))
        for path in sorted(src.rglob("*")):
            if not path.is_file():
                continue
            rel = path.relative_to(src).as_posix()
            if path.name in SKIP:
                continue
            if path.suffix == ".safetensors":
                with path.open("rb") as f:
                    n = int.from_bytes(f.read(8), "little")
                    head = n.to_bytes(8, "little") + f.read(n)
                info = tarfile.TarInfo(rel + HEADER_SUFFIX)
                info.size = len(head)
                tar.addfile(info, io.BytesIO(head))
            else:
                tar.add(path, arcname=rel)
    print(f"{out}: {out.stat().st_size / 2**20:.1f} MiB")


def embeddings(shape: list[int], recipe: dict) -> np.ndarray:
    """The token embeddings: their own generator (recipe's seed), so that `scores` remakes them."""
    out = np.random.default_rng(recipe.get("seed", 0)).standard_normal(shape, dtype=np.float32)
    if recipe.get("common"):
        shared = np.random.default_rng(1).standard_normal(shape[1], dtype=np.float32)
        out += np.float32(recipe["common"]) * shared
    out[np.asarray(recipe.get("zero_tokens", []), dtype=np.int64)] = 0.0
    return out


def scores(src: Path, recipe: dict, query: str, docs: list[str]) -> np.ndarray:
    """The stand-in's cosines of a query and passages (prompts as EmbeddingGemma's "query" and
    "document", else E5's), computed from its token embeddings alone: what the built model
    gives, up to its precision, since every layer adds nothing."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(src / "tokenizer.json"))
    prompts = json.loads((src / "config_sentence_transformers.json").read_text())["prompts"]
    head = src / "model.safetensors"
    with head.open("rb") as f:
        n = int.from_bytes(f.read(8), "little")
        meta = json.loads(f.read(n))
    (shape,) = (v["shape"] for k, v in meta.items() if EMBED.search(k))
    emb = embeddings(shape, recipe)

    def vector(text: str) -> np.ndarray:
        ids = tok.encode(text).ids
        e = emb[ids]
        norms = np.linalg.norm(e, axis=1, keepdims=True)
        v = (e / np.where(norms == 0, 1, norms)).sum(0)
        return v / np.linalg.norm(v)

    qp = prompts.get("query", "")
    dp = prompts.get("document") or prompts.get("passage", "")
    q = vector(qp + query)
    return np.array([vector(dp + d) @ q for d in docs])


def values(name: str, shape: list[int], rng: np.random.Generator, recipe: dict) -> np.ndarray:
    """float32 values for one tensor, by its role (see the module's docstring)."""
    if ZERO.search(name):
        return np.zeros(shape, np.float32)
    if EMBED.search(name):
        return embeddings(shape, recipe)
    if "LayerNorm.weight" in name:
        return np.ones(shape, np.float32)
    if "norm" in name or name.endswith("bias") or len(shape) < 2:
        return np.zeros(shape, np.float32)
    if name == "linear.weight":  # a Dense module: an identity block
        out = np.zeros(shape, np.float32)
        k = min(shape)
        out[np.arange(k), np.arange(k)] = 1.0
        return out
    return rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)


def encode(x: np.ndarray, dtype: str) -> bytes:
    if dtype == "F32":
        return x.astype("<f4").tobytes()
    if dtype == "F16":
        return x.astype("<f2").tobytes()
    if dtype == "BF16":  # the upper half of float32, rounded to nearest even
        bits = x.astype("<f4").view("<u4")
        bits = bits + 0x7FFF + ((bits >> 16) & 1)
        return (bits >> 16).astype("<u2").tobytes()
    raise SystemExit(f"dtype {dtype} not handled")


def build_weights(head: bytes, out: Path, rng: np.random.Generator, recipe: dict) -> None:
    meta = json.loads(head[8:])
    with out.open("wb") as f:
        f.write(head)
        pos = 0
        for name, spec in sorted(
            ((k, v) for k, v in meta.items() if k != "__metadata__"),
            key=lambda kv: kv[1]["data_offsets"][0],
        ):
            start, end = spec["data_offsets"]
            if start != pos:
                raise SystemExit(f"{out}: a gap before {name}")
            data = encode(values(name, spec["shape"], rng, recipe), spec["dtype"])
            if len(data) != end - start:
                raise SystemExit(
                    f"{out}: {name} is {len(data)} bytes, the header says {end - start}"
                )
            f.write(data)
            pos = end


def build(skel: Path, dest: Path, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(skel, "r:xz") as tar:
        recipe = json.loads(tar.extractfile(RECIPE).read())  # type: ignore[union-attr]
        for member in tar.getmembers():
            if not member.isfile() or member.name == RECIPE:
                continue
            data = tar.extractfile(member).read()  # type: ignore[union-attr]
            if member.name.endswith(HEADER_SUFFIX):
                target = dest / member.name[: -len(HEADER_SUFFIX)]
                target.parent.mkdir(parents=True, exist_ok=True)
                build_weights(data, target, rng, recipe)
            else:
                target = dest / member.name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
    record = dest / VERIFIED
    if record.is_file():
        old = json.loads(record.read_text())
        new = {}
        for rel, value in old.items():
            f = dest / rel
            if f.is_file() and isinstance(value, list):
                st = f.stat()
                new[rel] = [st.st_size, st.st_mtime_ns]
            else:
                new[rel] = value
        record.write_text(json.dumps(new))
    print(f"{dest}: built from {skel.name}")


def quick() -> None:
    """E5's stand-in, made and read back: a check of the whole path in seconds (no figures)."""
    import os
    import tempfile
    import time

    from safetensors.numpy import load_file

    root = Path(__file__).resolve().parents[1]
    models = Path(os.environ.get("LECTURETUI_MODELS", root / "models"))
    src = models / "multilingual-e5-small"
    query = "o que é uma variável em python?"
    docs = ["uma variável em python guarda um valor", "o laço while repete", "a GPU e a CPU"]
    with tempfile.TemporaryDirectory() as tmp:
        skel, dest = Path(tmp) / "e5.skel", Path(tmp) / "e5"
        t0 = time.perf_counter()
        skeleton(src, skel, preset=0)
        skel_mib = skel.stat().st_size / 2**20
        t1 = time.perf_counter()
        build(skel, dest)
        t2 = time.perf_counter()
        sizes = {
            p.relative_to(src).as_posix(): p.stat().st_size
            for p in src.rglob("*")
            if p.is_file() and p.name not in SKIP
        }
        made = {rel: (dest / rel).stat().st_size for rel in sizes if (dest / rel).is_file()}
        with tarfile.open(skel, "r:xz") as tar:
            recipe = json.loads(tar.extractfile(RECIPE).read())  # type: ignore[union-attr]
        weights = load_file(str(dest / "model.safetensors"))
        (name,) = (k for k in weights if EMBED.search(k))
        table = weights[name].astype(np.float32)
        same = bool(np.array_equal(table, embeddings(list(table.shape), recipe)))
        zeroed = sum(bool(np.all(weights[k] == 0)) for k in weights if ZERO.search(k))
        cosines = scores(dest, recipe, query, docs)
    print("| step | figure |\n|---|---|")
    print(f"| skeleton (xz preset 0) | {skel_mib:.1f} MiB, {t1 - t0:.1f} s |")
    print(f"| build | {t2 - t1:.1f} s; {sum(made.get(k) == v for k, v in sizes.items())}"
          f"/{len(sizes)} files of the original's size |")  # fmt: skip
    print(f"| token embeddings as the recipe's | {same}; {zeroed} output projections zero |")
    print(f"| cosines (`scores`) | {' '.join(f'{x:.3f}' for x in cosines)} |")
    if made != sizes or not same or not zeroed:
        raise SystemExit("the stand-in differs from the original's files or from its recipe")


def main() -> None:
    import sys

    if sys.argv[1:] == ["--quick"]:
        quick()
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("skeleton", "build"))
    ap.add_argument("src", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument(
        "--common", type=float, default=0.0, help="skeleton: the shared direction's weight"
    )
    ap.add_argument("--seed", type=int, default=0, help="skeleton: the token embeddings' seed")
    args = ap.parse_args()
    if args.what == "skeleton":
        skeleton(args.src, args.out, args.common, args.seed)
    else:
        build(args.src, args.out)


if __name__ == "__main__":
    main()
