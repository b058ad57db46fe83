"""Rebuild the sentence-boundary training text from train_sources.jsonl.

Each line of train_sources.jsonl names one training document: the repository,
the path and the commit it comes from, and the file name to write.  The text is
read from local git mirrors (bare or cloned) laid out as the tool that made
them does: ``<mirrors>/<owner>+<name>/repo`` (or ``<mirrors>/<owner>+<name>``).

Caption files (.srt, .vtt) become running text: cue numbers, timings, WebVTT
headers and notes and markup tags are dropped and the cue texts are joined.
Markdown (.md, .mdx) loses front matter, code blocks, tables, headings, HTML
and MDX components; link text is kept and wrapped lines are rejoined, one
paragraph a line.  Punctuation and case are left as in the source.

Usage:
    python fetch_train.py --mirrors /work/.mirror [--out /tmp/sentdata/train]
"""

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEADERS = ("WEBVTT", "NOTE", "STYLE", "REGION", "Kind:", "Language:")
TIMING = re.compile(r"^\s*(\d+:)?\d+:\d+[,.]\d+\s*-->")
TAG = re.compile(r"<[^>]*>|\{\\[^}]*\}")
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
BLOCK_START = re.compile(r"^\s*(```|~~~)")
SKIP_LINE = re.compile(r"^\s*(#|\||<|\{/\*|import |export |>\s*\[!|[-*_]{3,}\s*$)")
LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
EMPHASIS = re.compile(r"(\*\*|__|\*|`)")


def caption_text(raw: str) -> str:
    """Return the spoken text of an .srt or .vtt file as one line."""
    words: list[str] = []
    in_note = False
    for line in raw.replace("\ufeff", "").splitlines():
        s = line.strip()
        if not s:
            in_note = False
            continue
        if in_note or s.startswith(HEADERS):
            in_note = s.startswith(("NOTE", "STYLE", "REGION"))
            continue
        if s.isdigit() or TIMING.match(s):
            continue
        words.append(TAG.sub("", s).strip())
    return " ".join(w for w in " ".join(words).split()) + "\n"


def _strip_front_matter(lines: list[str]) -> list[str]:
    """Drop a leading YAML front-matter block."""
    if lines and lines[0].strip() == "---":
        end = next((i for i, x in enumerate(lines[1:], 1) if x.strip() == "---"), 0)
        return lines[end + 1 :]
    return lines


def _prose_lines(lines: list[str]) -> list[str | None]:
    """Yield prose lines; None marks a paragraph break."""
    out: list[str | None] = []
    in_code = in_tag = False
    for line in lines:
        if in_tag:
            in_tag = ">" not in line
        elif BLOCK_START.match(line):
            in_code = not in_code
        elif in_code:
            continue
        elif line.lstrip().startswith("<") and ">" not in line:
            in_tag = True
            out.append(None)
        elif not line.strip() or SKIP_LINE.match(line):
            out.append(None)
        elif LIST_MARK.match(line):
            out.extend([None, LIST_MARK.sub("", line).strip()])
        else:
            out.append(line.strip().lstrip("> ").strip())
    return out


def _clean(paragraph: str) -> str:
    """Remove links, tags and emphasis marks from one paragraph."""
    return " ".join(EMPHASIS.sub("", TAG.sub("", LINK.sub(r"\1", paragraph))).split())


def markdown_text(raw: str) -> str:
    """Return the prose of a Markdown/MDX file, one paragraph a line."""
    lines = _strip_front_matter(raw.replace("\ufeff", "").splitlines())
    paragraphs: list[str] = []
    current: list[str] = []
    for item in [*_prose_lines(lines), None]:
        if item is not None:
            current.append(item)
            continue
        text = _clean(" ".join(current))
        current = []
        if len(text.split()) >= 3 and text.count("{") + text.count("}") < 2:
            paragraphs.append(text)
    return "\n".join(paragraphs) + "\n"


def to_text(path: str, raw: str) -> str:
    """Convert one source file to running text according to its extension."""
    suffix = Path(path).suffix.lower()
    if suffix in (".srt", ".vtt"):
        return caption_text(raw)
    if suffix in (".md", ".mdx"):
        return markdown_text(raw)
    return raw if raw.endswith("\n") else raw + "\n"


def git_dir(mirrors: Path, repo: str) -> Path:
    """Find the git directory holding ``owner/name`` under the mirrors folder."""
    base = mirrors / repo.replace("/", "+")
    for cand in (base / "repo", base / ".git", base):
        if (cand / "HEAD").exists() or (cand / "objects").is_dir():
            return cand
    raise FileNotFoundError(f"no mirror of {repo} under {mirrors}")


def read_blob(gdir: Path, commit: str, path: str) -> str:
    """Read ``path`` at ``commit`` from a git directory as UTF-8 text."""
    blob = subprocess.run(
        ["git", "--git-dir", str(gdir), "show", f"{commit}:{path}"],
        check=True,
        capture_output=True,
    ).stdout
    return blob.decode("utf-8", errors="replace")


def main(argv: list[str] | None = None) -> int:
    """Write every training document listed in the sources file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path("/tmp/sentdata/train"))
    ap.add_argument("--sources", type=Path, default=HERE / "train_sources.jsonl")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    done = failed = 0
    for line in args.sources.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        try:
            gdir = git_dir(args.mirrors, row["source_repo"])
            raw = read_blob(gdir, row["commit"], row["source_path"])
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"skip {row['file']}: {exc}", file=sys.stderr)
            failed += 1
            continue
        text = to_text(row["source_path"], raw)
        (args.out / row["file"]).write_text(text, encoding="utf-8")
        done += 1
    print(f"wrote {done} files to {args.out}; {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
