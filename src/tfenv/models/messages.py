"""The one place that words structured answers: conflicts, ways out, team blockers.

Every sentence is a whole-sentence template with named placeholders, keyed by a message id
(:data:`TEMPLATES`). :func:`template` is the only lookup: it gives the template in the
current language (the English template is the gettext message id, :mod:`tfenv.i18n`).
The values put into the placeholders (a rule's heading, a requirement's text, a release's
label) come worded from the rules and the knowledge base.

Nothing here imports any other part of tfenv but :mod:`tfenv.models` and :mod:`tfenv.i18n`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tfenv.i18n import N_, _, language

if TYPE_CHECKING:
    from tfenv.models.conflict import Conflict, Skipped, Suggestion

__all__ = [
    "TEMPLATES",
    "conflict_sentence",
    "failure_sentence",
    "render",
    "sentences",
    "skipped_sentence",
    "suggestion_sentence",
    "template",
]

TEMPLATES: Mapping[str, str] = {
    # conflicts: a rule a TensorFlow release fails (the newest, then how many older ones)
    "conflict.release": N_("{topic}: {release} needs {requirement}."),
    "conflict.release+fact": N_("{topic}: {release} needs {requirement}, but {fact}."),
    "conflict.release+older-one": N_(
        "{topic}: {release} needs {requirement}; the older release {older} fails the same way."
    ),
    "conflict.release+older-one+fact": N_(
        "{topic}: {release} needs {requirement}; the older release {older} fails the same "
        "way, but {fact}."
    ),
    "conflict.release+older-many": N_(
        "{topic}: {release} needs {requirement}; {count} older releases ({first} to {last}) "
        "fail the same way."
    ),
    "conflict.release+older-many+fact": N_(
        "{topic}: {release} needs {requirement}; {count} older releases ({first} to {last}) "
        "fail the same way, but {fact}."
    ),
    # conflicts the request itself places (no release carries them)
    "conflict.request": N_("{topic}: {requirements}."),
    "conflict.no-release": N_(
        "No TensorFlow release matching '{request}' is a candidate for {platform}."
    ),
    "conflict.only-prereleases": N_(
        "Only pre-releases match '{request}': pass --pre to consider them."
    ),
    # a rule one release fails (check-upgrade's findings), without the rule's heading
    "failure.needs": N_("{release} needs {requirement}"),
    "failure.needs+fact": N_("{release} needs {requirement}, but {fact}"),
    # an ok plan: why each newer series (or Python) was not taken (resolver/skipped.py)
    "skipped.tensorflow": N_("{name}: {reasons}."),
    "skipped.tensorflow+range": N_("{oldest} to {name}: {reasons}."),
    "skipped.python": N_("Python {name}: {reasons}."),
    "skipped.also": N_("{reason} (also: {topics})"),
    # where a fact of the target comes from
    "fact.detected": N_("{fact} (detected)"),
    "fact.given": N_("{fact} (given)"),
    # ways out (resolver/suggest.py)
    "way-out.pre": N_(
        "Only a pre-release fits this machine: TensorFlow {tensorflow}, which tfenv and pip "
        "take only when asked (--pre): {command}."
    ),
    "way-out.other-tf": N_(
        "TensorFlow {tensorflow} fits this machine (the newest that does): {command}."
    ),
    "way-out.newer-driver": N_(
        "Install an NVIDIA driver >= {min_driver} (this machine has {driver}): "
        "then TensorFlow {tensorflow} with CUDA {cuda} fits."
    ),
    "way-out.wsl2": N_(
        "Use WSL2: TensorFlow {tensorflow} runs there on the GPU with the Linux wheels and "
        "the Windows driver (driver >= {min_driver}): {command}."
    ),
    "way-out.python": N_(
        "Use Python {python} instead of {current}: TensorFlow {tensorflow} has wheels for it: "
        "{command}."
    ),
    "way-out.cpu": N_(
        "Accept a CPU-only plan with --allow-cpu: TensorFlow {tensorflow} installs but will "
        "not use the GPU: {command}."
    ),
    "way-out.manager": N_(
        "Use --manager {manager}: route {route} gives TensorFlow {tensorflow} with Python "
        "{python}: {command}."
    ),
    "way-out.image-driver": N_(
        "Install an NVIDIA driver of branch {branch} (this machine has {driver}; the lowest "
        "newer branch that TensorFlow {tensorflow} and {image} accept: the image's "
        "NVIDIA_REQUIRE_CUDA lists only some branches)."
    ),
    "way-out.image-driver+floor": N_(
        "Install an NVIDIA driver of branch {branch} (>= {floor}) (this machine has {driver}; "
        "the lowest newer branch that TensorFlow {tensorflow} and {image} accept: the image's "
        "NVIDIA_REQUIRE_CUDA lists only some branches)."
    ),
    "way-out.ngc-gpu": N_(
        "Use NVIDIA's NGC container {image}: its build of TensorFlow {tensorflow} supports "
        "this GPU, which the official wheels have no code for (what it carries: {status}; "
        "its GPU support: {how}): {command}."
    ),
    "way-out.ngc-gpu+last": N_(
        "Use NVIDIA's NGC container {image} (the last NGC TensorFlow release): its build of "
        "TensorFlow {tensorflow} supports this GPU, which the official wheels have no code "
        "for (what it carries: {status}; its GPU support: {how}): {command}."
    ),
    "way-out.ngc-cudnn": N_(
        "Use NVIDIA's NGC container {image}: its TensorFlow {tensorflow} comes with cuDNN "
        "{cudnn} and CUDA {cuda}, which run on this GPU, while no pip or conda route has a "
        "cuDNN that has code for it (what it carries: {status}; its GPU support: {how}): "
        "{command}."
    ),
    "way-out.arm-container": N_(
        "Use a container: NVIDIA's NGC TensorFlow images have Arm server (SBSA) builds, e.g. "
        "{image} ({cuda}{floor}; {source}); run it with the NVIDIA Container Toolkit "
        "(docker run --gpus all)."
    ),
    "way-out.arm-container-none": N_(
        "No NGC TensorFlow image recorded here for Arm server (SBSA) serves compute capability "
        "{cc}: the one recorded, {image}, has CUDA {cuda}, which predates the GPU{since}; "
        "whether later NGC TensorFlow releases (the last is {last}) have Arm builds is not "
        "known here ({source})."
    ),
    "way-out.arm-container.cuda": N_("CUDA {cuda}"),
    "way-out.arm-container.no-cuda": N_("CUDA not recorded"),
    "way-out.arm-container.floor": N_(", host driver >= {min_driver}"),
    "way-out.matrix": N_(
        "Run 'tfenv matrix' to see which TensorFlow releases support {platform}, and check "
        "the facts given for this machine."
    ),
    "way-out.conda-forge-cpu": N_(
        "conda-forge has CPU-only builds of TensorFlow {tensorflow} for {subdir} (Python "
        "{pythons}, {floor}builds {builds}; a release state of its recipe, the upload not "
        "verified here; {source}): {command}, then {activate}."
    ),
    "way-out.conda-forge-cpu.floor": N_("macOS {macos} or later, "),
    "way-out.said": N_(
        "{text}"
    ),  # worded where the fact is kept (a Jetson's ways out: kb/jetson.py)
    # a team without a common version (team.py)
    "team.no-stack": N_("has no TensorFlow stack at all"),
    "team.blocked-at": N_("cannot run TensorFlow {tensorflow}, the newest that the others allow"),
    "team.blocked-by": N_("cannot run TensorFlow {tensorflow}, the newest release {holders} runs"),
    "team.blocker": N_("target '{target}' {reason}."),
    "team.blocker.head": N_("Target '{target}' {reason}:"),
    "team.ways-out": N_("Ways out:"),
    "team.blocker+conflicts": N_("target '{target}' {reason}: {conflicts}"),
    "team.blocker+ways-out": N_("target '{target}' {reason}. Ways out: {ways_out}"),
    "team.blocker+conflicts+ways-out": N_(
        "target '{target}' {reason}: {conflicts} Ways out: {ways_out}"
    ),
    "team.none": N_("No TensorFlow version runs on every target; {blockers}"),
    "team.none+newest": N_(
        "No TensorFlow version runs on every target (newest per target: {newest}); {blockers}"
    ),
    "team.none+held": N_(
        "No TensorFlow version runs on every target (newest per target: {newest}). Held back by "
        "{holders}: nothing newer than TensorFlow {tensorflow} runs there, and {blocked} cannot "
        "run {tensorflow}."
    ),
    # a team version held down by one target (team.py: Limit)
    "team.limit": N_(
        "Target '{target}' holds the team at TensorFlow {tensorflow}; the others run newer "
        "releases alone ({others})."
    ),
    "team.limit+reasons": N_(
        "Target '{target}' holds the team at TensorFlow {tensorflow}: {reasons} The others "
        "run newer releases alone ({others})."
    ),
    "team.limit.head": N_(
        "Target '{target}' holds the team at TensorFlow {tensorflow}; the others run newer "
        "releases alone ({others}). Why not newer:"
    ),
    # a team version no single target stops at: the newest release all targets share
    "team.shared": N_(
        "No single target holds the team at TensorFlow {tensorflow}: it is the newest release "
        "all targets share. Each target runs alone up to: {ceilings}."
    ),
    "team.shared+missing": N_(
        "No single target holds the team at TensorFlow {tensorflow}: it is the newest release "
        "all targets share. Each target runs alone up to: {ceilings}. {missing}"
    ),
    "team.shared.missing": N_("TensorFlow {release} does not fit '{target}': {reasons}"),
    "team.split": N_(
        "To split the team, give '{target}' a TensorFlow of its own in {file}: "
        '[{table}] tensorflow = "{series}".'
    ),
    "team.split+shared": N_(
        "To split the team, give '{target}' a TensorFlow of its own in {file}: "
        '[{table}] tensorflow = "{series}"; the others then share TensorFlow {shared}.'
    ),
    # check-upgrade: a move the solver rejects that no check named (upgrade/assess.py)
    "upgrade.does-not-resolve": N_("It does not resolve here: {conflicts}"),
    "upgrade.see-resolve": N_("Run 'tfenv resolve' for details."),
    # its only way out is the release already in use: staying is the fix, not a command
    "upgrade.stay": N_("Stay on TensorFlow {tensorflow}."),
}

#: the ways out that give up the GPU the machine has (a CPU-only plan): the ways out are
#: listed with those that keep the GPU first (resolver/suggest.py), whatever the machine
GIVES_UP_GPU = frozenset({"way-out.cpu", "way-out.conda-forge-cpu"})


def template(message_id: str) -> str:
    """The template of ``message_id`` in the current language: the English template is
    the catalogue's message id (:mod:`tfenv.i18n`)."""
    return _(TEMPLATES[message_id])


