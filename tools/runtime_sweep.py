#!/usr/bin/env python3
"""Derive what each TensorFlow release needs of its dependencies to import and run today
(``src/tfenv/data/tensorflow/runtime.yaml``) and the result table in ``docs/runtime.md``.

Usage::

    python tools/runtime_sweep.py [--all-pythons] [--releases SPEC] [--flavours gpu,cpu]
                                  [--state FILE] [--work DIR] [--budget-minutes N]
                                  [--check] [--new-only] [--write-only] [--index-url URL]

For every TensorFlow release of the knowledge base's recorded index data (2.0 to the newest,
pre-releases too; Linux x86_64) and Python (the oldest and the newest the release has wheels
for among the interpreters found under ``~/.pyenv/versions``, 3.6-3.13; ``--all-pythons`` for
every one), and per flavour:

- ``gpu``: what tfenv's GPU plans install with the CUDA wheels left out (the release's GPU
  distribution, ``tensorflow-gpu`` for 2.0, else ``tensorflow``);
- ``cpu``: ``tensorflow-cpu`` where the index has that release for the Python, else
  ``tensorflow``;

it creates a fresh venv with uv, installs the plan, and runs a child script that imports
TensorFlow and trains one Keras step on the CPU (``Dense``, one ``fit`` epoch, tiny data).
When that fails it looks for the culprit: the same plan installed as on the release's upload
day (``uv pip install --exclude-newer``); each package whose version differs is pinned back
alone until one makes the plan run (failing that, they are pinned back together until it
runs, and those it runs without are dropped); that package's versions with a wheel for the
Python are bisected between the two for the first that breaks. A bound found for one release
is tried first on the next ones (and its edge checked). The plan is then run again with every
bound found (the constrained run).

Incremental: a state file (``--state``, default ``tools/runtime_sweep_state.json``, kept in
the repository as the experiment's record) keeps each cell; a rerun sweeps only releases it
has not seen and cells whose plan resolves to other versions today (a new NumPy), and prints
what changed (``--new-only``: only the cells it lacks, without resolving the others again).
``--check`` only compares (exit 1 on drift). At the end, and with ``--write-only``, the data
file and the docs page are written from the state, sorted and stable.

The index is the configured one (pip's and uv's configuration, as ``tfenv lock`` reads it);
the uv cache is uv's own (shared) unless ``--uv-cache`` names one for the sweep alone, which is
emptied between cells whenever the disk's free space falls below ``--min-free-gb`` (every
release's wheels unpack to 1-2 GB). Not part of the tfenv package.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parent.parent
DATA_FILE = ROOT / "src" / "tfenv" / "data" / "tensorflow" / "runtime.yaml"
DOC_FILE = ROOT / "docs" / "runtime.md"
TOOL = "tools/runtime_sweep.py"
#: every cell's result: the experiment's record, kept in the repository (the data file and
#: the docs page are written from it, and a test checks that they are)
STATE_FILE = ROOT / "tools" / "runtime_sweep_state.json"
FLAVOURS = ("gpu", "cpu")
#: the packages shown in the results and tried first as culprits, in this order
KEY_PACKAGES = (
    "numpy",
    "protobuf",
    "keras",
    "tf-keras",
    "h5py",
    "ml-dtypes",
    "typing-extensions",
    "wrapt",
)
#: public issues and release notes per (package, a piece of the error), cited beside the
#: experiment; checked by hand (the ``search`` of the issue trackers), never used to decide
PUBLIC_SOURCES: Mapping[tuple[str, str], tuple[str, ...]] = {
    ("protobuf", "Descriptors cannot"): (
        "https://github.com/tensorflow/tensorflow/issues/56266",
        "https://developers.google.com/protocol-buffers/docs/news/2022-05-06#python-updates",
    ),
    ("numpy", ""): (
        "https://github.com/tensorflow/tensorflow/issues/91042",
        "https://github.com/tensorflow/tensorflow/issues/67291",
    ),
}
_EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))(?::\s*(.*))?$")

CHILD = """\
import sys
import numpy as np
import tensorflow as tf
x = np.random.RandomState(0).rand(32, 4).astype("float32")
y = x.sum(axis=1, keepdims=True)
model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])
model.compile(optimizer="sgd", loss="mse")
history = model.fit(x, y, epochs=1, batch_size=8, verbose=0)
loss = float(history.history["loss"][-1])
print("RUNTIME-SWEEP-RAN", tf.__version__, np.__version__, round(loss, 4))
"""
RAN_MARK = "RUNTIME-SWEEP-RAN"


# -- pure parts ---------------------------------------------------------------------------


def first_error_line(output: str) -> str:
    """The exception a failed run ended with (the last ``SomethingError: ...`` line at the
    start of a line), cut to 200 characters; the last non-empty line when there is none."""
    lines = [line.rstrip() for line in output.splitlines() if line.strip()]
    for line in reversed(lines):
        if _EXCEPTION_LINE.match(line):
            return _one_line(line)
    return _one_line(lines[-1]) if lines else "(no output)"


#: where the run's throwaway environment lay: the path says nothing about the error
_ENV_PATH = re.compile(r"/[^\s'\"()]*/site-packages/")


def _one_line(text: str) -> str:
    text = "".join(ch if ch.isprintable() else " " for ch in text).strip()
    text = _ENV_PATH.sub("<site-packages>/", text)
    return text if len(text) <= 200 else text[:197] + "..."


def simplest_bound(good: Version, bad: Version) -> str:
    """The shortest ``<X`` that keeps ``good`` and excludes ``bad`` (``good < bad``):
    the major (``<2``), else major.minor (``<4.21``), else ``bad`` itself."""
    if not good < bad:
        raise ValueError(f"{good} is not older than {bad}")
    for cut in (Version(str(bad.major)), Version(f"{bad.major}.{bad.minor}")):
        if good < cut <= bad:
            return f"<{cut}"
    return f"<{bad}"


def bisect_first_bad(
    versions: Sequence[Version], probe: Callable[[Version], Optional[bool]]
) -> tuple[Version, Version]:
    """(last good, first bad) in ``versions`` (ascending; the first known good, the last known
    bad). ``probe`` says whether a version runs (None: it could not be tried; it is skipped)."""
    pool = list(versions)
    lo, hi = 0, len(pool) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        result = probe(pool[mid])
        if result is None:
            del pool[mid]
            hi -= 1
        elif result:
            lo = mid
        else:
            hi = mid
    return pool[lo], pool[hi]


def wheel_serves(filename: str, python: str) -> bool:
    """Whether a wheel file installs on CPython ``python`` (X.Y) on Linux x86_64."""
    try:
        _name, _version, _build, tags = parse_wheel_filename(filename)
    except ValueError:
        return False
    major, minor = (int(p) for p in python.split("."))
    cp = f"cp{major}{minor}"
    for tag in tags:
        if tag.platform != "any" and not (
            tag.platform.endswith("x86_64") and tag.platform.startswith(("manylinux", "linux"))
        ):
            continue
        if tag.interpreter in (cp, f"py{major}", f"py{major}{minor}"):
            return True
        if tag.abi == "abi3" and tag.interpreter.startswith("cp"):
            low = tag.interpreter[2:]
            if low[:1] == str(major) and low[1:].isdigit() and int(low[1:]) <= minor:
                return True
    return False


def versions_with_wheels(filenames: Iterable[str], python: str) -> tuple[Version, ...]:
    """Final versions with a wheel for ``python`` (ascending)."""
    found: set[Version] = set()
    for name in filenames:
        if not name.endswith(".whl") or not wheel_serves(name, python):
            continue
        version = parse_wheel_filename(name)[1]
        if not version.is_prerelease and not version.is_devrelease:
            found.add(version)
    return tuple(sorted(found))


def pick_pythons(served: Iterable[str], available: Iterable[str], every: bool) -> tuple[str, ...]:
    """The Pythons to sweep: those served and available; only the oldest and newest unless
    ``every``."""
    both = sorted(set(served) & set(available), key=_pykey)
    if every or len(both) <= 2:
        return tuple(both)
    return (both[0], both[-1])


def _pykey(python: str) -> tuple[int, ...]:
    return tuple(int(p) for p in python.split("."))


def declared_for(requires: Iterable[str], package: str, python: str) -> Optional[str]:
    """What the release's Requires-Dist says of ``package`` on ``python`` (``numpy>=1.20``)."""
    out = []
    for line in requires:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) != package:
            continue
        if req.marker is not None and not req.marker.evaluate(
            {"python_version": python, "extra": ""}
        ):
            continue
        out.append(f"{package}{req.specifier}" if str(req.specifier) else package)
    return ", ".join(out) or None


