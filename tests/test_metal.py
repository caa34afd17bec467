"""Apple's tensorflow-metal pairing (data/metal.yaml) and what tfenv makes of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from tfenv.explain import explain
from tfenv.host.profile import HostProfile
from tfenv.kb import KnowledgeBase
from tfenv.kb.metal import metal_plugin, newest_paired, no_metal_reason

ERRORS = Path(__file__).parent / "data" / "errors"


@pytest.mark.parametrize(
    ("tf", "metal", "status"),
    [
        ("2.13.1", "1.0.0", "established"),  # Apple's row, not its later patch 1.0.1
        ("2.14.1", "1.1.0", "established"),
        ("2.17.1", "1.1.0", "established"),
        ("2.18.0", "1.2.0", "inferred"),  # Apple's last row names 1.1.0, which fails on 2.18
        ("2.19.1", "1.2.0", "inferred"),
    ],
)
def test_the_plug_in_paired_with_a_release(
    kb: KnowledgeBase, tf: str, metal: str, status: str
) -> None:
    plugin = metal_plugin(kb, Version(tf))
    assert plugin is not None
    assert (str(plugin.version), plugin.pair.status) == (metal, status)
    assert plugin.pythons  # from the plug-in's wheel tags on the index


@pytest.mark.parametrize("tf", ["2.20.0", "2.21.0", "2.4.0"])
def test_no_plug_in_for_2_20_and_later_nor_before_the_metal_route(
    kb: KnowledgeBase, tf: str
) -> None:
    assert metal_plugin(kb, Version(tf)) is None


@pytest.mark.parametrize(
    ("tf", "metal"), [("2.12.0", "0.8.0"), ("2.11.0", "0.7.0"), ("2.5.0", "0.1.2")]
)
def test_before_2_13_the_plug_in_pairs_with_tensorflow_macos(
    kb: KnowledgeBase, tf: str, metal: str
) -> None:
    """Apple's page: 'For TensorFlow version 2.12 or earlier: pip install tensorflow-macos'."""
    plugin = metal_plugin(kb, Version(tf))
    assert plugin is not None
    assert str(plugin.version) == metal
    assert plugin.pair.package == "tensorflow-macos"


def test_every_pair_loads_where_it_is_paired(kb: KnowledgeBase) -> None:
    assert kb.metal.pairs
    checked = set()
    for pair in kb.metal.pairs:
        assert pair.provenance.sources
        assert pair.provenance.retrieved
        assert pair.loads_with is not None
        for minor in range(5, 25):
            v = Version(f"2.{minor}.0")
            if pair.tensorflow.contains(v):
                assert pair.loads_with.contains(v), (pair.metal, v)
                checked.add(pair.metal)
    assert checked == {p.metal for p in kb.metal.pairs}, "a pair no release was checked with"
    assert kb.metal.table[-1].startswith("|v2.18|v1.1.0|")  # Apple's row, kept verbatim


def test_the_newest_paired_release_and_the_reasons_for_no_metal(kb: KnowledgeBase) -> None:
    newest = newest_paired(kb)
    assert newest is not None
    assert (str(newest[0]), str(newest[1].version)) == ("2.19.1", "1.2.0")
    assert no_metal_reason(kb, Version("2.19.1"), Version("3.12")) is None
    why = no_metal_reason(kb, Version("2.19.1"), Version("3.13"))
    assert why is not None
    assert "no wheel for Python 3.13" in why
    newer = no_metal_reason(kb, Version("2.21.0"), None)
    assert newer is not None
    assert "does not load into 2.21.0" in newer
    assert newer.endswith("tfenv resolve --tf 2.19.1")


def _sample(name: str) -> str:
    return "\n".join((ERRORS / f"{name}.txt").read_text("utf-8").splitlines()[1:])


def _explain_facts(kb: KnowledgeBase, sample: str, python: str, tf: str, metal: str) -> str:
    """The one answer to a recorded Metal error on an Apple-silicon Mac that has ``tf`` and
    tensorflow-metal ``metal`` installed: its facts, joined."""
    host = HostProfile(
        os="macos",
        arch="arm64",
        python=Version(python),
        packages=(("tensorflow", tf), ("tensorflow-metal", metal)),
    )
    (match,) = explain(_sample(sample), kb, host).matches
    assert match.elsewhere is None
    return " ".join(match.facts)


def test_explain_names_the_pair_to_install(kb: KnowledgeBase) -> None:
    facts = _explain_facts(kb, "metal-plugin-symbol-not-found", "3.10", "2.18.0", "1.1.0")
    assert "tensorflow 2.18.0 with tensorflow-metal 1.1.0" in facts
    assert "pairs with tensorflow-metal 1.2.0 (inferred)" in facts
    assert "pip install 'tensorflow==2.19.1' 'tensorflow-metal==1.2.0'" in facts


def test_explain_on_2_20_says_no_plug_in_pairs(kb: KnowledgeBase) -> None:
    facts = _explain_facts(kb, "metal-plugin-library-not-loaded", "3.12", "2.20.0", "1.2.0")
    assert "no tensorflow-metal release is paired with TensorFlow 2.20.0" in facts
    assert "TensorFlow >=2.14,<2.18: 1.1.0" in facts
