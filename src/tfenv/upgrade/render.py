"""``check-upgrade`` output: a table per target for people, Markdown for a PR comment, JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from tfenv.i18n import N_, _
from tfenv.upgrade.model import TargetReport, UpgradeFinding, UpgradeReport

__all__ = ["short_source", "to_json", "to_markdown", "to_text"]

# the words of the severities and statuses (the JSON keeps the codes: blocker, blocked)
_MARK = {"blocker": N_("BLOCKER"), "warning": N_("WARNING"), "info": N_("info")}
_STANDING = N_("standing conditions (the same before and after the move; not changes)")
_STATUS = {
    "blocked": N_("BLOCKED"),
    "warnings": N_("works, with warnings"),
    "safe": N_("safe"),
    "held": N_("held by the team"),
}


def _mark(severity: str) -> str:
    return _(_MARK[severity])


def _status(status: str) -> str:
    return _(_STATUS[status])


def to_json(report: UpgradeReport, strict: bool = False) -> str:
    return json.dumps(report.to_dict(strict), indent=2, sort_keys=False) + "\n"


def _verdict(report: UpgradeReport, strict: bool) -> str:
    return _move_verdict(report, strict) + _standing_note(report) + _held_note(report)


def _move_verdict(report: UpgradeReport, strict: bool) -> str:
    if report.blocked:
        names = ", ".join(t.name for t in report.targets if t.status == "blocked")
        return _("Not safe: blocked on {targets}.").format(targets=names)
    held = any(t.held for t in report.targets)
    if report.warned:
        if strict:
            if held:
                return _("Works on every target that moves, with warnings (--strict: fails).")
            return _("Works everywhere, with warnings (--strict: fails).")
        if held:
            return _("Works on every target that moves, with warnings.")
        return _("Works everywhere, with warnings.")
    if held:
        return _("Safe on every target that moves.")
    return _("Safe on every target.")


def _held_note(report: UpgradeReport) -> str:
    names = ", ".join(t.name for t in report.targets if t.held)
    if not names:
        return ""
    # TRANSLATORS: follows the verdict in the same paragraph (the leading space included)
    return _(
        " Held by the team on a TensorFlow of their own, not moving and not checked: {targets}."
    ).format(targets=names)


def _standing_note(report: UpgradeReport) -> str:
    names = ", ".join(t.name for t in report.targets if t.standing)
    if not names:
        return ""
    # TRANSLATORS: follows the verdict in the same paragraph (the leading space included)
    return _(
        " Standing conditions on {targets} hold before and after alike: not changes (their "
        "warnings do not fail --strict)."
    ).format(targets=names)


# -- text ------------------------------------------------------------------------------


def _heading(report: UpgradeReport) -> str:
    fields = {"from_version": report.from_text, "to_version": report.to_text}
    if report.direction == "downgrade":
        return _("check-upgrade: downgrade from {from_version} to {to_version}").format(**fields)
    if report.direction == "upgrade":
        return _("check-upgrade: upgrade from {from_version} to {to_version}").format(**fields)
    return _("check-upgrade: same from {from_version} to {to_version}").format(**fields)


def _markdown_heading(report: UpgradeReport) -> str:
    fields = {"from_version": report.from_text, "to_version": report.to_text}
    if report.direction == "downgrade":
        return _("TensorFlow downgrade: {from_version} → {to_version}").format(**fields)
    if report.direction == "upgrade":
        return _("TensorFlow upgrade: {from_version} → {to_version}").format(**fields)
    return _("TensorFlow same: {from_version} → {to_version}").format(**fields)


def to_text(report: UpgradeReport, strict: bool = False) -> str:
    lines = [_heading(report), ""]
    for t in report.targets:
        lines += _target_text(t)
    lines += ["  " + _("note: {note}").format(note=n) for n in report.notes]
    lines.append(_verdict(report, strict))
    return "\n".join(lines) + "\n"


def _target_text(t: TargetReport) -> list[str]:
    head = f"== {t.name}: {t.from_version} -> {t.to_version}  [{_status(t.status)}]"
    out = [head, f"   {t.machine}"]
    if t.held is not None:
        return [*out, "   " + t.held.sentence, ""]  # one line, as every finding's
    if not t.resolves:
        out.append(
            "   " + _("TensorFlow {version} does not resolve here.").format(version=t.to_version)
        )
    rows = [(_mark(f.severity), f.kind, f.summary, f.fix, _src(f)) for f in t.findings]
    if rows:
        out += _table((_("severity"), _("kind"), _("what changes")), rows)
    else:
        out.append("   " + _("nothing that matters changes"))
    if t.standing:
        out.append("   " + _("{standing}:").format(standing=_(_STANDING)))
        rows = [(_mark(f.severity), f.kind, f.summary, f.fix, _src(f)) for f in t.standing]
        out += _table((_("severity"), _("kind"), _("what holds")), rows)
    if t.packages:
        out.append("   " + _("packages ({basis}):").format(basis=t.packages_basis))
        for p in t.packages:
            out.append(f"     {_package_line(p.change, p.name, p.old, p.new)}  ({p.why})")
    out.append("")
    return out


def _src(f: UpgradeFinding) -> str:
    text = "; ".join(short_source(s) for s in f.sources) if f.sources else "-"
    return f"[{f.ref}] {text}" if f.ref else text


_SHA = re.compile(r"\s*\(sha256 [0-9a-f]{64}\)")
_FILE_URL = re.compile(r"pypi-files:/packages/(?:[0-9a-f]+/)+(?P<file>[^/\s]+)")
_DIST = re.compile(r"(?<![\w.-])(?P<file>[A-Za-z0-9_.-]+?-[0-9][^\s/:]*?\.(?:whl|tar\.gz|zip))\b")
_SIMPLE = re.compile(
    r"(?:pypi-)?(?:simple|json):/(?P<name>[^/\s]+)/(?:json)?(?:\s*\(PEP 691 JSON\))?"
)
_COMMIT = re.compile(r" @ (?P<sha>[0-9a-f]{7})[0-9a-f]{33}\b")
_GITHUB = re.compile(
    r"https://github\.com/(?P<repo>[\w.-]+/[\w.-]+)/"
    r"(?:(?:issues|pull)/(?P<num>\d+)|releases/tag/(?P<tag>[\w.-]+))/?(?=\s|$|[),;])"
)
_MAX = 120


def short_source(source: str) -> str:
    """A source as a reader wants it in a table: a wheel's name and version instead of its
    index path and digest (``pypi-files:/packages/43/fb/.../tensorflow-2.20.0-cp313-...whl
    (sha256 ...) METADATA`` -> ``tensorflow 2.20.0 wheel METADATA``), ``owner/repo#123`` for
    GitHub issues and pull requests, ``owner/repo release v2.16.1``, commits cut to 7 hex
    digits, at most 120 characters. The full source stays in ``--json``."""
    text = _SHA.sub("", source)
    text = _FILE_URL.sub(lambda m: m.group("file"), text)
    text = _DIST.sub(lambda m: _dist_name(m.group("file")), text)
    text = _SIMPLE.sub(lambda m: f"{m.group('name')} on the index", text)
    text = _COMMIT.sub(lambda m: f" @ {m.group('sha')}", text)
    text = _GITHUB.sub(_github_name, text)
    text = " ".join(text.split())
    return text if len(text) <= _MAX else text[: _MAX - 3].rstrip() + "..."


def _dist_name(file: str) -> str:
    from packaging.utils import (
        InvalidSdistFilename,
        InvalidWheelFilename,
        parse_sdist_filename,
        parse_wheel_filename,
    )

    try:
        if file.endswith(".whl"):
            name, version, _build, tags = parse_wheel_filename(file)
            where = _wheel_platform(sorted(t.platform for t in tags)[0])
            return f"{name} {version} wheel" + (f" ({where})" if where else "")
        name, version = parse_sdist_filename(file)
        return f"{name} {version} sdist"
    except (InvalidWheelFilename, InvalidSdistFilename):
        return file


def _wheel_platform(tag: str) -> str:
    """``manylinux_2_17_x86_64`` -> ``linux x86_64``; ``any`` -> ``""``."""
    for prefix, system in (
        ("manylinux", "linux"),
        ("musllinux", "linux"),
        ("linux", "linux"),
        ("macosx", "macos"),
        ("win", "windows"),
    ):
        if tag.startswith(prefix):
            arch = (
                tag.split("_", 1)[1] if prefix == "win" else re.sub(r"^[a-z]+\d*(_\d+)*_", "", tag)
            )
            return f"{system} {'x86_64' if arch == 'amd64' else arch}"
    return ""


def _github_name(m: re.Match[str]) -> str:
    if m.group("num"):
        return f"{m.group('repo')}#{m.group('num')}"
    return _("{repo} release {tag}").format(repo=m.group("repo"), tag=m.group("tag"))


def _table(head: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [_width(h) for h in head[:2]]
    for row in rows:
        widths = [max(w, _width(c)) for w, c in zip(widths, row[:2])]
    out = ["   " + "  ".join(_pad(h, w) for h, w in zip(head[:2], widths)) + "  " + head[2]]
    for row in rows:
        lead = "   " + "  ".join(_pad(c, w) for c, w in zip(row[:2], widths)) + "  "
        pad = " " * _width(lead)
        out.append(lead + row[2])
        out.append(pad + _("fix: {fix}").format(fix=row[3]))
        out.append(pad + _("source: {source}").format(source=row[4]))
    return out


def _width(text: str) -> int:
    """Columns on a terminal: a Chinese character takes two."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def _package_line(change: str, name: str, old: object, new: object) -> str:
    if change == "added":
        return f"+ {name} {new}"
    if change == "removed":
        return f"- {name} {old}"
    return f"~ {name} {old} -> {new}"


