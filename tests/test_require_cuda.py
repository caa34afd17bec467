"""The NVIDIA_REQUIRE_CUDA parser and evaluator: the semantics of nvidia-container-cli."""

from __future__ import annotations

from typing import Optional

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from tfenv.models.require_cuda import (
    HostFacts,
    RequireCudaError,
    evaluate,
    parse,
)

BRANDS: tuple[str, ...] = ("tesla", "unknown", "nvidia", "nvidiartx", "geforce", "geforcertx")
BRANDS += ("quadro", "quadrortx", "titan", "titanrtx")
# nvidia/cuda dist/12.3.0/ubuntu2204/base/Dockerfile @ 0a60ad512e07 (TF 2.16-2.20 images)
CUDA_12_3 = "cuda>=12.3 " + " ".join(
    f"brand={b},driver>={n},driver<{n + 1}" for n in (470, 525, 535) for b in BRANDS
)
# nvidia/cuda dist/12.5.0/ubuntu2204/base/Dockerfile @ a819e795c14a: no geforce, no titan
BRANDS_12_5: tuple[str, ...] = ("unknown", "grid", "tesla", "nvidia", "quadro", "quadrortx")
BRANDS_12_5 += ("nvidiartx", "vapps", "vpc", "vcs", "vws", "cloudgaming")
CUDA_12_5 = "cuda>=12.5 " + " ".join(
    f"brand={b},driver>={n},driver<{n + 1}" for n in (470, 535, 550) for b in BRANDS_12_5
)
# observed in the 2.9.1-gpu-jupyter image
TF_2_9_1 = "cuda>=11.2 brand=tesla,driver>=418,driver<419"


def host(
    driver: Optional[str] = None,
    cuda: Optional[str] = None,
    brands: Optional[set[str]] = None,
    arch: Optional[str] = None,
) -> HostFacts:
    return HostFacts(
        driver=Version(driver) if driver else None,
        cuda=Version(cuda) if cuda else None,
        brands=frozenset(brands) if brands is not None else None,
        arch=Version(arch) if arch else None,
    )


def test_parse_reads_terms_and_conditions() -> None:
    clause = parse(TF_2_9_1)
    assert [str(t) for t in clause.terms] == ["cuda>=11.2", "brand=tesla,driver>=418,driver<419"]
    assert clause.cuda_floor == Version("11.2")
    assert clause.branches() == {418: ("tesla",)}
    assert str(clause) == TF_2_9_1


def test_names_are_case_insensitive_and_extra_spaces_ignored() -> None:
    # the arm64 12.3.2 base writes "CUDA>=12.3"; empty terms are skipped as the C code does
    clause = parse("  CUDA>=12.3   Brand=Tesla,,driver>=535,driver<536 ")
    assert [str(t) for t in clause.terms] == ["cuda>=12.3", "brand=Tesla,driver>=535,driver<536"]
    assert evaluate(clause, host("535.104.05", "12.2", {"tesla"})).admits is True


@pytest.mark.parametrize(
    "text",
    ["foo>=1", "cuda", ">=12", "cuda>=", "cuda=>12", "brand>=tesla", "driver>=abc", "cuda>=12.x"],
)
def test_invalid_expressions_are_rejected(text: str) -> None:
    with pytest.raises(RequireCudaError):
        parse(text)


def test_empty_clause_admits_everything() -> None:
    verdict = evaluate(parse(""), host("390.1", "9.1"))
    assert verdict.admits is True
    assert verdict.term is None


@pytest.mark.parametrize(
    ("driver", "cuda", "admits", "term"),
    [
        ("545.23.06", "12.3", True, "cuda>=12.3"),  # reports CUDA 12.3 itself
        ("550.54.15", "12.4", True, "cuda>=12.3"),
        ("535.104.05", "12.2", True, "brand=tesla,driver>=535,driver<536"),  # a listed branch
        ("525.60.13", "12.0", True, "brand=tesla,driver>=525,driver<526"),
        ("470.82.01", "11.4", True, "brand=tesla,driver>=470,driver<471"),
        ("510.47.03", "11.6", False, None),  # R510 is not listed and reports 11.6 < 12.3
        ("530.30.02", "12.1", False, None),  # above the CUDA 12.x floor, yet refused
        ("520.61.05", "11.8", False, None),
    ],
)
def test_cuda_12_3_image(driver: str, cuda: str, admits: bool, term: Optional[str]) -> None:
    verdict = evaluate(parse(CUDA_12_3), host(driver, cuda, {"tesla"}))
    assert verdict.admits is admits
    assert (str(verdict.term) if verdict.term else None) == term


