"""OpenVINO, imported without its usage reports.

Importing `openvino` imports its model converter (`openvino.tools.ovc`), which reports the
import to Google Analytics from a process it forks (the `openvino-telemetry` package, installed
with OpenVINO), every time, unless the user opted out with OpenVINO's own tool; on a command that
ends normally, the interpreter then waits for that report (up to 3 s where the network hangs).
lecturetui runs offline and reports nothing: before OpenVINO is first imported, the telemetry
package is hidden from the import system, so the converter takes the no-op stand-in it ships for
an installation without it (`openvino.tools.ovc.telemetry_stub`).
"""

from __future__ import annotations

import sys
from types import ModuleType

TELEMETRY = "openvino_telemetry"


def openvino() -> ModuleType:
    """The `openvino` module, its telemetry left out (raises ImportError without OpenVINO)."""
    if TELEMETRY not in sys.modules:
        sys.modules[TELEMETRY] = None  # type: ignore[assignment]  # import raises ImportError
    import openvino  # noqa: F401  # lazy: 0.4 s; its telemetry is hidden first (above)

    return sys.modules["openvino"]
