"""``check-upgrade`` output: a table per target for people, Markdown for a PR comment, JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tfenv.upgrade.model import TargetReport, UpgradeFinding, UpgradeReport

__all__ = ["to_json", "to_markdown", "to_text"]

_MARK = {"blocker": "BLOCKER", "warning": "WARNING", "info": "info"}
_STATUS = {"blocked": "BLOCKED", "warnings": "works, with warnings", "safe": "safe"}


def to_json(report: UpgradeReport, strict: bool = False) -> str:
    return json.dumps(report.to_dict(strict), indent=2, sort_keys=False) + "\n"


def _verdict(report: UpgradeReport, strict: bool) -> str:
    if report.blocked:
        names = ", ".join(t.name for t in report.targets if t.status == "blocked")
        return f"Not safe: blocked on {names}."
    if report.warned:
        return "Works everywhere, with warnings" + (" (--strict: fails)." if strict else ".")
    return "Safe on every target."


# -- text ------------------------------------------------------------------------------


def to_text(report: UpgradeReport, strict: bool = False) -> str:
    lines = [f"check-upgrade: {report.direction} from {report.from_text} to {report.to_text}", ""]
    for t in report.targets:
        lines += _target_text(t)
    lines += [f"  note: {n}" for n in report.notes]
    lines.append(_verdict(report, strict))
    return "\n".join(lines) + "\n"


def _target_text(t: TargetReport) -> list[str]:
    head = f"== {t.name}: {t.from_version} -> {t.to_version}  [{_STATUS[t.status]}]"
    out = [head, f"   {t.machine}"]
    if not t.resolves:
        out.append(f"   TensorFlow {t.to_version} does not resolve here.")
    rows = [(_MARK[f.severity], f.kind, f.summary, f.fix, _src(f)) for f in t.findings]
    if rows:
        out += _table(("severity", "kind", "what changes", "fix", "source"), rows)
    else:
        out.append("   nothing that matters changes")
    if t.packages:
        out.append(f"   packages ({t.packages_basis}):")
        for p in t.packages:
            out.append(f"     {_package_line(p.change, p.name, p.old, p.new)}  ({p.why})")
    out.append("")
    return out


def _src(f: UpgradeFinding) -> str:
    text = "; ".join(f.sources) if f.sources else "-"
    return f"[{f.ref}] {text}" if f.ref else text


def _table(head: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [len(h) for h in head[:2]]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row[:2])]
    out = ["   " + "  ".join(h.ljust(w) for h, w in zip(head[:2], widths)) + "  " + head[2]]
    for row in rows:
        lead = "   " + "  ".join(c.ljust(w) for c, w in zip(row[:2], widths)) + "  "
        pad = " " * len(lead)
        out.append(lead + row[2])
        out.append(f"{pad}fix: {row[3]}")
        out.append(f"{pad}source: {row[4]}")
    return out


def _package_line(change: str, name: str, old: object, new: object) -> str:
    if change == "added":
        return f"+ {name} {new}"
    if change == "removed":
        return f"- {name} {old}"
    return f"~ {name} {old} -> {new}"


# -- Markdown --------------------------------------------------------------------------


def to_markdown(report: UpgradeReport, strict: bool = False) -> str:
    icon = "❌" if report.blocked else ("⚠️" if report.warned else "✅")
    lines = [
        f"### {icon} TensorFlow {report.direction}: {report.from_text} → {report.to_text}",
        "",
        f"**{_verdict(report, strict)}**",
        "",
        "| target | from | to | status | blockers | warnings |",
        "|---|---|---|---|---|---|",
    ]
    for t in report.targets:
        lines.append(
            f"| {t.name} | {t.from_version} | {t.to_version} | {_STATUS[t.status]} | "
            f"{t.count('blocker')} | {t.count('warning')} |"
        )
    for t in report.targets:
        lines += _target_markdown(t)
    lines += [f"> {n}" for n in report.notes]
    return "\n".join(lines) + "\n"


def _target_markdown(t: TargetReport) -> list[str]:
    out = ["", f"#### {t.name} ({_STATUS[t.status]})", "", f"_{_md(t.machine)}_", ""]
    if t.findings:
        out += ["| severity | kind | what changes | fix | source |", "|---|---|---|---|---|"]
        out += [
            f"| {_MARK[f.severity]} | {f.kind} | {_md(f.summary)} | {_md(f.fix)} | {_md(_src(f))} |"
            for f in t.findings
        ]
    else:
        out.append("Nothing that matters changes.")
    if t.packages:
        out += [
            "",
            "<details><summary>Package changes</summary>",
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
