"""Jetson facts (``data/nvidia/jetson.yaml``): JetPack releases and NVIDIA's TensorFlow for them.

The TensorFlow on the package index has no CUDA on Linux aarch64; a Jetson gets GPU
TensorFlow from NVIDIA's JetPack wheels or the l4t containers. :meth:`JetsonFacts.way_out`
picks, for a module's compute capability (and, where ``nvidia-smi`` gives it, the driver),
the newest JetPack with a known NVIDIA TensorFlow build.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node
from tfenv.kb._schema import choice, fact, records, sourced
from tfenv.models.driver import DriverVersion

if TYPE_CHECKING:
    from pathlib import Path

    from tfenv.kb import KnowledgeBase

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = [
    "JETSON_FILE",
    "JetPack",
    "JetsonFacts",
    "JetsonTf",
    "WayOut",
    "is_jetson",
    "load",
]

JETSON_FILE = "nvidia/jetson.yaml"
_STATUS = ("established", "inferred", "doubtful")


@dataclass(frozen=True)
class JetsonTf:
    """One NVIDIA TensorFlow wheel for a JetPack release."""

    version: str = fact()  # "2.16.1+nv24.08"
    jp: str = fact()  # the index folder's JetPack code: "61"
    python: Version = fact(Node.version)
    status: str = fact(choice(*_STATUS))
    note: Optional[str] = fact(Node.opt_text, missing=None)


@dataclass(frozen=True)
class JetPack:
    jetpack: str = fact()  # the line: "6.1" (covers 6.1, 6.2, 6.2.1)
    releases: tuple[str, ...] = fact(Node.texts)
    l4t: tuple[str, ...] = fact(Node.texts)
    ubuntu: str = fact()
    python: Version = fact(Node.version)
    cuda: Optional[Version] = fact(Node.opt_version)
    cudnn: Optional[Version] = fact(Node.opt_version)
    tensorrt: Optional[Version] = fact(Node.opt_version)
    compute_capabilities: tuple[Version, ...] = fact(Node.versions)
    modules: tuple[str, ...] = fact(Node.texts)
    nvidia_smi_driver: Optional[DriverVersion] = fact(Node.opt_driver)
    tensorflow: tuple[JetsonTf, ...] = fact(records(JetsonTf))
    note: Optional[str] = fact(Node.opt_text, missing=None)
    provenance: Provenance = sourced()


@dataclass(frozen=True)
class WayOut:
    """The newest known NVIDIA TensorFlow for a Jetson, and how to install it."""

    jetpack: JetPack
    wheel: Optional[JetsonTf]  # None: no NVIDIA build known for this module's JetPacks
    install: Optional[str]


@dataclass(frozen=True)
class JetsonFacts:
    jetpacks: tuple[JetPack, ...]  # newest first
    wheel_install: str  # with {jp} and {version}
    wheel_note: str
    wheels_provenance: Provenance
    images: tuple[str, ...]
    tags_seen: tuple[str, ...]
    containers_note: str
    containers_provenance: Provenance

    def for_module(
        self, cc: Version, driver: Optional[DriverVersion] = None
    ) -> tuple[JetPack, ...]:
        """JetPack lines that support a module of compute capability ``cc``, newest first;
        with the driver nvidia-smi reports, only the lines that ship it."""
        found = tuple(j for j in self.jetpacks if cc in j.compute_capabilities)
        if driver is not None:
            same = tuple(j for j in found if j.nvidia_smi_driver == driver)
            return same or found
        return found

    def way_out(self, cc: Version, driver: Optional[DriverVersion] = None) -> Optional[WayOut]:
        """The newest JetPack for the module with an NVIDIA TensorFlow wheel (not a
        doubtful one); the newest JetPack when none has one; None for no Jetson module."""
        lines = self.for_module(cc, driver)
        if not lines:
            return None
        for jp in lines:
            usable = [w for w in jp.tensorflow if w.status != "doubtful"]
            if usable:
                wheel = usable[0]
                cmd = self.wheel_install.format(jp=wheel.jp, version=wheel.version)
                return WayOut(jp, wheel, cmd)
        return WayOut(lines[0], None, None)

    def ways_out(
        self, cc: Version, driver: Optional[DriverVersion], name: Optional[str]
    ) -> list[str]:
        """What a Jetson of compute capability ``cc`` can do instead of the index's wheels:
        NVIDIA's JetPack wheel (the newest known) and the l4t containers, as sentences."""
        found = self.way_out(cc, driver)
        module = _("{name} (compute capability {cc})").format(name=name or _("a Jetson"), cc=cc)
        guide = self.wheels_provenance.sources[0].split(" (")[0]
        out = []
        if found is not None and found.wheel is not None:
            jp, wheel = found.jetpack, found.wheel
            out.append(
                _(
                    "On {module}, use NVIDIA's TensorFlow for JetPack: the newest known is "
                    "{version} for JetPack {jetpack} (Python {python}, CUDA {cuda}, cuDNN "
                    "{cudnn}; {status} from public install scripts, not NVIDIA's release "
                    "notes): {install} (NVIDIA's guide: {guide})."
                ).format(
                    module=module,
                    version=wheel.version,
                    jetpack="/".join(jp.releases),
                    python=wheel.python,
                    cuda=jp.cuda or _("unknown"),
                    cudnn=jp.cudnn or _("unknown"),
                    status=wheel.status,
                    install=found.install,
                    guide=guide,
                )
            )
        elif found is not None:
            out.append(
                _(
                    "On {module} (JetPack {jetpack}), no NVIDIA TensorFlow build is known "
                    "(unknown whether one exists): build TensorFlow from source for it."
                ).format(module=module, jetpack="/".join(found.jetpack.releases))
            )
        out.append(
            _(
                "Or use NVIDIA's Jetson containers {images} with the tag of your L4T release "
                "(seen: {tags}); NVIDIA's NGC TensorFlow images for Arm servers (SBSA) do not "
                "run on a Jetson."
            ).format(images=" / ".join(self.images), tags=", ".join(self.tags_seen[-3:]))
        )
        return out


