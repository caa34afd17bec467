"""The knowledge base: typed, validated facts loaded from ``tfenv/data``.

:class:`KnowledgeBase` loads each concept lazily, on first use, so that a
command pays only for the files it reads. ``root`` points at another data
folder (tests use it for hand-made or hand-broken data).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from tfenv.kb.conda import CondaFacts
    from tfenv.kb.cuda import CudaFacts
    from tfenv.kb.cudnn import CudnnFacts
    from tfenv.kb.gpus import GpuCatalog
    from tfenv.kb.index import IndexFacts
    from tfenv.kb.platforms import Platforms
    from tfenv.kb.tensorflow import Change, KnownIssue, TfBuilds

__all__ = ["KnowledgeBase"]


class KnowledgeBase:
    def __init__(self, root: Optional[Path] = None) -> None:
        self.root = root

    @cached_property
    def index(self) -> IndexFacts:
        from tfenv.kb import index

        return index.load(self.root)

    @cached_property
    def builds(self) -> TfBuilds:
        from tfenv.kb import tensorflow

        return tensorflow.load_builds(self.root)

    @cached_property
    def known_issues(self) -> tuple[KnownIssue, ...]:
        from tfenv.kb import tensorflow

        return tuple(tensorflow.load_known_issues(self.root))

    @cached_property
    def changes(self) -> tuple[Change, ...]:
        from tfenv.kb import tensorflow

        return tuple(tensorflow.load_changes(self.root))

    @cached_property
    def cuda(self) -> CudaFacts:
        from tfenv.kb import cuda

        return cuda.load(self.root)

    @cached_property
    def cudnn(self) -> CudnnFacts:
        from tfenv.kb import cudnn

        return cudnn.load(self.root)

    @cached_property
    def gpus(self) -> GpuCatalog:
        from tfenv.kb import gpus

        return gpus.load(self.root)

    @cached_property
    def platforms(self) -> Platforms:
        from tfenv.kb import platforms

        return platforms.load_platforms(self.root)

    @cached_property
    def conda(self) -> CondaFacts:
        from tfenv.kb import conda

        return conda.load_conda(self.root)

    def load_all(self) -> None:
        """Load and validate every file (``tfenv matrix``, the KB tests)."""
        for name in (
            "index",
            "builds",
            "known_issues",
            "changes",
            "cuda",
            "cudnn",
            "gpus",
            "platforms",
            "conda",
        ):
            getattr(self, name)