# -- cells and the state ------------------------------------------------------------------


@dataclass
class Finding:
    """A bound one cell needed: ``package`` ``requirement``; ``good`` ran, ``bad`` broke."""

    package: str
    requirement: str
    good: str
    bad: str
    error: str

    def to_json(self) -> dict[str, str]:
        return dict(vars(self))


@dataclass
class Cell:
    release: str
    python: str
    flavour: str
    distribution: str = ""
    bare: str = ""  # ran / broke / no-install
    error: Optional[str] = None
    bare_versions: dict[str, str] = field(default_factory=dict)  # the whole bare install
    findings: list[Finding] = field(default_factory=list)
    constrained: Optional[str] = None  # ran / broke / no-install (None: nothing to apply)
    constrained_versions: dict[str, str] = field(default_factory=dict)
    note: Optional[str] = None  # what the culprit search concluded, when it found no bound
    date: str = ""
    seconds: float = 0.0

    @property
    def key(self) -> str:
        return f"{self.release}|{self.python}|{self.flavour}"

    @property
    def ran_versions(self) -> dict[str, str]:
        return self.constrained_versions if self.findings else self.bare_versions

    def to_json(self) -> dict[str, Any]:
        out = dict(vars(self))
        out["findings"] = [f.to_json() for f in self.findings]
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Cell:
        data = dict(raw)
        data["findings"] = [Finding(**f) for f in data.get("findings", [])]
        return cls(**data)


def load_state(path: Path) -> dict[str, Cell]:
    if not path.is_file():
        return {}
    raw = json.loads(path.read_text("utf-8"))
    return {k: Cell.from_json(v) for k, v in raw.get("cells", {}).items()}


def save_state(path: Path, cells: Mapping[str, Cell]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"cells": {k: cells[k].to_json() for k in sorted(cells)}}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", "utf-8")
    os.replace(tmp, path)


# -- from cells to facts ------------------------------------------------------------------


@dataclass(frozen=True)
class ReleaseInfo:
    version: Version
    requires: Mapping[str, tuple[str, ...]]  # per Python: the Requires-Dist lines
    uploaded: Optional[str]


Key = tuple[str, str, Optional[str], Optional[str]]  # package, requirement, declared, pythons


def constraints_from(
    cells: Iterable[Cell], infos: Mapping[str, ReleaseInfo]
) -> list[dict[str, Any]]:
    """The constraints of ``runtime.yaml``: consecutive swept releases that need the same
    bound (with the same declared requirement) become one record."""
    by_release: dict[Version, list[Cell]] = {}
    for cell in cells:
        by_release.setdefault(Version(cell.release), []).append(cell)
    order = {v: i for i, v in enumerate(sorted(by_release))}
    hits_by_key: dict[Key, dict[Version, list[tuple[Cell, Finding]]]] = {}
    for version, group in by_release.items():
        found: dict[tuple[str, str, Optional[str]], list[tuple[Cell, Finding]]] = {}
        for cell in group:
            info = infos.get(cell.release)
            requires = info.requires.get(cell.python, ()) if info else ()
            for finding in cell.findings:
                declared = declared_for(requires, finding.package, cell.python)
                found.setdefault((finding.package, finding.requirement, declared), []).append(
                    (cell, finding)
                )
        for (package, requirement, declared), hits in found.items():
            pythons = _pythons_needed(group, package, requirement, hits)
            key: Key = (package, requirement, declared, pythons)
            hits_by_key.setdefault(key, {})[version] = hits
    records = []
    for key, per_release in hits_by_key.items():
        run: list[Version] = []
        for version in sorted(per_release):
            if run and order[version] != order[run[-1]] + 1:
                records.append(_record(*key, run, [h for v in run for h in per_release[v]]))
                run = []
            run.append(version)
        records.append(_record(*key, run, [h for v in run for h in per_release[v]]))
    return sorted(records, key=lambda r: (r["package"], Version(r["_first"]), r["id"]))


