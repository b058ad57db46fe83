"""The library's SQLite file: one connection per thread, the schema's migrations, transactions.

One file, WAL mode, schema versioned with `PRAGMA user_version`. `Store` (store.py) adds what
the library holds; the history and the evaluation runs keep their own tables through
`connection`.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from lecturetui.core.errors import StoreError
from lecturetui.core.i18n import _
from lecturetui.core.lexical import index_terms
from lecturetui.core.storage.schema import MIGRATIONS, SCHEMA_VERSION, split_sql

__all__ = ["Database"]


class Database:
    """The library database's connections. Use as a context manager, or call close().

    Each thread gets its own connection (opened on first use, with the same settings), so the
    app's workers never share one; WAL lets them read while another writes.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: list[tuple[threading.Thread, sqlite3.Connection]] = []
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._connect()
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self.close()
            raise StoreError(
                _("The library database {path} cannot be opened: {exc}.").format(
                    path=path, exc=exc
                ),
                hint=_("move the file away and ingest your transcripts again"),
            ) from None

    def _connect(self) -> sqlite3.Connection:
        # check_same_thread=False only so close() can close every thread's connection
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=5000")
        db.create_function("lt_terms", 2, index_terms, deterministic=True)
        self._local.db = db
        with self._lock:  # connections of threads that have ended are closed here
            for thread, old in [x for x in self._open if not x[0].is_alive()]:
                old.close()
                self._open.remove((thread, old))
            self._open.append((threading.current_thread(), db))
        return db

    @property
    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        return db if db is not None else self._connect()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            for _thread, db in self._open:
                db.close()
            self._open.clear()
        self._local = threading.local()

    def _migrate(self) -> None:
        version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreError(
                _(
                    "The library at {path} was made by a newer lecturetui (schema {version})."
                ).format(path=self.path, version=version),
                hint=_("upgrade lecturetui"),
            )
        for target in range(version + 1, SCHEMA_VERSION + 1):
            with self.transaction():
                for statement in split_sql(MIGRATIONS[target]):
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {target}")

    @property
    def connection(self) -> sqlite3.Connection:
        """This thread's connection, for the modules that keep their own tables (history,
        evaluation runs)."""
        return self._db

    @property
    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT; any exception (KeyboardInterrupt too) rolls back."""
        if self._db.in_transaction:
            yield
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def integrity_ok(self) -> bool:
        return bool(self._db.execute("PRAGMA quick_check").fetchone()[0] == "ok")
