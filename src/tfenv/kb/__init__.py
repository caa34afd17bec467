"""The knowledge base: typed, validated facts loaded from ``tfenv/data``.

:class:`KnowledgeBase` loads each concept lazily, on first use, so that a
command pays only for the files it reads. ``root`` points at another data
folder (tests use it for hand-made or hand-broken data).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar

if TYPE_CHECKING:
    from pathlib import Path

    from tfenv.kb.changes import Change
    from tfenv.kb.conda import CondaFacts
    from tfenv.kb.containers import ContainerFacts
    from tfenv.kb.cuda import CudaFacts
    from tfenv.kb.cuda_wheels import AndCudaFacts
    from tfenv.kb.cudnn import CudnnFacts
    from tfenv.kb.errors import ErrorEntry
    from tfenv.kb.gpus import GpuCatalog
    from tfenv.kb.index import CudaIndex, IndexFacts, Release
    from tfenv.kb.jetson import JetsonFacts
    from tfenv.kb.known_issues import KnownIssue
    from tfenv.kb.linux_manual import LinuxManual
    from tfenv.kb.metal import MetalFacts
    from tfenv.kb.platforms import Platforms
    from tfenv.kb.runtime import RuntimeFacts
    from tfenv.kb.tensorboard import PkgResourcesBound
    from tfenv.kb.tensorflow import TfBuilds
    from tfenv.kb.windows_manual import WindowsManual

__all__ = ["KnowledgeBase"]

T = TypeVar("T")


class KnowledgeBase:
    def __init__(self, root: Optional[Path] = None) -> None:
        self.root = root
        self._memo: dict[Hashable, Any] = {}

    @classmethod
    def from_environment(cls) -> KnowledgeBase:
        """The shipped data, or ``$TFENV_DATA_DIR`` when set (for editing the KB)."""
        import os

        folder = os.environ.get("TFENV_DATA_DIR")
        if not folder:
            return cls(None)
        from pathlib import Path

        return cls(Path(folder))

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """Remember a value derived from the facts (they never change once loaded)."""
        try:
            return self._memo[key]  # type: ignore[no-any-return]
        except KeyError:
            value = self._memo[key] = compute()
            return value

    @cached_property
    def index(self) -> IndexFacts:
        from tfenv.kb.index import IndexFacts

        return IndexFacts(self._releases, self.cuda_index)

    @cached_property
    def _releases(self) -> Mapping[str, tuple[Release, ...]]:
        """The index's releases by package (``index``: the biggest entry of the cache)."""
        from tfenv.kb import index

        return self._load("index.releases", lambda: index.load_releases(self.root))

    @cached_property
    def cuda_index(self) -> CudaIndex:
        """The index's CUDA wheels: all a resolve reads of the index (the releases reach
        it through the options derived from them, :func:`tfenv.kb.releases.tf_options`)."""
        from tfenv.kb import index

        return self._load("index.cuda", lambda: index.load_cuda(self.root, self._releases))

    @cached_property
    def builds(self) -> TfBuilds:
        from tfenv.kb import tensorflow

        return self._load("tensorflow.load_builds", lambda: tensorflow.load_builds(self.root))

    @cached_property
    def known_issues(self) -> tuple[KnownIssue, ...]:
        from tfenv.kb import known_issues

        return self._load("known_issues", lambda: tuple(known_issues.load_known_issues(self.root)))

    @cached_property
    def changes(self) -> tuple[Change, ...]:
        from tfenv.kb import changes

        return self._load("changes", lambda: tuple(changes.load_changes(self.root)))

    @cached_property
    def runtime(self) -> RuntimeFacts:
        """What each release needs of its dependencies to import and run today."""
        from tfenv.kb import runtime

        return self._load("runtime.load", lambda: runtime.load(self.root))

    @cached_property
    def and_cuda(self) -> AndCudaFacts:
        from tfenv.kb import cuda_wheels

        return self._load("cuda_wheels.load", lambda: cuda_wheels.load(self.root))

    @cached_property
    def cuda(self) -> CudaFacts:
        from tfenv.kb import cuda

        return self._load("cuda.load", lambda: cuda.load(self.root))

    @cached_property
    def cudnn(self) -> CudnnFacts:
        from tfenv.kb import cudnn

        return self._load("cudnn.load", lambda: cudnn.load(self.root))

    @cached_property
    def gpus(self) -> GpuCatalog:
        from tfenv.kb import gpus

        return self._load("gpus.load", lambda: gpus.load(self.root))

    @cached_property
    def jetson(self) -> JetsonFacts:
        from tfenv.kb import jetson

        return self._load("jetson.load", lambda: jetson.load(self.root))

    @cached_property
    def windows_manual(self) -> WindowsManual:
        from tfenv.kb import windows_manual

        return self._load("windows_manual.load", lambda: windows_manual.load(self.root))

    @cached_property
    def linux_manual(self) -> LinuxManual:
        from tfenv.kb import linux_manual

        return self._load("linux_manual.load", lambda: linux_manual.load(self.root))

    @cached_property
    def tensorboard(self) -> PkgResourcesBound:
        from tfenv.kb import tensorboard

        return self._load("tensorboard.load", lambda: tensorboard.load(self.root))

    @cached_property
    def metal(self) -> MetalFacts:
        from tfenv.kb import metal

        return self._load("metal.load", lambda: metal.load(self.root))

    @cached_property
    def platforms(self) -> Platforms:
        from tfenv.kb import platforms

        return self._load("platforms.load_platforms", lambda: platforms.load_platforms(self.root))

    @cached_property
    def conda(self) -> CondaFacts:
        from tfenv.kb import conda

        return self._load("conda.load_conda", lambda: conda.load_conda(self.root))

    @cached_property
    def containers(self) -> ContainerFacts:
        from tfenv.kb import containers

        return self._load("containers.load", lambda: containers.load(self.root))

    @cached_property
    def errors(self) -> tuple[ErrorEntry, ...]:
        """The known error messages (``tfenv explain``)."""
        from tfenv.kb import errors

        return self._load("errors.load", lambda: errors.load(self.root))

    def derived(self, name: str, compute: Callable[[], T]) -> T:
        """A value computed from the facts: remembered, and cached on disk like the facts."""
        return self.memo(("derived", name), lambda: self._load(f"derived-{name}", compute))

    def _load(self, name: str, load: Callable[[], T]) -> T:
        from tfenv.kb._cache import cached, folder_digest

        root = self.root
        if root is None:
            return cached(name, load)
        salt = self.memo("folder-digest", lambda: folder_digest(root))
        if salt is None:  # a folder that cannot be read whole: never cached
            return load()
        return cached(name, load, salt)

    def load_all(self) -> None:
        """Load and validate every file (``tfenv matrix``, the KB tests): every concept
        above, so that a new one cannot be left out."""
        for name, attr in vars(KnowledgeBase).items():
            if isinstance(attr, cached_property):
                getattr(self, name)