def _pythons_needed(
    group: Sequence[Cell], package: str, requirement: str, hits: Sequence[tuple[Cell, Finding]]
) -> Optional[str]:
    """Where the experiment showed the need: None (every Python) unless a cell of the same
    release ran without the bound with a version it excludes."""
    spec = SpecifierSet(requirement)
    needed = {cell.python for cell, _f in hits}
    fine = set()
    for cell in group:
        version = cell.bare_versions.get(package)
        if cell.bare == "ran" and version and not spec.contains(version, prereleases=True):
            fine.add(cell.python)
    if not fine:
        return None
    low = min(needed, key=_pykey)
    high = max(needed, key=_pykey)
    if all(_pykey(p) < _pykey(low) for p in fine):
        return f">={low}"
    if all(_pykey(p) > _pykey(high) for p in fine):
        return f"<={high}"
    return None


def _slug(text: str) -> str:
    text = text.replace("<=", "le-").replace(">=", "ge-").replace("<", "lt-").replace(">", "gt-")
    text = text.replace("==", "eq-").replace("!=", "ne-")
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _record(
    package: str,
    requirement: str,
    declared: Optional[str],
    pythons: Optional[str],
    versions: Sequence[Version],
    hits: Sequence[tuple[Cell, Finding]],
) -> dict[str, Any]:
    first, last = versions[0], versions[-1]
    releases = f"=={first}" if first == last else f">={first},<={last}"
    span = str(first) if first == last else f"{first}-to-{last}"
    newest = max(hits, key=lambda h: (Version(h[0].release), _pykey(h[0].python), h[0].flavour))
    cell, finding = newest
    broke_with = cell.bare_versions.get(package, "?")
    evidence = (
        f"{cell.distribution} {cell.release} on Python {cell.python} broke with {package} "
        f"{broke_with} and ran with {package}{requirement} ({package} {finding.good} ran, "
        f"{finding.bad} broke)"
    )
    if len(hits) > 1:
        evidence += f"; {len(hits)} runs of {len(versions)} release(s) alike"
    dates = sorted(c.date for c, _f in hits)
    sources = [f"experiment: {TOOL} {dates[-1]}"]
    for (pkg, piece), urls in sorted(PUBLIC_SOURCES.items()):
        if pkg == package and piece in finding.error:
            sources.extend(urls)
    record: dict[str, Any] = {
        "id": f"{_slug(package)}-{_slug(requirement)}-tf-{_slug(span)}",
        "releases": releases,
    }
    if pythons:
        record["pythons"] = pythons
    record.update(
        {
            "package": package,
            "requirement": requirement,
            "declared": declared,
            "error": finding.error,
            "evidence": evidence,
            "source": sources,
            "retrieved": dates[-1],
            "_first": str(first),
        }
    )
    if declared is None:
        del record["declared"]
    return record


def tensorboard_constraints(cells: Iterable[Cell], bound: Any) -> list[dict[str, Any]]:
    """``setuptools<82`` (``bound``: :class:`tfenv.kb.tensorboard.PkgResourcesBound`, what
    ``tools/tensorboard_check.py`` measured) where a cell's plan installs a TensorBoard that
    does not start beside the setuptools it resolved: consecutive releases with the same
    Pythons become one record, as :func:`constraints_from` groups the sweep's own bounds."""
    needs: dict[Version, list[Cell]] = {}
    by_release: dict[Version, list[Cell]] = {}
    for cell in cells:
        version = Version(cell.release)
        by_release.setdefault(version, []).append(cell)
        if _tensorboard_breaks(cell, bound):
            needs.setdefault(version, []).append(cell)
    order = {v: i for i, v in enumerate(sorted(by_release))}
    runs: list[tuple[Optional[str], list[Version]]] = []
    for version in sorted(needs):
        fine = {c.python for c in by_release[version] if not _tensorboard_breaks(c, bound)}
        pythons = _pythons_apart({c.python for c in needs[version]}, fine, bound.pythons)
        last = runs[-1] if runs else None
        if last and last[0] == pythons and order[version] == order[last[1][-1]] + 1:
            last[1].append(version)
        else:
            runs.append((pythons, [version]))
    return [_tensorboard_record(bound, pythons, run, needs) for pythons, run in runs]


def _tensorboard_breaks(cell: Cell, bound: Any) -> bool:
    versions = cell.ran_versions
    tensorboard, setuptools = versions.get("tensorboard"), versions.get(bound.package)
    if tensorboard is None:
        return False
    return bool(bound.breaks(Version(tensorboard), Version(setuptools) if setuptools else None))


def _pythons_apart(needed: set[str], fine: set[str], installs: Any) -> Optional[str]:
    """Where the bound is needed: where the breaking setuptools installs (``installs``, the
    measured ``>=3.9``) when every Python that needs it is there and every one that does not
    is below it; else ``>=low`` when every Python that needs it is above every one that does
    not; else None (every Python)."""
    if not fine:
        return None
    if installs is not None:

        def there(p: str) -> bool:
            return bool(installs.contains(p, prereleases=True))

        if all(there(p) for p in needed) and not any(there(p) for p in fine):
            return str(installs)
    low = min(needed, key=_pykey)
    if all(_pykey(p) < _pykey(low) for p in fine):
        return f">={low}"
    return None


def _tensorboard_record(
    bound: Any,
    pythons: Optional[str],
    versions: Sequence[Version],
    needs: Mapping[Version, list[Cell]],
) -> dict[str, Any]:
    first, last = versions[0], versions[-1]
    span = str(first) if first == last else f"{first}-to-{last}"
    hits = [c for v in versions for c in needs[v]]
    cell = max(hits, key=lambda c: (Version(c.release), _pykey(c.python), c.flavour))
    evidence = (
        f"{cell.distribution} {cell.release}'s plan on Python {cell.python} installed "
        f"tensorboard {cell.ran_versions.get('tensorboard')} and {bound.package} "
        f"{cell.ran_versions.get(bound.package, 'none')} (the sweep); that tensorboard does not "
        f"start with {bound.package} {bound.first_bad} and later and starts with "
        f"{bound.last_good} (tools/tensorboard_check.py, {bound.checked})"
    )
    if len(hits) > 1:
        evidence += f"; {len(hits)} runs of {len(versions)} release(s) alike"
    record: dict[str, Any] = {
        "id": f"{_slug(bound.package)}-{_slug(bound.requirement)}-tf-{_slug(span)}",
        "releases": f"=={first}" if first == last else f">={first},<={last}",
    }
    if pythons:
        record["pythons"] = pythons
    record.update(
        {
            "package": bound.package,
            "requirement": bound.requirement,
            "error": bound.error,
            "evidence": evidence,
            "source": list(bound.sources),
            "retrieved": bound.retrieved,
            "component": "tensorboard",
            "_first": str(first),
        }
    )
    return record