def render(message_id: str, fields: Mapping[str, object] | None = None) -> str:
    """The sentence of ``message_id`` with ``fields`` in its placeholders."""
    return template(message_id).format_map(dict(fields or {}))


def conflict_sentence(c: Conflict) -> str:
    """One conflict, in words."""
    if c.message != "conflict.release":
        return render(
            c.message,
            {
                "topic": c.topic,
                "requirements": "; ".join(c.requirements),
                "request": c.request,
                "platform": c.platform,
            },
        )
    fields: dict[str, object] = {
        "topic": c.topic,
        "release": c.release,
        "requirement": c.requirements[0] if c.requirements else "",
    }
    variant = "conflict.release"
    if len(c.older) == 1:
        variant += "+older-one"
        fields["older"] = c.older[0]
    elif c.older:
        variant += "+older-many"
        fields.update(count=len(c.older), first=c.older[0], last=c.older[-1])
    if c.fact is not None:
        variant += "+fact"
        fields["fact"] = _fact(c)
    return render(variant, fields)


def failure_sentence(c: Conflict) -> str:
    """One rule one release fails, without the rule's heading or older releases (no full
    stop: check-upgrade's summaries)."""
    fields: dict[str, object] = {
        "release": c.release,
        "requirement": c.requirements[0] if c.requirements else "",
    }
    if c.fact is None:
        return render("failure.needs", fields)
    fields["fact"] = _fact(c)
    return render("failure.needs+fact", fields)


