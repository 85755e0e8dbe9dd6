"""The embedding model of ``search.vector``: WordLlama's ``l2_supercat`` model (256
dimensions), whose weights and tokenizer ship inside the ``wordllama`` wheel, so nothing is
fetched at run time. It is loaded once per process (about 20 MB, under a second) and is safe to
call from several threads (it only reads its weights).
"""

from __future__ import annotations

import threading
from typing import Any

from autobyteus_like._extras import missing_package
from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._invocation import ErrorCode

__all__ = ["DIMENSIONS", "MODEL_NAME", "embed"]

DIMENSIONS = 256
MODEL_NAME = f"wordllama/l2_supercat/{DIMENSIONS}"
"""Recorded with the index: an index made by another model is rebuilt, never mixed."""

_lock = threading.Lock()
_model: Any = None


def _load() -> Any:
    global _model
    with _lock:
        if _model is None:
            package = missing_package("vector")
            if package is not None:  # the tool is absent without it; this is a direct use
                raise ToolFailure(ErrorCode.NOT_AVAILABLE,
                                  f"search.vector needs the {package} package: "
                                  "pip install 'autobyteus-like[vector]'")
            _model = _bundled()
        return _model


def _bundled() -> Any:
    """The model from the files inside the wheel. (``WordLlama.load`` looks for the tokenizer
    in a ``tokenizer/`` folder while the wheel ships ``tokenizers/``, and would then download
    it: the files are opened here by their real place instead.)"""
    from pathlib import Path

    import wordllama
    from safetensors import safe_open
    from tokenizers import Tokenizer
    from wordllama.inference import WordLlamaInference

    package = Path(wordllama.__file__).parent
    weights = package / "weights" / f"l2_supercat_{DIMENSIONS}.safetensors"
    tokenizer = package / "tokenizers" / "l2_supercat_tokenizer_config.json"
    if not weights.is_file() or not tokenizer.is_file():
        raise ToolFailure(ErrorCode.NOT_AVAILABLE,
                          f"the wordllama package has no bundled model at {package}",
                          suggestion="reinstall it: pip install 'autobyteus-like[vector]'")
    with safe_open(str(weights), framework="np", device="cpu") as tensors:
        embedding = tensors.get_tensor("embedding.weight")
    return WordLlamaInference(embedding, Tokenizer.from_file(str(tokenizer)), binary=False)


def embed(texts: list[str]) -> Any:
    """Unit-length float32 vectors, one row per text (a numpy array)."""
    import numpy as np

    vectors = _load().embed(texts, norm=True)
    return np.ascontiguousarray(vectors, dtype=np.float32)
