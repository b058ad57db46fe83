"""The Textual app: a thin face on `lecturetui.core.library`, like the CLI."""
