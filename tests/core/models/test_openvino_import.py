"""OpenVINO imported the product's way reports nothing: no process forked to send a usage
event, nothing written in the user's home (each check in a fresh interpreter, as OpenVINO sends
its report on its first import)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

IMPORT = """
import json, os
forks = []
fork = os.fork
def counted():
    forks.append(1)
    return fork()
os.fork = counted
{how}
import openvino.tools.ovc.telemetry_utils as telemetry
print(json.dumps({{"forks": len(forks), "telemetry": telemetry.tm.__name__,
                  "home": os.listdir(os.environ["HOME"])}}))
"""
PRODUCT = "from lecturetui.core.models.openvino_import import openvino; openvino()"


def _imported(how: str, home: Path) -> dict[str, object]:
    run = subprocess.run([sys.executable, "-c", IMPORT.format(how=how)],
                         env={**os.environ, "HOME": str(home)}, capture_output=True,
                         text=True, timeout=120, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    found: dict[str, object] = json.loads(run.stdout)
    return found


@pytest.mark.skipif(importlib.util.find_spec("openvino") is None, reason="needs OpenVINO")
def test_openvino_imported_the_product_s_way_sends_no_usage_report(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    got = _imported(PRODUCT, home)
    assert got == {"forks": 0, "telemetry": "openvino.tools.ovc.telemetry_stub", "home": []}


@pytest.mark.skipif(importlib.util.find_spec("openvino_telemetry") is None,
                    reason="OpenVINO without its telemetry package reports nothing anyway")  # fmt: skip
def test_a_plain_import_of_openvino_would_report(tmp_path: Path) -> None:
    # what the product's import prevents, so that the test above can tell; this home has
    # opted out with OpenVINO's own consent file, so nothing is sent from the test either
    consent = tmp_path / "home" / "intel" / "openvino_telemetry"
    consent.parent.mkdir(parents=True)
    consent.write_text("0")
    got = _imported("import openvino", tmp_path / "home")
    assert got["telemetry"] == "openvino_telemetry"
    assert got["forks"] == 0  # opted out
