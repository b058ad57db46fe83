"""The Textual app: a thin face on `lecturetui.core.service`, like the CLI."""
