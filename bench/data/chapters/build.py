"""Rebuild (or check) the chapter benchmark: lectures with human chapter markers.

    python bench/data/chapters/build.py [--py4e CLONE] [--btc CLONE] [--check]

Two sources, both read at the commits pinned below (a clone or a bare mirror of each repository
works; without one, the repository is cloned into a temporary folder):

* https://github.com/csev/py4e (Charles R. Severance, "Python for Everybody", CC BY 4.0):
  caption files of the lecture videos (`srt/en/`, `srt/pt-BR/`, and `whisper/srt/` for two videos
  whose re-recorded versions have no human caption file), and the YouTube playlist dump
  `youtube/youtube-playlist.jsonl`, whose video descriptions carry the author's chapter lines
  ("0:00 Introduction", "0:26 Computers want to be helpful...", ...).
* https://github.com/bitcointranscripts/bitcointranscripts (MIT): reviewed Markdown transcripts
  whose paragraphs start with "Speaker: hh:mm:ss" and whose "## " headings are the chapters.

Writes, next to this file:

* `captions/<id>.srt` - py4e caption files, byte for byte as in the source;
* `sources/<id>.md` - bitcointranscripts files, byte for byte as in the source (they contain the
  chapter headings, so they are the gold, not the input);
* `captions/<id>.json` - the timed paragraphs of each `sources/<id>.md` with the headings (and the
  few "### " sub-headings) removed:
  `{"segments": [{"start", "end", "speaker", "text"}]}`; `end` is the next paragraph's start, and
  for the last paragraph its start plus its word count / 2.5 words a second (an estimate);
* `lectures.jsonl` - one line per lecture (see README.md).

`--check` rebuilds into memory and compares with the files on disk instead of writing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent

PY4E_REPO = "https://github.com/csev/py4e"
PY4E_COMMIT = "da1c12157d84905be7607544118b95040ac57429"
PY4E_LICENCE = "CC BY 4.0"
PY4E_PLAYLIST = "youtube/youtube-playlist.jsonl"

BTC_REPO = "https://github.com/bitcointranscripts/bitcointranscripts"
BTC_COMMIT = "52ccbbe25d18a1db9403526a8b8b3b0be9ff6959"
BTC_LICENCE = "MIT"

WORDS_PER_SECOND = 2.5

# id, YouTube video id, caption file, language of the caption text, who wrote the captions, half
PY4E = [
    (
        "py4e-ch01-p1-introduction-en",
        "fvhNadKjE8g",
        "srt/en/PY4E - Introduction (Chapter 1 Part 1) - fvhNadKjE8g.srt",
        "en",
        "human",
        "tune",
    ),
    (
        "py4e-ch01-p1-introduction-ptbr",
        "fvhNadKjE8g",
        "srt/pt-BR/PY4E - Introduction (Chapter 1 Part 1) - fvhNadKjE8g.srt",
        "pt-BR",
        "human translation of the English captions",
        "tune",
    ),
    (
        "py4e-ch01-p4-introduction-en",
        "hBkDRKBJj9k",
        "whisper/srt/01-Intro/01-Intro-D.srt",
        "en",
        "machine (Whisper)",
        "held-out",
    ),
    (
        "py4e-ch06-p1-strings-en",
        "dr98iM4app8",
        "srt/en/PY4E - Strings (Chapter 6 Part 1) - dr98iM4app8.srt",
        "en",
        "human",
        "tune",
    ),
    (
        "py4e-ch09-p2-dictionaries-en",
        "LRSIuH94XM4",
        "srt/en/PY4E - Dictionaries (Chapter 9 Part 2) - LRSIuH94XM4.srt",
        "en",
        "human",
        "held-out",
    ),
    (
        "py4e-ch10-p2-tuples-en",
        "TkU_PmtVhQo",
        "whisper/srt/10-Tuples/10-Tuples-B.srt",
        "en",
        "machine (Whisper)",
        "tune",
    ),
    (
        "py4e-ch11-p1-regex-en",
        "ovZsvN67Glc",
        "srt/en/PY4E - Regular Expressions (Chapter 11 Part 1) - ovZsvN67Glc.srt",
        "en",
        "human",
        "held-out",
    ),
]

# path in bitcointranscripts, kind, where the headings come from, half
_REVIEW = "added by the human reviewer of the transcript"
_NOTES = (
    "the episode's published show notes (timestamped topic list), revised by the human reviewer"
)
BTC = [
    (
        "adopting-bitcoin/2022/how-to-get-started-contributing-sustainably-to-bitcoin-core.md",
        "conference interview",
        _REVIEW,
        "tune",
    ),
    (
        "bitcoin-explained/aaron-and-sjors-discuss-what-s-new-in-bitcoin-core-v30.md",
        "podcast",
        _REVIEW,
        "held-out",
    ),
    (
        "bitcoin-explained/bitcoin-core-26-0-and-f2pool-s-ofac-compliant-mining-policy.md",
        "podcast",
        _REVIEW,
        "tune",
    ),
    ("bitcoin-explained/hashcash-and-bit-gold.md", "podcast", _REVIEW, "held-out"),
    ("bitcoin-explained/ocean-tides.md", "podcast", _REVIEW, "tune"),
    ("bitcoin-explained/replace-by-fee-rbf.md", "podcast", _REVIEW, "held-out"),
    ("bitcoin-explained/the-great-consensus-cleanup-revival.md", "podcast", _REVIEW, "tune"),
    ("bitcoin-magazine/the-politics-of-bitcoin-development.md", "interview", _REVIEW, "held-out"),
    (
        "bitcoinplusplus/2025-berlin/scaling-lightning-panel-lightning++-berlin-2025.md",
        "conference panel",
        _REVIEW,
        "tune",
    ),
    ("chaincode-podcast/address-relay.md", "podcast", _NOTES, "held-out"),
    ("chaincode-podcast/chaincode-decoded-blockchain.md", "podcast", _NOTES, "tune"),
    ("chaincode-podcast/chaincode-decoded-mempool.md", "podcast", _NOTES, "held-out"),
    ("chaincode-podcast/channel-jamming-on-the-lightning-network.md", "podcast", _NOTES, "tune"),
    ("chaincode-podcast/lightning-privacy.md", "podcast", _NOTES, "held-out"),
    ("chaincode-podcast/package-relay.md", "podcast", _NOTES, "tune"),
    ("chaincode-podcast/privacy-and-robustness-in-lightning.md", "podcast", _NOTES, "held-out"),
    ("chaincode-podcast/schnorr-musig-frost-and-more.md", "podcast", _NOTES, "tune"),
    (
        "chaincode-podcast/sighash-anyprevout-ephemeral-anchors-and-ln-symmetry-eltoo.md",
        "podcast",
        _NOTES,
        "held-out",
    ),
    ("chaincode-podcast/simple-taproot-channels.md", "podcast", _NOTES, "tune"),
    ("chaincode-podcast/the-bitcoin-development-kit-bdk.md", "podcast", _NOTES, "held-out"),
    ("chaincode-podcast/the-p2p-network.md", "podcast", _NOTES, "tune"),
    ("chaincode-podcast/watchtowers-lightning-privacy.md", "podcast", _NOTES, "held-out"),
    ("learning-bitcoin-and-design/covenants-part-2.md", "study session", _REVIEW, "tune"),
    ("the-bitcoin-development-podcast/code-review-and-bip324.md", "podcast", _NOTES, "held-out"),
    (
        "the-bitcoin-development-podcast/discussing-pre-25-0-bitcoin-core-vulnerability-disclosures.md",
        "podcast",
        _NOTES,
        "tune",
    ),
    ("wasabi-research-club/coinshuffle.md", "research-club discussion", _REVIEW, "held-out"),
]

SERIES = {
    "adopting-bitcoin": "adopting",
    "bitcoin-explained": "explained",
    "bitcoin-magazine": "magazine",
    "bitcoinplusplus": "btcpp",
    "chaincode-podcast": "chaincode",
    "learning-bitcoin-and-design": "lbd",
    "the-bitcoin-development-podcast": "devpod",
    "wasabi-research-club": "wasabi",
}


def git_show(repo: Path, commit: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(repo), "show", f"{commit}:{path}"], check=True, capture_output=True
    ).stdout


def blob_url(repo: str, commit: str, path: str) -> str:
    return f"{repo}/blob/{commit}/{urllib.parse.quote(path)}"


def hms(text: str) -> float:
    seconds = 0.0
    for part in text.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


# ---------------------------------------------------------------- py4e

CHAPTER_LINE = re.compile(r"^\s*(\d{1,2}:\d{2}(?::\d{2})?)\s+(\S.*?)\s*$")


def description_chapters(description: str) -> list[dict]:
    chapters = []
    for line in description.splitlines():
        match = CHAPTER_LINE.match(line)
        if match:
            chapters.append({"start_s": hms(match.group(1)), "title": match.group(2)})
    return chapters


def srt_last_end(data: bytes) -> float:
    ends = re.findall(rb"--> (\d+):(\d+):(\d+)[,.](\d+)", data)
    h, m, s, ms = ends[-1]
    return int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 10 ** len(ms)


def py4e_lectures(repo: Path) -> tuple[list[dict], dict[str, bytes]]:
    playlist = {}
    for line in git_show(repo, PY4E_COMMIT, PY4E_PLAYLIST).decode("utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            playlist[item["id"]] = item
    rows, files = [], {}
    for lid, video, path, language, origin, half in PY4E:
        item = playlist[video]
        data = git_show(repo, PY4E_COMMIT, path)
        name = f"captions/{lid}.srt"
        files[name] = data
        rows.append(
            {
                "id": lid,
                "title": item["title"],
                "language": language,
                "audio_language": "en",
                "kind": "lecture",
                "source_captions": blob_url(PY4E_REPO, PY4E_COMMIT, path),
                "source_chapters": blob_url(PY4E_REPO, PY4E_COMMIT, PY4E_PLAYLIST),
                "video": f"https://www.youtube.com/watch?v={video}",
                "licence": PY4E_LICENCE,
                "author": "Charles R. Severance",
                "duration_s": float(item["duration"]),
                "duration_estimated": False,
                "chapters": description_chapters(item["description"]),
                "chapters_origin": "the author's chapter lines in the YouTube video description",
                "captions_origin": origin,
                "captions_file": name,
                "captions_last_end_s": round(srt_last_end(data), 3),
                "sha256": hashlib.sha256(data).hexdigest(),
                "half": half,
            }
        )
    return rows, files


# ---------------------------------------------------------------- bitcointranscripts

TIMED = re.compile(r"^(?P<speaker>[^\n]{1,80}?): (?P<t>\d{2}:\d{2}:\d{2})\s*$")


def front_matter(text: str) -> tuple[dict, str]:
    """A small reader for the YAML front matter these files use (scalars and lists)."""
    match = re.match(r"^---\n(.*?)\n---\n", text, re.S)
    if not match:
        return {}, text
    meta: dict = {}
    key = None
    for line in match.group(1).splitlines():
        item = re.match(r"^\s+-\s+(.*)$", line)
        if item and key is not None:
            if not isinstance(meta.get(key), list):
                meta[key] = []
            meta[key].append(_scalar(item.group(1)))
            continue
        pair = re.match(r"^([A-Za-z_]+):\s*(.*)$", line)
        if pair:
            key, value = pair.group(1), pair.group(2).strip()
            if value.startswith("[") and value.endswith("]"):
                meta[key] = _inline_list(value[1:-1])
            elif value:
                meta[key] = _scalar(value)
            else:
                meta[key] = None
    return meta, text[match.end() :]


def _inline_list(inner: str) -> list[str]:
    items = []
    for single, double, bare in re.findall(r"'((?:[^']|'')*)'|\"([^\"]*)\"|([^,\s][^,]*)", inner):
        if single:
            items.append(single.replace("''", "'"))
        else:
            items.append(double or bare.strip())
    return [item for item in items if item]


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def md_segments(body: str) -> tuple[list[dict], list[dict]]:
    """Timed paragraphs (headings removed) and chapters (heading + the next paragraph's start)."""
    segments: list[dict] = []
    chapters: list[dict] = []
    pending = None
    for line in body.split("\n"):
        if line.startswith("## "):
            if pending is not None:
                raise ValueError(f"heading {pending!r} is not followed by a timed paragraph")
            pending = line[3:].strip()
            continue
        timed = TIMED.match(line)
        if timed:
            start = hms(timed.group("t"))
            segments.append(
                {"start": start, "speaker": timed.group("speaker").strip(), "lines": []}
            )
            if pending is not None:
                chapters.append({"start_s": start, "title": pending})
                pending = None
            continue
        if not line.strip():
            continue
        if re.match(r"^#{3,6} ", line):
            continue  # a sub-heading inside a chapter: neither a chapter nor speech
        if pending is not None:
            raise ValueError(f"heading {pending!r} is not followed by a timed paragraph")
        if segments:
            segments[-1]["lines"].append(line.strip())
    out = []
    for i, seg in enumerate(segments):
        text = "\n".join(seg["lines"])
        if i + 1 < len(segments):
            end = max(seg["start"], segments[i + 1]["start"])
        else:
            end = seg["start"] + max(5.0, round(len(text.split()) / WORDS_PER_SECOND))
        out.append({"start": seg["start"], "end": end, "speaker": seg["speaker"], "text": text})
    return out, chapters


def btc_id(path: str) -> str:
    series = SERIES[path.split("/", 1)[0]]
    slug = Path(path).stem
    slug = re.sub(r"[^a-z0-9]+", "-", slug.lower()).strip("-")[:60].rstrip("-")
    return f"btc-{series}-{slug}"


def btc_lectures(repo: Path) -> tuple[list[dict], dict[str, bytes]]:
    rows, files = [], {}
    for path, kind, origin, half in BTC:
        data = git_show(repo, BTC_COMMIT, path)
        meta, body = front_matter(data.decode("utf-8"))
        segments, chapters = md_segments(body)
        lid = btc_id(path)
        source_name = f"sources/{lid}.md"
        captions_name = f"captions/{lid}.json"
        captions = (
            json.dumps({"segments": segments}, ensure_ascii=False, indent=1) + "\n"
        ).encode()
        files[source_name] = data
        files[captions_name] = captions
        speakers = meta.get("speakers") or []
        if isinstance(speakers, str):
            speakers = [speakers]
        author = ", ".join(speakers) if speakers else "(speakers not named in the transcript)"
        url = blob_url(BTC_REPO, BTC_COMMIT, path)
        rows.append(
            {
                "id": lid,
                "title": meta.get("title", ""),
                "language": "en",
                "audio_language": "en",
                "kind": kind,
                "source_captions": url,
                "source_chapters": url,
                "video": meta.get("media") or "",
                "licence": BTC_LICENCE,
                "author": f"{author}; transcript: Bitcoin Transcripts ({meta.get('transcript_by', '')})",
                "duration_s": float(segments[-1]["end"]),
                "duration_estimated": True,
                "chapters": chapters,
                "chapters_origin": origin,
                "captions_origin": "machine transcript corrected by a human reviewer, "
                "one timestamp per paragraph",
                "captions_file": captions_name,
                "source_file": source_name,
                "sha256": hashlib.sha256(data).hexdigest(),
                "half": half,
            }
        )
    return rows, files


# ---------------------------------------------------------------- main


def ensure_clone(given: Path | None, url: str, tmp: Path) -> Path:
    if given is not None:
        return given
    target = tmp / Path(url).name
    subprocess.run(["git", "clone", "--quiet", "--filter=blob:none", url, str(target)], check=True)
    return target


def validate(row: dict) -> None:
    chapters = row["chapters"]
    starts = [c["start_s"] for c in chapters]
    assert len(chapters) >= 3, row["id"]
    assert starts == sorted(starts) and len(set(starts)) == len(starts), row["id"]
    assert starts[-1] < row["duration_s"], row["id"]
    assert row["duration_s"] >= 540, row["id"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--py4e", type=Path, help="a clone (or bare mirror) of csev/py4e")
    parser.add_argument(
        "--btc", type=Path, help="a clone (or bare mirror) of bitcointranscripts/bitcointranscripts"
    )
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        py4e = ensure_clone(args.py4e, PY4E_REPO, Path(tmp))
        btc = ensure_clone(args.btc, BTC_REPO, Path(tmp))
        rows_a, files_a = py4e_lectures(py4e)
        rows_b, files_b = btc_lectures(btc)
    rows = rows_a + rows_b
    for row in rows:
        validate(row)
    files = {**files_a, **files_b}
    files["lectures.jsonl"] = "".join(
        json.dumps(row, ensure_ascii=False) + "\n" for row in rows
    ).encode("utf-8")
    bad = 0
    for name, data in sorted(files.items()):
        target = HERE / name
        if args.check:
            if not target.exists() or target.read_bytes() != data:
                print(f"differs: {name}")
                bad += 1
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    if not args.check:
        print(f"{len(rows)} lectures, {len(files)} files written under {HERE}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
