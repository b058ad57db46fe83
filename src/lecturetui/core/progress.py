"""What core reports while it works, one name for each kind of report: a face (cli/, tui/) passes
such a callback to show a bar or a line, and core calls it as the work goes."""

from collections.abc import Callable

#: (done, total): how many of the things being worked on are done (segments, vectors, lectures)
CountProgress = Callable[[int, int], None]
#: (done, total, note): as CountProgress, with what is being done now (a file's name at ingest,
#: a question's step in an evaluation)
NotedProgress = Callable[[int, int, str], None]
#: (step, done, total): the step under way (a model being set up, a pack's part being imported,
#: its name translated) and how far into it
StepProgress = Callable[[str, int, int], None]
#: (seconds done, seconds in all): audio being transcribed
SecondsProgress = Callable[[float, float], None]
#: a line saying what is being done now (a model being loaded, fetched or exported)
Notify = Callable[[str], None]