def results_from(cells: Iterable[Cell]) -> list[dict[str, Any]]:
    out = []
    for cell in sorted(cells, key=_cell_order):
        versions = {p: v for p, v in sorted(cell.ran_versions.items()) if p in KEY_PACKAGES}
        row: dict[str, Any] = {
            "release": cell.release,
            "python": cell.python,
            "flavour": cell.flavour,
            "distribution": cell.distribution,
            "bare": cell.bare,
            "constrained": cell.constrained,
            "error": cell.error,
            "versions": versions,
        }
        out.append(row)
    return out


def _cell_order(cell: Cell) -> tuple[Version, tuple[int, ...], int]:
    return (Version(cell.release), _pykey(cell.python), FLAVOURS.index(cell.flavour))


def render_yaml(
    cells: Sequence[Cell],
    infos: Mapping[str, ReleaseInfo],
    command: str,
    tensorboard: Optional[Any] = None,
) -> str:
    """``runtime.yaml`` from the cells: sorted, stable, every string quoted (JSON strings are
    valid YAML). Beside the sweep's own bounds, TensorBoard's setuptools bound where a cell's
    plan installs a TensorBoard that does not start (``tensorboard``: the bound
    ``tools/tensorboard_check.py`` recorded, default the shipped one)."""
    if tensorboard is None:
        from tfenv.kb.tensorboard import load as load_tensorboard

        tensorboard = load_tensorboard()
    dates = sorted(c.date for c in cells) or [datetime.date.today().isoformat()]
    lines = [
        "# What each TensorFlow release needs of its dependencies to import and run today.",
        f"# Generated by {TOOL}: do not edit by hand; rerun it (command below).",
        "# Linux x86_64, uv into a fresh venv, import tensorflow + one Keras fit epoch on the CPU.",
        f"swept: {_q(dates[-1])}",
        f"command: {_q(command)}",
        "constraints:",
    ]
    constraints = constraints_from(cells, infos) + tensorboard_constraints(cells, tensorboard)
    constraints.sort(key=lambda r: (r["package"], Version(r["_first"]), r["id"]))
    if not constraints:
        lines[-1] += " []"
    for record in constraints:
        record.pop("_first")
        lines.extend(_yaml_item(record))
    results = results_from(cells)
    lines.append("results:" + (" []" if not results else ""))
    for row in results:
        lines.extend(_yaml_item(row))
    return "\n".join(lines) + "\n"


def _yaml_item(record: Mapping[str, Any]) -> Iterator[str]:
    prefix = "  - "
    for key, value in record.items():
        yield f"{prefix}{key}: {_yaml_value(value)}"
        prefix = "    "


