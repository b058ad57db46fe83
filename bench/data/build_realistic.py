"""Prepare the realistic retrieval library: the 60 chapter lectures of Python for Everybody.

    python bench/data/build_realistic.py [--source PATH_TO_PY4E_CLONE] [--out DIR]

Source: https://github.com/csev/py4e (Charles R. Severance, "Python for Everybody"), folder
`srt/en/`, the English caption files of the course's lecture videos, at the commit pinned below.
Licence: Creative Commons Attribution 4.0 (the site's footer and materials page: "Copyright
Creative Commons Attribution 4.0 - Charles R. Severance"). The captions are not committed here:
this script copies them from a clone (`git clone https://github.com/csev/py4e`) into
`bench/data/realistic/` (git-ignored) under stable names, and writes `SOURCES.csv` there with the
source path, video and licence of each file. `py4e_lectures.csv` (committed) lists the lectures,
their ids and which half of the benchmark they belong to.

Files are copied byte for byte: their caption glitches are part of the test.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = "https://github.com/csev/py4e"
COMMIT = "da1c12157d84905be7607544118b95040ac57429"
LICENCE = "CC BY 4.0"
LIST = HERE / "py4e_lectures.csv"


def lectures() -> list[dict[str, str]]:
    with LIST.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def read_source(source: Path, rel: str) -> bytes:
    """A file of the pinned commit when `source` is a git clone that has it, else the work tree."""
    try:
        return subprocess.run(
            ["git", "-C", str(source), "show", f"{COMMIT}:{rel}"],
            check=True,
            capture_output=True,
        ).stdout
    except (subprocess.CalledProcessError, FileNotFoundError):
        return (source / rel).read_bytes()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help="a clone of csev/py4e (else cloned now)")
    parser.add_argument("--out", type=Path, default=HERE / "realistic")
    args = parser.parse_args()
    tmp: tempfile.TemporaryDirectory[str] | None = None
    source = args.source
    if source is None:
        tmp = tempfile.TemporaryDirectory()
        source = Path(tmp.name) / "py4e"
        subprocess.run(
            ["git", "clone", "--quiet", "--filter=blob:none", REPO, str(source)], check=True
        )
    out: Path = args.out
    (out / "lectures").mkdir(parents=True, exist_ok=True)
    rows = []
    for lecture in lectures():
        rel = f"srt/en/{lecture['file']}"
        data = read_source(source, rel)
        target = out / "lectures" / f"{lecture['id']}.srt"
        target.write_bytes(data)
        rows.append(
            {
                "id": lecture["id"],
                "file": target.name,
                "title": lecture["title"],
                "source": f"{REPO}/blob/{COMMIT}/{rel}",
                "video": f"https://www.youtube.com/watch?v={lecture['video']}",
                "author": "Charles R. Severance",
                "licence": LICENCE,
                "sha256": hashlib.sha256(data).hexdigest(),
            }
        )
    with (out / "SOURCES.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(
        f"{len(rows)} lectures in {out / 'lectures'} (sources and licence: {out / 'SOURCES.csv'})"
    )
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
