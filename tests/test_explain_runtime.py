"""explain and the runtime constraints: the NumPy and protobuf messages a release that misses
its constraint prints are recognised and answered with the installed release's constraint
(the release and Python come from the data)."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from tfenv.explain import explain
from tfenv.host.profile import HostProfile
from tfenv.kb import KnowledgeBase
from tfenv.kb.releases import tf_options
from tfenv.kb.runtime import RuntimeConstraint
from tfenv.models.target import Target

DATA = Path(__file__).parent / "data" / "errors"
MESSAGES = {  # the package each message is about -> catalogued samples showing it
    "numpy": ("numpy2-abi", "numpy-abi-convert"),
    "protobuf": ("protobuf-descriptors",),
}


def _sample(entry_id: str) -> str:
    return "\n".join((DATA / f"{entry_id}.txt").read_text("utf-8").splitlines()[1:])


def _case(kb: KnowledgeBase, package: str) -> tuple[RuntimeConstraint, Version, str]:
    for opt in tf_options(kb, "tensorflow", "linux_x86_64"):
        for py in opt.pythons:
            for c in kb.runtime.constraints_for(opt.version, str(py)):
                if c.package == package:
                    return c, opt.version, str(py)
    pytest.skip(f"the runtime data records no {package} constraint")


@pytest.mark.parametrize(
    ("package", "entry_id"), [(p, e) for p, ids in MESSAGES.items() for e in ids]
)
def test_answered_with_the_installed_releases_constraint(
    kb: KnowledgeBase, package: str, entry_id: str
) -> None:
    c, tf, py = _case(kb, package)
    target = Target(os="linux", arch="x86_64", python=Version(py))
    found = explain(_sample(entry_id), kb, target=target, tf=tf).matches
    m = next(m for m in found if m.entry.id == entry_id)
    facts = " ".join(m.facts)
    assert f"TensorFlow {tf} on Python {py} needs {c.line} to run" in facts
    assert c.error.rstrip(".") in facts
    assert m.fix is not None
    assert f"python -m pip install '{c.line}'" in m.fix


def test_the_installed_distribution_is_found_when_it_is_tensorflow_cpu(kb: KnowledgeBase) -> None:
    c, tf, py = _case(kb, "numpy")
    host = HostProfile(
        os="linux",
        arch="x86_64",
        python=Version(py),
        packages=(("tensorflow-cpu", str(tf)),),
    )
    m = explain(_sample("numpy-abi-convert"), kb, host).matches[0]
    assert f"needs {c.line} to run" in " ".join(m.facts)


def test_without_the_release_it_lists_the_recorded_bounds(kb: KnowledgeBase) -> None:
    c, _tf, py = _case(kb, "protobuf")
    target = Target(os="linux", arch="x86_64", python=Version(py))
    m = explain(_sample("protobuf-descriptors"), kb, target=target).matches[0]
    facts = " ".join(m.facts)
    assert "The TensorFlow of this environment is not known" in facts
    assert f"{c.line} for TensorFlow {c.releases}" in facts
    assert m.fix is None or "pip install" in m.fix  # the catalogue's own fix
