"""Bookmarks and answers as Markdown, readable in any viewer and in Obsidian.

A moment is a link at its time, `[00:01:25–00:03:25](https://youtu.be/abc?t=85)`; what was said
is a `>` quote; a note is text. Every title, note, quote and answer is escaped, so a `#`, `*`,
`[`, `|`, `$`, `==` or `%%` in it (Obsidian's tags, highlights, maths and comments too) shows as
written and never changes the document's structure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from urllib.parse import quote

from lecturetui.core.citing import CITATION
from lecturetui.core.lectures import Chapter, chapter_at
from lecturetui.core.study.bookmarks import Bookmark
from lecturetui.core.study.export.text import clean, one_line
from lecturetui.core.study.moments import Moment
from lecturetui.core.study.saved import SavedAnswer

# ASCII punctuation that means something inline (CommonMark, GFM, Obsidian)
_INLINE = re.compile(r"([\\`*_{}\[\]<>#|~=$%^&!])")
_LIST_START = re.compile(r"^([-+]|\d+[.)])")
_URL_UNSAFE = re.compile(r"[\s()<>\"'`\\\[\]]")


def _inline(text: str) -> str:
    return _INLINE.sub(r"\\\1", text)


def _line(text: str) -> str:
    """An escaped line that cannot start a list or an indented code block."""
    line = text.strip()
    match = _LIST_START.match(line)  # `- x`, `+ x`, `1. x`, `1) x` would start a list
    return f"{line[: match.end() - 1]}\\{line[match.end() - 1 :]}" if match else line


def escape(text: str) -> str:
    """One line of text, shown as written by a Markdown viewer (no leading blanks)."""
    return _line(_inline(text.strip()))


def paragraphs(text: str) -> str:
    """Text of several lines: each line escaped; blank lines keep paragraphs apart."""
    lines = [escape(line) for line in clean(text).split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")


def block_quote(text: str) -> str:
    """A `>` block quote of `text`, every line of it quoted."""
    return "\n".join(f"> {line}".rstrip() for line in paragraphs(text).split("\n"))


def link(moment: Moment) -> str:
    """`[00:01:25–00:03:25](url)`, or the times alone when the lecture has no video link."""
    if not moment.url:
        return moment.span
    url = _URL_UNSAFE.sub(lambda m: quote(m.group(), safe=""), clean(moment.url))
    return f"[{moment.span}]({url})"


def heading(level: int, text: str) -> str:
    return f"{'#' * level} {escape(one_line(text)) or '…'}"


def bookmarks_markdown(
    bookmarks: Sequence[Bookmark],
    title: str = "Bookmarks",
    chapters: Mapping[str, Sequence[Chapter]] | None = None,
) -> str:
    """A heading per course (when there are courses) and per lecture, each moment a link at its
    time (with its chapter, for a lecture in `chapters`) with its note and the quote, in the
    order given (Bookmarks.all: course, lecture, time)."""
    out = [heading(1, title)]
    courses = [one_line(b.moment.course or "") for b in bookmarks]
    with_courses = any(courses)
    lecture: str | None = None
    for i, b in enumerate(bookmarks):
        m = b.moment
        if with_courses and (i == 0 or courses[i] != courses[i - 1]):
            out += ["", heading(2, courses[i] or "Other lectures")]
            lecture = None
        if m.lecture_id != lecture:
            out += ["", heading(3 if with_courses else 2, m.lecture_title)]
        lecture = m.lecture_id
        gone = " (lecture no longer in the library)" if b.orphaned else ""
        chapter = chapter_at((chapters or {}).get(m.lecture_id, ()), m.start)
        where = f" · {escape(one_line(chapter.title))}" if chapter else ""
        out += ["", f"**{link(m)}**{where}{gone}"]
        if b.note.strip():
            out += ["", paragraphs(b.note)]
        if b.quote.strip():
            out += ["", block_quote(b.quote)]
        if b.question and one_line(b.question):
            out += ["", f"From the question: *{escape(one_line(b.question))}*"]
    return "\n".join(out) + "\n"


def _answer_text(answer: SavedAnswer) -> str:
    """The answer, its [n] markers as footnote references to the citations."""
    numbers = {c.number for c in answer.citations}
    lines = []
    for line in clean(answer.text).split("\n"):
        out, pos = "", 0
        for match in CITATION.finditer(line):
            cited = [int(n) for n in re.findall(r"\d+", match.group(1))]
            if all(n in numbers for n in cited):
                out += _inline(line[pos : match.start()]) + "".join(f"[^{n}]" for n in cited)
                pos = match.end()
        lines.append(_line(out + _inline(line[pos:])))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")


def answer_markdown(answer: SavedAnswer) -> str:
    """The question as the title, the answer with footnotes at its citations, then each cited
    passage: its lecture, a link at its time, and what was said, quoted."""
    out = [heading(1, answer.question)]
    if answer.asked_at:
        out += ["", f"*Asked {escape(answer.asked_at)}*"]
    out += ["", _answer_text(answer) or "*(no answer)*"]
    if answer.stopped:
        out += ["", "*(the answer was stopped before its end)*"]
    if answer.citations:
        out += ["", heading(2, "Citations")]
        for c in answer.citations:
            title = escape(one_line(c.moment.lecture_title))
            out += ["", f"**\\[{c.number}\\] {title}**, {link(c.moment)}"]
            if c.text.strip():
                out += ["", block_quote(c.text)]
        out.append("")
        out += [
            f"[^{c.number}]: {escape(one_line(c.moment.lecture_title))}, {link(c.moment)}"
            for c in answer.citations
        ]
    return "\n".join(out) + "\n"