def _yaml_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return _q(value)
    if isinstance(value, list):
        return "[" + ", ".join(_q(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_q(k)}: {_q(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {value!r}")


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)


def render_doc(facts: Any) -> str:
    """``docs/runtime.md`` from the loaded facts (:class:`tfenv.kb.runtime.RuntimeFacts`)."""
    rows = facts.results
    bare_ok = sum(1 for r in rows if r.bare == "ran")
    fixed_ok = sum(1 for r in rows if (r.constrained or r.bare) == "ran")
    out = [
        "# Runtime facts: what each release needs to import and run today",
        "",
        "<!-- generated by tools/runtime_sweep.py from src/tfenv/data/tensorflow/runtime.yaml;"
        " do not edit -->",
        "",
        "Old TensorFlow releases declare open upper bounds (`numpy>=1.20`, `protobuf>=3.9.2`) on",
        "packages that later broke them, so a fresh install today can bring a NumPy 2 or a",
        "protobuf 5 that the release cannot import. `tensorflow/runtime.yaml` records the bounds",
        "each release needs, measured by `tools/runtime_sweep.py`: per release and Python (the",
        "oldest and newest it has Linux x86_64 wheels for), the GPU plan (CUDA wheels left out)",
        "and the CPU plan are installed with uv into a fresh venv, TensorFlow is imported and one",
        "Keras step trained on the CPU; a failure is traced to the dependency that differs from",
        "the release day's install (several together where no one alone cures it), whose",
        "versions are bisected for the bound.",
        "",
        f"Last sweep: {facts.swept}, `{facts.command}`. The sweep is incremental: a rerun",
        "runs only new releases and the cells whose plan resolves to other versions today (a",
        "new NumPy), and says what changed; `--new-only` only the cells it lacks; `--check`",
        "only reports that drift (exit 1); `--all-pythons` sweeps every Python; `--releases`",
        "limits it to a version range; `--write-only` rewrites the data and this page",
        "from the sweep's state. A constraint's `releases` run from the first to the last swept",
        "release that needed it (with the same declared requirement); releases between them that",
        "have no result below were not swept and are taken to need it too.",
        "",
        f"- {bare_ok}/{len(rows)} runs trained a Keras step as the releases declare their"
        " dependencies;",
        f"- {fixed_ok}/{len(rows)} with the recorded constraints applied.",
        "",
        "## Constraints",
        "",
        "| releases | Pythons | requirement | declared | error without it |",
        "|---|---|---|---|---|",
    ]
    for c in facts.constraints:
        pythons = str(c.pythons) if c.pythons is not None else "all"
        out.append(
            f"| `{c.releases}` | {pythons} | `{c.line}` | {_md(c.declared or '-')} "
            f"| {_md(c.error)} |"
        )
    out += [
        "",
        "## Runs",
        "",
        "| release | Python | plan | as declared | with constraints | ran with |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        versions = ", ".join(f"{k} {v}" for k, v in r.versions)
        bare = r.bare if r.error is None else f"{r.bare}: {_md(r.error)}"
        out.append(
            f"| {r.release} | {r.python} | {r.flavour} (`{r.distribution}`) | {bare} "
            f"| {r.constrained or '-'} | {versions} |"
        )
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


# -- running ------------------------------------------------------------------------------


@dataclass
class Run:
    outcome: str  # ran / broke / no-install
    output: str
    versions: dict[str, str]


class Runner:
    """Fresh venvs with uv, the child script, time limits."""

    def __init__(
        self,
        uv: str,
        interpreters: Mapping[str, str],
        work: Path,
        index_url: str,
        install_timeout: float = 900.0,
        child_timeout: float = 420.0,
    ) -> None:
        self.uv = uv
        self.interpreters = interpreters
        self.work = work
        self.index_url = index_url
        self.install_timeout = install_timeout
        self.child_timeout = child_timeout
        self.child = work / "runtime_sweep_child.py"
        work.mkdir(parents=True, exist_ok=True)
        self.child.write_text(CHILD, "utf-8")

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
        env.update(
            {
                "CUDA_VISIBLE_DEVICES": "",
                "TF_CPP_MIN_LOG_LEVEL": "2",
                "OMP_NUM_THREADS": "1",
                "TF_NUM_INTRAOP_THREADS": "1",
                "TF_NUM_INTEROP_THREADS": "1",
                "PYTHONNOUSERSITE": "1",
                "PYTHONDONTWRITEBYTECODE": "1",
            }
        )
        return env

    def try_plan(
        self, python: str, requirements: Sequence[str], exclude_newer: Optional[str] = None
    ) -> Run:
        folder = Path(tempfile.mkdtemp(prefix="sweep-", dir=self.work))
        try:
            venv = folder / "venv"
            made = self._uv(["venv", "-q", "--python", self.interpreters[python], str(venv)], 120)
            if made.returncode != 0:
                return Run("no-install", made.stdout, {})
            py = str(venv / "bin" / "python")
            cmd = ["pip", "install", "-q", "--python", py]
            if self.index_url:
                cmd += ["--default-index", self.index_url]
            if exclude_newer:
                cmd += ["--exclude-newer", exclude_newer]
            installed = self._uv([*cmd, *requirements], self.install_timeout)
            if installed.returncode != 0:
                return Run("no-install", installed.stdout, {})
            freeze = self._uv(["pip", "freeze", "--python", py], 120)
            versions = _parse_freeze(freeze.stdout)
            try:
                child = subprocess.run(
                    [py, str(self.child)],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    errors="replace",
                    timeout=self.child_timeout,
                    env=self._env(),
                    cwd=str(folder),
                    check=False,
                )
            except subprocess.TimeoutExpired:
                return Run(
                    "broke", f"TimeoutError: no result in {self.child_timeout:.0f} s", versions
                )
            ran = child.returncode == 0 and RAN_MARK in child.stdout
            return Run("ran" if ran else "broke", child.stdout, versions)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _uv(self, args: Sequence[str], timeout: float) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run(
                [self.uv, *args],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
                timeout=timeout,
                env=self._env(),
                check=False,
            )
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(args, 124, f"uv timed out after {timeout:.0f} s")

    def resolve(self, python: str, requirements: Sequence[str]) -> Optional[dict[str, str]]:
        """What the plan resolves to today for ``python`` on Linux x86_64, without installing."""
        cmd = ["pip", "compile", "-q", "--no-header", "--python-version", python]
        cmd += ["--python-platform", "x86_64-manylinux_2_28", "-"]
        if self.index_url:
            cmd[2:2] = ["--default-index", self.index_url]
        try:
            done = subprocess.run(
                [self.uv, *cmd],
                input="\n".join(requirements) + "\n",
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                timeout=300,
                env=self._env(),
                check=False,
            )
        except subprocess.TimeoutExpired:
            return None
        return _parse_freeze(done.stdout) if done.returncode == 0 else None


def _parse_freeze(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        name, sep, version = line.strip().partition("==")
        if sep and name and not name.startswith("#"):
            out[str(canonicalize_name(name))] = version.split()[0].split(";")[0]
    return out


# -- the sweep ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    release: str
    python: str
    flavour: str
    distribution: str
    uploaded: Optional[str]  # the date to install "as on release day" (exclude-newer)

    @property
    def line(self) -> str:
        return f"{self.distribution}=={self.release}"


class Sweep:
    def __init__(
        self, runner: Runner, files: Callable[[str], Sequence[Any]], log: Callable[[str], None]
    ) -> None:
        self.runner = runner
        self.files = files  # package -> its index files (IndexFile)
        self.log = log
        self.known: list[Finding] = []  # bounds found so far, tried first
        self.edges: set[tuple[str, str, str, str]] = set()  # (release, python, package, bound)
        self._fixed: Optional[tuple[list[str], Run]] = None  # the last known-fix run

    def cell(self, plan: Plan) -> Cell:
        start = time.monotonic()
        cell = Cell(plan.release, plan.python, plan.flavour, plan.distribution)
        cell.date = datetime.date.today().isoformat()
        bare = self.runner.try_plan(plan.python, [plan.line])
        cell.bare, cell.bare_versions = bare.outcome, bare.versions
        if bare.outcome != "ran":
            cell.error = first_error_line(bare.output)
        if bare.outcome == "broke":
            self._fix(plan, cell, bare)
        cell.seconds = round(time.monotonic() - start, 1)
        return cell

    def _fix(self, plan: Plan, cell: Cell, bare: Run) -> None:
        current, error = bare, first_error_line(bare.output)
        for _round in range(3):
            self._fixed = None
            finding = self._known_fix(plan, cell, current, error) or self._search(
                plan, cell, current, error
            )
            if finding is None:
                return
            # a tighter bound on a package already bounded replaces the looser one
            cell.findings = [f for f in cell.findings if f.package != finding.package]
            cell.findings.append(finding)
            if not any(_same_bound(k, finding) for k in self.known):
                self.known.append(finding)
            lines = [plan.line, *(f"{f.package}{f.requirement}" for f in cell.findings)]
            if self._fixed is not None and self._fixed[0] == lines:
                current = self._fixed[1]  # the run that showed the fix is this very plan
            else:
                current = self.runner.try_plan(plan.python, lines)
            cell.constrained, cell.constrained_versions = current.outcome, current.versions
            if current.outcome != "broke":
                cell.note = None
                return
            error = first_error_line(current.output)
            cell.note = f"with {', '.join(lines[1:])}: {error}"

    def _known_fix(self, plan: Plan, cell: Cell, current: Run, error: str) -> Optional[Finding]:
        """A bound found before that makes this error go away (and, once per release, Python
        and bound, whose edge still breaks here); the one with the same error first."""
        tried: set[tuple[str, str]] = set()
        for known in sorted(reversed(self.known), key=lambda k: not same_error(k.error, error)):
            key = (known.package, known.requirement)
            installed = current.versions.get(known.package)
            if key in tried or installed is None or _bounded_as(cell.findings, known):
                continue
            tried.add(key)
            if SpecifierSet(known.requirement).contains(installed, prereleases=True):
                continue
            lines = [plan.line, *(f"{f.package}{f.requirement}" for f in cell.findings)]
            with_it = [*lines, f"{known.package}{known.requirement}"]
            fixed = self.runner.try_plan(plan.python, with_it)
            self._fixed = (with_it, fixed)
            self.log(f"    known {known.package}{known.requirement}: {_outcome(fixed)}")
            if not _gone(fixed, error):
                continue
            good = Version(fixed.versions.get(known.package, known.good))
            edge = self._edge(known, plan.python)
            checked = (plan.release, plan.python, known.package, known.requirement)
            if edge is None or checked in self.edges:
                bad = str(edge) if edge is not None else installed
                return Finding(known.package, known.requirement, str(good), bad, error)
            probe = self.runner.try_plan(plan.python, [*lines, f"{known.package}=={edge}"])
            self.log(f"    edge {known.package}=={edge}: {_outcome(probe)}")
            if probe.outcome == "no-install":  # no edge to try: the bare run shows the bad one
                return Finding(known.package, known.requirement, str(good), installed, error)
            if not _gone(probe, error):
                self.edges.add(checked)
                return Finding(known.package, known.requirement, str(good), str(edge), error)
            return self._bisect(plan, known.package, good, Version(installed), error, lines)
        return None

    def _edge(self, known: Finding, python: str) -> Optional[Version]:
        """The oldest version the bound excludes that has a wheel for ``python``."""
        spec = SpecifierSet(known.requirement)
        versions = self._versions(known.package, python)
        excluded = [v for v in versions if not spec.contains(v)]
        return excluded[0] if excluded else None

    def _versions(self, package: str, python: str) -> tuple[Version, ...]:
        files = [f.filename for f in self.files(package) if not getattr(f, "yanked", False)]
        return versions_with_wheels(files, python)

    def _search(self, plan: Plan, cell: Cell, current: Run, error: str) -> Optional[Finding]:
        if plan.uploaded is None:
            cell.note = "no upload date: the release-day install cannot be made"
            return None
        day = (datetime.date.fromisoformat(plan.uploaded) + datetime.timedelta(days=2)).isoformat()
        lines = [plan.line, *(f"{f.package}{f.requirement}" for f in cell.findings)]
        then = self.runner.try_plan(plan.python, lines, exclude_newer=day)
        self.log(f"    release day ({day}): {then.outcome}")
        if then.outcome != "ran":
            cell.note = f"the release-day install ({day}) did not run either: {then.outcome}"
            return None
        differing = [
            p
            for p, v in current.versions.items()
            if then.versions.get(p) not in (None, v) and p not in (plan.distribution,)
        ]
        differing.sort(key=lambda p: (KEY_PACKAGES.index(p) if p in KEY_PACKAGES else 99, p))
        for package in differing[:8]:
            pin = f"{package}=={then.versions[package]}"
            fixed = self.runner.try_plan(plan.python, [*lines, pin])
            self.log(f"    suspect {pin}: {_outcome(fixed)}")
            if _gone(fixed, error):
                good, bad = Version(then.versions[package]), Version(current.versions[package])
                return self._bisect(plan, package, good, bad, error, lines)
        return self._search_together(plan, cell, current, then, differing[:8], error, lines, day)

    def _search_together(
        self,
        plan: Plan,
        cell: Cell,
        current: Run,
        then: Run,
        differing: Sequence[str],
        error: str,
        lines: Sequence[str],
        day: str,
    ) -> Optional[Finding]:
        """No single package pinned back to the release day made the plan run: the error
        needs several (2.14.0rc0 declares ``ml-dtypes>=0.2.0``, and neither NumPy 1.x nor an
        old ml-dtypes alone runs). Pin them back together, in the order tried, until it runs;
        drop each pin it runs without; the first package left is bisected with the others
        pinned back, and :meth:`_fix`'s next round finds the next bound with it in place."""
        pins: list[str] = []
        for package in differing:
            pins.append(f"{package}=={then.versions[package]}")
            run = self.runner.try_plan(plan.python, [*lines, *pins])
            self.log(f"    together {' '.join(pins)}: {_outcome(run)}")
            if _gone(run, error):
                break
        else:
            cell.note = f"no package pinned back to the release day ({day}) made it run"
            return None
        needed = list(pins)
        for pin in pins[:-1]:  # without the last one it did not run
            fewer = [p for p in needed if p != pin]
            run = self.runner.try_plan(plan.python, [*lines, *fewer])
            self.log(f"    without {pin}: {_outcome(run)}")
            if _gone(run, error):
                needed = fewer
        package = needed[0].split("==")[0]
        good, bad = Version(then.versions[package]), Version(current.versions[package])
        return self._bisect(plan, package, good, bad, error, [*lines, *needed[1:]])

    def _bisect(
        self,
        plan: Plan,
        package: str,
        good: Version,
        bad: Version,
        error: str,
        lines: Sequence[str],
    ) -> Finding:
        pool = [v for v in self._versions(package, plan.python) if good < v < bad]
        pool = [good, *pool, bad]

        def probe(version: Version) -> Optional[bool]:
            run = self.runner.try_plan(plan.python, [*lines, f"{package}=={version}"])
            self.log(f"    bisect {package}=={version}: {_outcome(run)}")
            return None if run.outcome == "no-install" else _gone(run, error)

        last_good, first_bad = bisect_first_bad(pool, probe)
        self.edges.add((plan.release, plan.python, package, simplest_bound(last_good, first_bad)))
        return Finding(
            package, simplest_bound(last_good, first_bad), str(last_good), str(first_bad), error
        )


def _gone(run: Run, error: str) -> bool:
    """Whether ``error`` is gone in ``run``: it ran, or it broke with another error."""
    if run.outcome == "ran":
        return True
    return run.outcome == "broke" and not same_error(first_error_line(run.output), error)


def same_error(one: str, other: str) -> bool:
    """Whether two error lines are the same failure: the exception and the first two words
    of its message, digits aside (protobuf words one message "cannot not be created" in some
    versions and "cannot be created" in others)."""
    return _signature(one) == _signature(other)


def _signature(line: str) -> tuple[str, ...]:
    kind, _sep, message = line.partition(":")
    words = re.sub(r"\d+", "N", message).split()[:2]
    return (kind.strip(), *words)


def _outcome(run: Run) -> str:
    return run.outcome if run.outcome == "ran" else f"{run.outcome}: {first_error_line(run.output)}"


def _same_bound(one: Finding, other: Finding) -> bool:
    return (one.package, one.requirement) == (other.package, other.requirement)


def _bounded_as(findings: Sequence[Finding], known: Finding) -> bool:
    """Whether ``findings`` already bound ``known``'s package at least as tightly (they
    exclude the version ``known`` was found to break on): a package bounded at ``<2.9``
    may still need a known ``<2.7``, which another error shows."""
    return any(
        f.package == known.package
        and not SpecifierSet(f.requirement).contains(Version(known.bad), prereleases=True)
        for f in findings
    )


# -- the command --------------------------------------------------------------------------


def interpreters(root: Path) -> dict[str, str]:
    """X.Y -> the pyenv interpreter for 3.6-3.13 found under ``root``."""
    found: dict[str, str] = {}
    if not root.is_dir():
        return found
    for entry in sorted(root.iterdir()):
        try:
            version = Version(entry.name)
        except InvalidVersion:
            continue
        xy = f"{version.major}.{version.minor}"
        exe = entry / "bin" / f"python{xy}"
        if (3, 6) <= (version.major, version.minor) <= (3, 13) and exe.is_file():
            found[xy] = str(exe)
    return found


def release_infos(kb: Any) -> dict[str, ReleaseInfo]:
    out = {}
    for release in kb.index.releases("tensorflow"):
        if release.version < Version("2.0") or release.yanked:
            continue
        wheels = release.wheelset("linux_x86_64")
        if wheels is None:
            continue
        requires = {}
        for py in wheels.pythons:
            served = wheels.for_python(py)
            requires[py] = tuple(served.requires) if served is not None else tuple(wheels.requires)
        out[str(release.version)] = ReleaseInfo(release.version, requires, release.uploaded)
    return out


def plans_for(
    kb: Any,
    infos: Mapping[str, ReleaseInfo],
    available: Mapping[str, str],
    every_python: bool,
    flavours: Sequence[str],
    cpu_files: Sequence[Any],
    only: Optional[SpecifierSet],
) -> list[Plan]:
    """Every cell: the newest release of each minor series first, then the first (x.y.0,
    which often declares other bounds), then the others; within each, every release's newest
    Python before its oldest (the failing classes show there first), oldest releases first."""
    finals: dict[tuple[int, int], list[Version]] = {}
    for info in infos.values():
        v = info.version
        if not v.is_prerelease:
            finals.setdefault((v.major, v.minor), []).append(v)
    plans: list[tuple[tuple[int, int, Version, int], Plan]] = []
    for key, info in infos.items():
        v = info.version
        if only is not None and not only.contains(v, prereleases=True):
            continue
        series = finals.get((v.major, v.minor), [])
        group = 0 if series and v == max(series) else 1 if series and v == min(series) else 2
        pythons = pick_pythons(info.requires, available, every_python)
        for python in pythons:
            for flavour in flavours:
                dist = _distribution(kb, v, python, flavour, cpu_files)
                plan = Plan(key, python, flavour, dist, info.uploaded)
                rank = 0 if python == pythons[-1] else 1
                plans.append(((group, rank, v, FLAVOURS.index(flavour)), plan))
    return [p for _k, p in sorted(plans, key=lambda kp: kp[0])]


def _distribution(
    kb: Any, version: Version, python: str, flavour: str, cpu_files: Sequence[Any]
) -> str:
    if flavour == "gpu":
        build = kb.builds.for_version(version)
        return str(build.gpu_package) if build is not None else "tensorflow"
    wanted = [
        f.filename
        for f in cpu_files
        if f.filename.endswith(".whl") and parse_wheel_filename(f.filename)[1] == version
    ]
    return "tensorflow-cpu" if any(wheel_serves(n, python) for n in wanted) else "tensorflow"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--all-pythons", action="store_true", help="every Python, not only the oldest and newest"
    )
    parser.add_argument(
        "--releases", help="only releases matching this specifier (e.g. '>=2.10,<2.12')"
    )
    parser.add_argument("--flavours", default="gpu,cpu", help="gpu, cpu or both (default)")
    parser.add_argument(
        "--state", type=Path, default=STATE_FILE, help="the cells' results (default: %(default)s)"
    )
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "tfenv-runtime-sweep"
    )
    parser.add_argument("--pyenv", type=Path, default=Path.home() / ".pyenv" / "versions")
    parser.add_argument(
        "--index-url", help="the package index (default: pip's and uv's configuration)"
    )
    parser.add_argument(
        "--budget-minutes", type=float, help="stop starting new cells after this long"
    )
    parser.add_argument(
        "--uv-cache", type=Path, help="uv's cache for the sweep alone (default: uv's own)"
    )
    parser.add_argument(
        "--min-free-gb",
        type=float,
        default=20.0,
        help="empty --uv-cache between cells when less disk than this is free (default 20)",
    )
    parser.add_argument(
        "--check", action="store_true", help="only report what would change (exit 1 on drift)"
    )
    parser.add_argument(
        "--new-only",
        action="store_true",
        help="sweep only the cells the state lacks (skip resolving the others again for drift)",
    )
    parser.add_argument(
        "--write-only", action="store_true", help="write the data file and docs from the state"
    )
    parser.add_argument("--data", type=Path, default=DATA_FILE)
    parser.add_argument("--doc", type=Path, default=DOC_FILE)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)

    from tfenv.index_url import configured_index_url
    from tfenv.kb import KnowledgeBase

    kb = KnowledgeBase.from_environment()
    infos = release_infos(kb)
    state = load_state(args.state)
    command = "python " + TOOL + (" --all-pythons" if args.all_pythons else "")
    if args.write_only:
        return _write(args, state, infos, command)
    flavours = [f.strip() for f in args.flavours.split(",") if f.strip()]
    if any(f not in FLAVOURS for f in flavours):
        parser.error(f"--flavours takes gpu and/or cpu, not {args.flavours!r}")
    only = SpecifierSet(args.releases) if args.releases else None
    index_url = configured_index_url(args.index_url)[0]
    files = _IndexFiles(index_url)
    available = interpreters(args.pyenv)
    if not available:
        print(f"No Python 3.6-3.13 interpreters under {args.pyenv}.", file=sys.stderr)
        return 2
    plans = plans_for(
        kb, infos, available, args.all_pythons, flavours, files("tensorflow-cpu"), only
    )
    if args.uv_cache is not None:
        os.environ["UV_CACHE_DIR"] = str(args.uv_cache)
    runner = Runner(_uv_binary(), available, args.work, index_url)
    todo = _todo(plans, state, runner, drift=not args.new_only)
    if args.check:
        for plan, why in todo:
            print(f"{plan.line} on Python {plan.python} ({plan.flavour}): {why}")
        print(f"{len(todo)} of {len(plans)} runs would change.")
        return 1 if todo else 0
    _run_all(Sweep(runner, files, lambda line: print(line, flush=True)), todo, state, args)
    return _write(args, state, infos, command)


def _todo(
    plans: Sequence[Plan], state: Mapping[str, Cell], runner: Runner, drift: bool = True
) -> list[tuple[Plan, str]]:
    """The cells to run: those not in the state, and (``drift``) those that resolve to other
    versions today than when they ran."""
    todo = []
    for plan in plans:
        old = state.get(f"{plan.release}|{plan.python}|{plan.flavour}")
        if old is None or old.distribution != plan.distribution:
            todo.append((plan, "new"))
            continue
        if not drift:
            continue
        today = runner.resolve(plan.python, [plan.line])
        if today is not None and _drifted(old.bare_versions, today):
            todo.append((plan, "resolves to " + _diff(old.bare_versions, today)))
    return todo


def _run_all(
    sweep: Sweep,
    todo: Sequence[tuple[Plan, str]],
    state: dict[str, Cell],
    args: argparse.Namespace,
) -> None:
    for cell in sorted(state.values(), key=_cell_order):
        for finding in cell.findings:
            if not any(_same_bound(k, finding) for k in sweep.known):
                sweep.known.append(finding)
    start = time.monotonic()
    for n, (plan, why) in enumerate(todo, 1):
        if args.budget_minutes is not None and time.monotonic() - start > args.budget_minutes * 60:
            print(f"Budget spent: {len(todo) - n + 1} runs left for the next run.", flush=True)
            break
        print(f"[{n}/{len(todo)}] {plan.line} py{plan.python} {plan.flavour} ({why})", flush=True)
        old = state.get(f"{plan.release}|{plan.python}|{plan.flavour}")
        cell = sweep.cell(plan)
        print(f"  -> {_summary(cell)}", flush=True)
        if old is not None and _summary(old) != _summary(cell):
            print(f"  changed: was {_summary(old)}", flush=True)
        state[cell.key] = cell
        save_state(args.state, state)
        _keep_disk(args)


def _keep_disk(args: argparse.Namespace) -> None:
    """Empty the sweep's own uv cache when the disk runs short (uv's shared one is left)."""
    cache = args.uv_cache
    if cache is None or not cache.exists():
        return
    if shutil.disk_usage(cache).free < args.min_free_gb * 2**30:
        print(f"  (emptying {cache}: less than {args.min_free_gb:g} GB free)", flush=True)
        shutil.rmtree(cache, ignore_errors=True)


def _drifted(recorded: Mapping[str, str], today: Mapping[str, str]) -> bool:
    return any(recorded.get(p) != v for p, v in today.items())


def _diff(recorded: Mapping[str, str], today: Mapping[str, str]) -> str:
    changed = [
        f"{p} {recorded.get(p, '-')} -> {v}"
        for p, v in sorted(today.items())
        if recorded.get(p) != v
    ]
    return ", ".join(changed[:6])


def _summary(cell: Cell) -> str:
    text = cell.bare if cell.error is None else f"{cell.bare}: {cell.error}"
    if cell.findings:
        bounds = ", ".join(f"{f.package}{f.requirement}" for f in cell.findings)
        text += f"; with {bounds}: {cell.constrained}"
    if cell.note:
        text += f" ({cell.note})"
    return text


def _write(
    args: argparse.Namespace,
    state: Mapping[str, Cell],
    infos: Mapping[str, ReleaseInfo],
    command: str,
) -> int:
    from tfenv.fsutil import atomic_write
    from tfenv.kb.runtime import load

    cells = [c for c in state.values() if c.release in infos]
    text = render_yaml(cells, infos, command)
    atomic_write(args.data, text)
    load.cache_clear()
    facts = load(_data_root(args.data))  # the file as tfenv reads it: checked before the docs
    atomic_write(args.doc, render_doc(facts))
    ran = sum(1 for c in cells if c.bare == "ran")
    fixed = sum(1 for c in cells if (c.constrained or c.bare) == "ran")
    total = len(cells)
    print(f"Wrote {args.data} and {args.doc}: {ran}/{total} runs as declared, {fixed}/{total}")
    print("with the constraints applied.")
    return 0


def _data_root(data: Path) -> Path:
    return data.parent.parent


def _uv_binary() -> str:
    import uv

    return str(uv.find_uv_bin())


class _IndexFiles:
    """Project pages of the configured index, read once each."""

    def __init__(self, index_url: str) -> None:
        self.index_url = index_url
        self._pages: dict[str, Sequence[Any]] = {}
        self._index: Any = None

    def __call__(self, package: str) -> Sequence[Any]:
        if package not in self._pages:
            if self._index is None:
                from tfenv.refresh import make_client
                from tfenv.refresh.simple_api import SimpleIndex

                self._index = SimpleIndex(make_client(60.0), self.index_url)
            self._pages[package] = self._index.project(package) or []
        return self._pages[package]


if __name__ == "__main__":
    sys.exit(main())
