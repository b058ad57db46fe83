"""The library's database: lectures, segments, history and transcriptions in SQLite,
its schema and migrations, and the rows as values."""
