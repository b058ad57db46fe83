"""The way in, before the first question: how to add lectures to an empty library; else the
library in one line per course, the last questions asked (Enter reopens one) and questions
drawn from the lectures' own words (Enter asks one)."""

from __future__ import annotations

from itertools import groupby

from rich.text import Text
from textual import work
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from lecturetui.core.i18n import N_, _, ngettext
from lecturetui.core.study.topics import Topic
from lecturetui.core.timefmt import format_duration
from lecturetui.tui.asking import AskingScreen
from lecturetui.tui.messages import TopicsFound

RECENT_SHOWN = 4
EXAMPLES_SHOWN = 3
#: the search modes as the status line names them (the CLI's values: hybrid, dense, lexical)
MODE_NAMES = {
    "hybrid": (N_("hybrid"), N_("hybrid: meaning (E5) and words (BM25)")),
    "dense": (N_("meaning"), N_("meaning only (E5)")),
    "lexical": (N_("words"), N_("words only (BM25)")),
}


def mode_name(mode: str, long: bool = False) -> str:
    short, full = MODE_NAMES.get(mode, (mode, mode))
    return _(full if long else short)


def example_question(topic: Topic) -> str:
    """A question about a term the lectures dwell on, in the app's language (an answer comes in
    the question's language, whatever the lectures')."""
    return _("What do the lectures say about {term}?").format(term=topic.term)


def empty_library_text() -> Text:
    out = Text()
    out.append(_("Your library is empty: add lectures to ask about them.") + "\n\n", style="bold")
    steps = [
        _(
            "Press Ctrl+L, type the path of a transcript or of a folder in the field at the bottom, and"
            " press Enter (WebVTT, SRT, Whisper JSON, JSONL, timestamped text; audio and video"
            " without captions are transcribed here)."
        ),
        _("Or, in a terminal: lecturetui ingest FOLDER"),
        _(
            "Lectures online: yt-dlp --write-subs --write-auto-subs --skip-download URL downloads"
            " their captions, then lecturetui ingest adds them."
        ),
    ]
    for step in steps:
        out.append("• ", style="bold magenta")
        out.append(step + "\n")
    out.append("\n" + _("Press Ctrl+L to start."), style="bold")
    return out


def guide_text() -> Text:
    out = Text()
    out.append(_("Type a question above and press Enter.") + "\n\n", style="bold")
    out.append(
        _(
            "The segments that answer it appear on the left, each with its lecture, its"
            " start–end time and its relevance; the answer appears here: the lecturer's own"
            " words first, then an explanation citing the segments as [1], [2]."
        )
        + "\n\n"
    )
    out.append(
        _(
            "On the left (Tab goes there): a question asked before (Enter reopens it), or"
            " one drawn from your lectures (Enter asks it)."
        )
        + "\n"
    )
    out.append(_("? or F1 lists every key; Ctrl+L opens the library."), style="dim")
    return out


class Welcome(AskingScreen):
    """The main screen before its first question."""

    welcoming = True  # until a question is asked or reopened
    examples: list[str]

    def show_welcome(self, topics: list[Topic] | None = None) -> None:
        """The way in (drawn again when the library changes while it is on screen)."""
        if not self.welcoming:
            return
        library = self.ctx.services.library
        lectures = library.lectures()
        options = self.query_one("#hits", OptionList)
        options.clear_options()
        if not lectures:
            options.add_option(
                Option(
                    Text(_("No lectures yet: press Ctrl+L to add some."), style="dim"),
                    disabled=True,
                )
            )
            self.show_answer_text("")
            self.query_one("#answer", Static).update(empty_library_text())
            options.focus()  # so that `l` opens the library too rather than typing into the question
            return
        rows: list[Option] = [self._heading(_("Your library"))]
        keyed = sorted(lectures, key=lambda x: x.course or "")
        for course, group in groupby(keyed, key=lambda x: x.course or ""):
            items = list(group)
            line = Text("  ")
            line.append(course or _("(no course)"), style="bold")
            n = len(items)
            line.append("  " + ngettext("{n} lecture", "{n} lectures", n).format(n=n), style="dim")
            line.append(" · " + format_duration(sum(x.duration for x in items)), style="dim")
            rows.append(Option(line, disabled=True))
        recent = [e for e in library.history.threads() if e.entry_id == e.thread_id][:RECENT_SHOWN]
        if recent:
            rows.append(self._heading(_("Last questions (Enter reopens one)")))
            rows += [Option(Text("  " + e.question), id=f"recent:{e.entry_id}") for e in recent]
        if topics is None:
            self.find_topics()
        elif topics:
            self.examples = [example_question(t) for t in topics[:EXAMPLES_SHOWN]]
            rows.append(self._heading(_("Try asking (Enter asks)")))
            for i, (question, topic) in enumerate(zip(self.examples, topics, strict=False)):
                line = Text("  " + question)
                line.append(f"  {topic.lecture_title}", style="dim")
                rows.append(Option(line, id=f"example:{i}"))
        options.add_options(rows)
        self.show_answer_text("")
        self.query_one("#answer", Static).update(guide_text())

    @staticmethod
    def _heading(text: str) -> Option:
        return Option(Text(text, style="bold cyan"), disabled=True)

    @work(thread=True, exclusive=True, group="topics", exit_on_error=False)
    def find_topics(self) -> None:
        self.post_message(TopicsFound(self.ctx.services.library.topics(EXAMPLES_SHOWN)))

    def welcome_chosen(self, option_id: str) -> bool:
        """Enter on the way in: reopen a question asked before, or ask an example."""
        kind, _sep, key = option_id.partition(":")
        if kind == "recent":
            self.reopen(int(key))
            return True
        if kind == "example":
            question = self.examples[int(key)]
            self.query_one("#question", Input).value = question
            self.ask(question)
            return True
        return False

    def reopen(self, entry_id: int | None) -> None:  # MainScreen shows an earlier answer
        raise NotImplementedError

    def begin_question(self) -> None:
        self.welcoming = False
        super().begin_question()
