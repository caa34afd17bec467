"""What each install route puts in an environment: pip and conda specs, commands, variables."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.resolver.routes import conda_match, conda_variant, container_image, metal_plugin

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.resolver.releases import TfOption
    from tfenv.resolver.target import Target

__all__ = ["SMOKE_TEST", "RoutePackages", "docker_run", "route_packages"]

# exits non-zero unless TensorFlow sees a GPU (the container route's health check)
SMOKE_TEST = (
    "import sys, tensorflow as tf; gpus = tf.config.list_physical_devices('GPU'); "
    "print(tf.__version__, gpus); sys.exit(0 if gpus else 1)"
)


def docker_run(image: str, command: str = "") -> str:
    """The ``docker run`` line that gives the container the host's GPUs."""
    line = f'docker run --gpus all -it --rm -v "$PWD":/workspace -w /workspace {image}'
    return f"{line} {command}" if command else line


@dataclass(frozen=True)
class RoutePackages:
    pip: tuple[str, ...] = ()
    conda: tuple[str, ...] = ()
    channels: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    commands: tuple[str, ...] = ()


def route_packages(
    kb: KnowledgeBase,
    route: str,
    opt: TfOption,
    python: Optional[Version],
    target: Target,
    cuda: Optional[Version],
    cudnn: Optional[Version],
) -> RoutePackages:
    pin = f"{opt.package}=={opt.version}"
    py = f"python={python}" if python else "python"
    if route == "pip":
        spec = f"tensorflow[and-cuda]=={opt.version}"
        return RoutePackages(pip=(spec,), commands=(f"python -m pip install '{spec}'",))
    if route == "conda":
        return _conda(kb, opt, py, target, cuda)
    if route == "conda+pip":
        return _conda_pip(kb, pin, py, target, cuda, cudnn)
    if route == "system":
        return RoutePackages(
            pip=(pin,),
            env=_system_env(target, cuda),
            commands=(_system_step(cuda, cudnn), f"python -m pip install '{pin}'"),
        )
    if route == "container":
        image = container_image(kb, opt, target)
        if image is None:
            return RoutePackages()
        return RoutePackages(
            commands=(
                f"docker pull {image.image}",
                docker_run(image.image, f'python -c "{SMOKE_TEST}"'),
            )
        )
    if route == "metal":
        plugin = metal_plugin(kb, opt.version)
        metal = f"tensorflow-metal=={plugin.version}" if plugin else "tensorflow-metal"
        return RoutePackages(
            pip=(pin, metal), commands=(f"python -m pip install '{pin}' '{metal}'",)
        )
    return RoutePackages(pip=(pin,), commands=(f"python -m pip install '{pin}'",))


def _conda(
    kb: KnowledgeBase, opt: TfOption, py: str, target: Target, cuda: Optional[Version]
) -> RoutePackages:
    variant = conda_variant(kb, opt.version, target) if cuda else None
    specs = [py]
    if variant is not None:
        # pin the CUDA variant explicitly: never leave GPU vs CPU to solver preference
        specs += [
            f"tensorflow={opt.version}=cuda{variant.major}{variant.minor}*",
            f"cuda-version={variant.major}.{variant.minor}",
        ]
    else:
        specs.append(f"tensorflow={opt.version}")
    conda = tuple(specs)
    return RoutePackages(
        conda=conda,
        channels=("conda-forge",),
        commands=(f"conda install -c conda-forge {' '.join(repr(c) for c in conda)}",),
    )


def _conda_pip(
    kb: KnowledgeBase,
    pin: str,
    py: str,
    target: Target,
    cuda: Optional[Version],
    cudnn: Optional[Version],
) -> RoutePackages:
    """conda-forge cudatoolkit (and cuDNN where conda-forge built that series), pip TensorFlow.

    conda-forge never built some cuDNN series (8.6, 8.7): then the nvidia-cudnn-cuXX wheel
    of that series comes from pip, as the TensorFlow docs did for 2.12-2.13.
    """
    toolkit = conda_match(kb.conda.cudatoolkit.conda_forge, cuda) if cuda else None
    conda = [py, f"cudatoolkit={toolkit or cuda}"]
    pip = [pin]
    env = list(_conda_lib_env(target))
    if cudnn is not None and cuda is not None:
        from_conda = conda_match(kb.conda.cudnn.conda_forge, cudnn)
        wheel = _cudnn_wheel(kb, cuda, cudnn) if from_conda is None else None
        if wheel is not None:
            pip.insert(0, wheel)
            env = list(_pip_cudnn_env(target))
        else:
            conda.append(f"cudnn={from_conda or cudnn}")
    return RoutePackages(
        pip=tuple(pip),
        conda=tuple(conda),
        channels=("conda-forge",),
        env=tuple(env),
        commands=(
            f"conda install -c conda-forge {' '.join(conda[1:])}",
            "python -m pip install " + " ".join(f"'{p}'" for p in pip),
        ),
    )


def _cudnn_wheel(kb: KnowledgeBase, cuda: Version, cudnn: Version) -> Optional[str]:
    """The newest nvidia-cudnn-cuXX wheel of the cuDNN series, if the index has one."""
    name = f"nvidia-cudnn-cu{cuda.major}"
    found = conda_match(tuple(w.version for w in kb.index.cuda_versions(name)), cudnn)
    return None if found is None else f"{name}=={found}"


def _pip_cudnn_env(target: Target) -> tuple[tuple[str, str], ...]:
    if target.os == "windows":
        return ()
    where = '$(python -c "import os, nvidia.cudnn; print(os.path.dirname(nvidia.cudnn.__file__))")'
    return (
        ("CUDNN_PATH", where),
        ("LD_LIBRARY_PATH", "$CONDA_PREFIX/lib:$CUDNN_PATH/lib:$LD_LIBRARY_PATH"),
    )


def _system_env(target: Target, cuda: Optional[Version]) -> tuple[tuple[str, str], ...]:
    if cuda is None:
        return ()
    if target.os == "windows":
        base = f"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v{cuda}"
        return (("CUDA_PATH", base), ("PATH", f"{base}\\bin;%PATH%"))
    base = f"/usr/local/cuda-{cuda}"
    return (
        ("CUDA_HOME", base),
        ("LD_LIBRARY_PATH", f"{base}/lib64:$LD_LIBRARY_PATH"),
        ("PATH", f"{base}/bin:$PATH"),
        ("XLA_FLAGS", f"--xla_gpu_cuda_data_dir={base}"),
    )


def _conda_lib_env(target: Target) -> tuple[tuple[str, str], ...]:
    if target.os == "windows":
        return ()
    return (("LD_LIBRARY_PATH", "$CONDA_PREFIX/lib:$LD_LIBRARY_PATH"),)


def _system_step(cuda: Optional[Version], cudnn: Optional[Version]) -> str:
    if cuda is None:
        return "# no CUDA needed"
    step = f"# install the CUDA Toolkit {cuda}"
    if cudnn is not None:
        step += f" and cuDNN {cudnn} for CUDA {cuda.major}"
    return step + " from NVIDIA, then set the variables below"
