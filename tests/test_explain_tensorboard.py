"""explain and TensorBoard / protobuf's generated code: ``No module named 'pkg_resources'``
from TensorBoard, ``TBNotInstalledError`` and ``cannot import name 'runtime_version'`` are
recognised and answered from the installed versions and the measured setuptools bound
(``tensorflow/tensorboard.yaml``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from packaging.version import Version

from tfenv.explain import explain
from tfenv.host.profile import HostProfile
from tfenv.kb import KnowledgeBase
from tfenv.kb.tensorboard import load
from tfenv.models.target import Target

DATA = Path(__file__).parent / "data" / "errors"
BOUND = load()


def _sample(entry_id: str) -> str:
    return "\n".join((DATA / f"{entry_id}.txt").read_text("utf-8").splitlines()[1:])


def _host(*packages: tuple[str, str], os: str = "linux") -> HostProfile:
    return HostProfile(os=os, arch="x86_64", python=Version("3.12"), packages=packages)


def _match(kb: KnowledgeBase, entry_id: str, host: Optional[HostProfile] = None, **kw: Any) -> Any:
    found = explain(_sample(entry_id), kb, host, **kw).matches
    return next(m for m in found if m.entry.id == entry_id)


def test_pkg_resources_from_tensorboard_answered_with_the_installed_versions(
    kb: KnowledgeBase,
) -> None:
    host = _host(("tensorboard", "2.20.0"), ("setuptools", "84.2.1"))
    m = _match(kb, "tensorboard-pkg-resources", host)
    facts = " ".join(m.facts)
    assert "Installed here: TensorBoard 2.20.0, setuptools 84.2.1." in facts
    assert f"setuptools {BOUND.last_good} ran, {BOUND.first_bad} broke" in facts
    assert m.fix.startswith("`python -m pip install 'setuptools<82'` in this environment")
    assert f"'tensorboard>={BOUND.fixed}'" in m.fix


def test_pkg_resources_fix_for_windows_reads_alike_in_cmd_and_powershell(
    kb: KnowledgeBase,
) -> None:
    host = _host(("tensorboard", "2.15.2"), ("setuptools", "82.0.0"), os="windows")
    m = _match(kb, "tensorboard-pkg-resources", host)
    assert '`python -m pip install "setuptools<82"`' in m.fix


def test_pkg_resources_with_a_tensorboard_that_starts_says_so_without_a_fix(
    kb: KnowledgeBase,
) -> None:
    host = _host(("tensorboard", "2.21.0"), ("setuptools", "84.2.1"))
    m = _match(kb, "tensorboard-pkg-resources", host)
    assert m.fix is None or "setuptools<82" not in m.fix
    assert "starts with its setuptools" in " ".join(m.facts)


def test_pkg_resources_not_from_tensorboard_is_not_this_entry(kb: KnowledgeBase) -> None:
    text = (
        '  File "/venv/lib/python3.12/site-packages/other/setup_helpers.py", line 3, in <module>\n'
        "    import pkg_resources\n"
        "ModuleNotFoundError: No module named 'pkg_resources'\n"
    )
    assert "tensorboard-pkg-resources" not in {m.entry.id for m in explain(text, kb).matches}


def test_tb_not_installed_for_an_old_release_installs_its_tensorboard_with_the_bound(
    kb: KnowledgeBase,
) -> None:
    m = _match(kb, "tensorboard-not-installed", tf=Version("2.15.1"))
    assert "TensorFlow 2.15.1 requires tensorboard<2.16,>=2.15." in m.facts
    assert m.fix == (
        "`python -m pip install 'tensorboard<2.16,>=2.15' 'setuptools<82'` in this environment."
    )


def test_tb_not_installed_for_2_21_installs_a_tensorboard_that_starts(kb: KnowledgeBase) -> None:
    m = _match(kb, "tensorboard-not-installed", tf=Version("2.21.0"))
    assert "TensorFlow 2.21.0 does not require tensorboard: install it beside it." in m.facts
    assert m.fix == f"`python -m pip install 'tensorboard>={BOUND.fixed}'` in this environment."


def test_runtime_version_answered_with_the_installed_protobuf_and_tensorflows_bound(
    kb: KnowledgeBase,
) -> None:
    host = _host(("protobuf", "4.25.8"), ("tensorflow", "2.15.1"))
    m = _match(kb, "protobuf-runtime-version", host)
    facts = " ".join(m.facts)
    assert "Installed here: protobuf 4.25.8." in facts
    assert "TensorFlow 2.15.1 requires protobuf" in facts
    assert "<5.0.0dev" in m.fix
    assert "--upgrade" in m.fix


def test_runtime_version_without_tensorflow_upgrades_protobuf(kb: KnowledgeBase) -> None:
    target = Target(os="linux", arch="x86_64", python=Version("3.11"))
    m = _match(kb, "protobuf-runtime-version", target=target)
    assert m.fix == "`python -m pip install --upgrade protobuf` in this environment."