def is_jetson(kb: KnowledgeBase, gpu_name: Optional[str], cc: Optional[Version]) -> bool:
    """Whether the target GPU is a Jetson module: by its name, or, given only a compute
    capability, when every GPU tfenv knows with it is one (8.7 is Orin's)."""
    if cc is None:
        return False
    model = kb.gpus.find(gpu_name) if gpu_name else None
    if model is not None:
        return model.is_jetson
    if gpu_name:
        return False
    same = kb.gpus.by_compute_capability(cc)
    return bool(same) and all(m.is_jetson for m in same)


def parse(root: Node) -> JetsonFacts:
    root.only("wheels", "containers", "jetpacks")
    wheels = root.get("wheels").only("index", "install", "note", "source", "retrieved")
    boxes = root.get("containers").only("images", "tags_seen", "note", "source", "retrieved")
    jetpacks = records(JetPack)(root.get("jetpacks"))
    order = [Version(j.jetpack) for j in jetpacks]
    if order != sorted(order, reverse=True):
        raise root.get("jetpacks").fail(_("list the JetPack lines newest first"))
    return JetsonFacts(
        jetpacks=jetpacks,
        wheel_install=wheels.get("install").text(),
        wheel_note=wheels.get("note").text(),
        wheels_provenance=wheels.provenance(),
        images=boxes.get("images").texts(),
        tags_seen=boxes.get("tags_seen").texts(),
        containers_note=boxes.get("note").text(),
        containers_provenance=boxes.provenance(),
    )


def load(root: Optional[Path] = None) -> JetsonFacts:
    """Load ``nvidia/jetson.yaml`` from ``root`` (default: the shipped data)."""
    return parse(load_node(JETSON_FILE, root))