# -- Markdown --------------------------------------------------------------------------


def to_markdown(report: UpgradeReport, strict: bool = False) -> str:
    """For a pull-request comment: paths below the configuration's folder are shown
    relative to it (a runner's checkout path means nothing to a reader)."""
    icon = "❌" if report.blocked else ("⚠️" if report.warned else "✅")
    text = _markdown(report, strict, icon)
    return relative_paths(text, report.folder) if report.folder else text


def relative_paths(text: str, folder: str) -> str:
    """``text`` with every path below ``folder`` written relative to it."""
    import os

    out = text
    for base in dict.fromkeys((folder, os.path.realpath(folder), os.path.abspath(folder))):
        base = base.rstrip("/\\")
        if base and base not in (".", "/"):
            out = re.sub(re.escape(base) + r"[/\\](?=[^\s/\\])", "", out)
    return out


def _markdown(report: UpgradeReport, strict: bool, icon: str) -> str:
    lines = [
        f"### {icon} " + _markdown_heading(report),
        "",
        f"**{_verdict(report, strict)}**",
        "",
        _("| target | from | to | status | blockers | warnings |"),
        "|---|---|---|---|---|---|",
    ]
    for t in report.targets:
        counts = "- | -" if t.held else f"{t.count('blocker')} | {t.count('warning')}"
        lines.append(
            f"| {t.name} | {t.from_version} | {t.to_version} | {_status(t.status)} | {counts} |"
        )
    for t in report.targets:
        lines += _target_markdown(t)
    lines += [f"> {n}" for n in report.notes]
    return "\n".join(lines) + "\n"