def test_brand_decides_on_a_listed_branch() -> None:
    clause = parse(CUDA_12_5)
    r535 = ("535.104.05", "12.2")
    assert evaluate(clause, host(*r535, {"tesla", "nvidia", "unknown"})).admits is True
    assert evaluate(clause, host(*r535, {"geforce"})).admits is False  # geforce not listed
    assert evaluate(clause, host(*r535, {"GeForce"})).admits is False
    assert evaluate(clause, host(*r535, {"titan"})).admits is False
    # a brand that may be geforce or quadro: it depends
    assert evaluate(clause, host(*r535, {"geforce", "quadro"})).admits is None
    assert evaluate(clause, host(*r535, None)).admits is None  # brand not known
    # the cuda term needs no brand
    assert evaluate(clause, host("555.42.02", "12.5", {"geforce"})).admits is True


def test_unknown_facts_make_an_unknown_verdict() -> None:
    clause = parse(TF_2_9_1)
    verdict = evaluate(clause, host(None, None, {"tesla"}))
    assert verdict.admits is None
    assert str(verdict.term) == "cuda>=11.2"
    # a known CUDA that passes decides it even without the driver version
    assert evaluate(clause, host(None, "11.4", None)).admits is True
    # a data-center GPU on R418 that may report brand tesla or not
    on_418 = host("418.226.00", "10.1", {"tesla", "unknown", "nvidia"})
    mixed = evaluate(clause, on_418)
    assert mixed.admits is None
    assert (mixed.admitted, mixed.refused) == (("tesla",), ("nvidia", "unknown"))
    assert evaluate(clause, host("418.226.00", "10.1", {"tesla"})).admits is True
    assert evaluate(clause, host("418.226.00", "10.1", {"geforce"})).admits is False


def test_versions_compare_as_numbers_with_trailing_zeros_ignored() -> None:
    assert evaluate(parse("driver>=450"), host("450.80.02")).admits is True
    assert evaluate(parse("driver<451"), host("450.80.02")).admits is True
    assert evaluate(parse("driver>=450.100"), host("450.80.02")).admits is False  # 80 < 100
    assert evaluate(parse("cuda=12"), host(cuda="12.0")).admits is True
    assert evaluate(parse("cuda!=12.0"), host(cuda="12")).admits is False
    assert evaluate(parse("cuda>12.0"), host(cuda="12.0.1")).admits is True
    assert evaluate(parse("arch>=7.5"), host(arch="8.6")).admits is True
    assert evaluate(parse("arch<=7.0"), host(arch="8.6")).admits is False


def test_refusal_is_nvidia_container_cli_s_message() -> None:
    assert parse(CUDA_12_3).refusal == (
        "unsatisfied condition: cuda>=12.3, please update your driver to a newer version, "
        "or use an earlier cuda container"
    )
    assert parse("brand=tesla,driver>=418,driver<419").refusal == (
        "unsatisfied condition: brand=tesla,driver>=418,driver<419"
    )


def test_describe_groups_branches_by_brands() -> None:
    assert parse(TF_2_9_1).describe() == "cuda>=11.2 or a driver of branch 418 (brands: tesla)"
    text = parse(CUDA_12_3).describe()
    assert text.startswith("cuda>=12.3 or a driver of branches 470, 525 or 535 (brands: tesla, ")
    assert "titanrtx" in text
    mixed = parse(
        "cuda>=11.8 brand=tesla,driver>=450,driver<451 brand=tesla,driver>=470,driver<471 "
        "brand=geforce,driver>=470,driver<471"
    )
    assert mixed.branches() == {450: ("tesla",), 470: ("tesla", "geforce")}
    assert parse("cuda>=11.2 driver>=450").describe() == "cuda>=11.2 or driver>=450"
    assert parse("driver>=450,driver<451").describe() == "a driver of branch 450"


VERSION = st.lists(st.integers(0, 600), min_size=1, max_size=3).map(
    lambda xs: ".".join(map(str, xs))
)


@given(VERSION, VERSION)
def test_comparison_agrees_with_packaging(left: str, right: str) -> None:
    """Numeric field comparison with trailing zeros ignored is PEP 440's release comparison."""
    a, b = Version(left), Version(right)
    for op, want in ((">=", a >= b), ("<", a < b), ("=", a == b), ("!=", a != b)):
        assert evaluate(parse(f"driver{op}{right}"), host(driver=left)).admits is want


TERMS = ["cuda>=12.3", "driver>=535,driver<536", "brand=tesla"]


@given(st.lists(st.sampled_from(TERMS), max_size=4))
def test_or_of_terms(parts: list[str]) -> None:
    """A clause admits a host exactly when one of its terms does."""
    facts = host("535.104.05", "12.2", {"tesla"})
    verdict = evaluate(parse(" ".join(parts)), facts)
    singles = [evaluate(parse(p), facts).admits for p in parts]
    assert verdict.admits is (any(singles) if parts else True)