def _fact(c: Conflict) -> str:
    assert c.fact is not None
    origin = c.fact.origin
    return render(f"fact.{origin}", {"fact": c.fact.text}) if origin else c.fact.text


def skipped_sentence(s: Skipped) -> str:
    """A newer series (or Python) an ok plan does not take, in one line: the first reason
    in full, the other rules it fails by their headings."""
    reason = failure_sentence(s.conflicts[0]) if s.conflicts else ""
    also = list(dict.fromkeys(c.topic for c in s.conflicts[1:] if c.topic != s.conflicts[0].topic))
    if also:
        reason = render("skipped.also", {"reason": reason, "topics": "; ".join(also)})
    message = f"skipped.{s.subject}" + ("+range" if s.oldest else "")
    fields = {"name": s.name, "oldest": s.oldest, "reasons": reason}
    return render(message, fields)


def suggestion_sentence(s: Suggestion) -> str:
    """One way out, in words."""
    fields = dict(s.fields)
    if s.message == "way-out.conda-forge-cpu":
        macos = fields.get("macos")
        fields["floor"] = render("way-out.conda-forge-cpu.floor", fields) if macos else ""
    if s.message == "way-out.arm-container":
        cuda = fields.get("cuda")
        fields["cuda"] = (
            render("way-out.arm-container.cuda", fields)
            if cuda
            else render("way-out.arm-container.no-cuda")
        )
        floor = fields.get("min_driver")
        fields["floor"] = render("way-out.arm-container.floor", fields) if floor else ""
    return render(s.message, fields)


def sentences(texts: Sequence[str]) -> str:
    """Sentences run together in one paragraph, each ending with one full stop (。 and no
    space between them in Chinese)."""
    if language() == "zh":
        return "".join(t.rstrip(".。") + "。" for t in texts)
    return " ".join(t.rstrip(".") + "." for t in texts)