def _target_markdown(t: TargetReport) -> list[str]:
    out = ["", f"#### {t.name} ({_status(t.status)})", "", f"_{_md(t.machine)}_", ""]
    if t.held is not None:
        return [*out, t.held.sentence]
    if t.findings:
        out += [_("| severity | kind | what changes | fix | source |"), "|---|---|---|---|---|"]
        out += [
            f"| {_mark(f.severity)} | {f.kind} | {_md(f.summary)} | {_md(f.fix)} | {_md(_src(f))} |"
            for f in t.findings
        ]
    else:
        out.append(_("Nothing that matters changes."))
    if t.standing:
        out += [
            "",
            "_" + _("Standing conditions (the same before and after the move; not changes):") + "_",
            "",
        ]
        out += [_("| severity | kind | what holds | fix | source |"), "|---|---|---|---|---|"]
        out += [
            f"| {_mark(f.severity)} | {f.kind} | {_md(f.summary)} | {_md(f.fix)} | {_md(_src(f))} |"
            for f in t.standing
        ]
    if t.packages:
        out += [
            "",
            "<details><summary>" + _("Package changes") + "</summary>",
            "",
            f"_{_md(t.packages_basis or '')}_",
            "",
        ]
        out += [
            f"- `{_package_line(p.change, p.name, p.old, p.new)}` ({_md(p.why)})"
            for p in t.packages
        ]
        out += ["", "</details>"]
    return out


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
