"""Bringing lectures in, gathered for the faces (the command line reaches these parts of the
core through here): an ingest's options and report (core/ingest/pipeline.py), how transcripts
are cut into segments (core/ingest/segmenting.py), and a watched folder (core/watch.py)."""

from __future__ import annotations

from lecturetui.core.ingest.pipeline import FileResult, IngestOptions, IngestReport
from lecturetui.core.ingest.segmenting import SegmentConfig
from lecturetui.core.watch import FolderWatcher, WatchEvent

__all__ = [
    "FileResult",
    "FolderWatcher",
    "IngestOptions",
    "IngestReport",
    "SegmentConfig",
    "WatchEvent",
]
