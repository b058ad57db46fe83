"""The import a kill test interrupts: run as `python -m tests.core.pack.kill_child HOME PACK`
from the repository's root, with the fake embedders. It says `ready` once the library is open
and each stage of the import as it reaches it, so the test knows where its kill landed."""

from __future__ import annotations

import sys
from pathlib import Path

from lecturetui.core.pack.importer import import_pack
from tests.core.pack.packs import fake_library


def main() -> None:
    library = fake_library(Path(sys.argv[1]))
    library.lectures()
    print("ready", flush=True)
    import_pack(library, Path(sys.argv[2]),
                lambda stage, done, total: print(f"{stage} {done}/{total}", flush=True))  # fmt: skip
    print("done", flush=True)


if __name__ == "__main__":
    main()
