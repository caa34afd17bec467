"""tfenv.rerun: the one writer of ``tfenv resolve`` lines (every fact of the machine, what
the request asks, the target's shell, and the fall-backs where a word cannot be written)."""

from __future__ import annotations

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.winshell import both
from tfenv.models.driver import DriverVersion
from tfenv.models.target import Request, Target
from tfenv.rerun import resolve_argv, resolve_line

WINDOWS_3070 = Target(
    "windows", "x86_64", python=Version("3.10"), cc=Version("8.6"),
    gpu_name="NVIDIA GeForce RTX 3070 Ti Laptop GPU", driver=DriverVersion("552.22"),
)  # fmt: skip


def test_every_fact_of_the_machine_and_the_request_is_a_flag() -> None:
    linux = Target("linux", "x86_64", glibc=Version("2.35"), python=Version("3.11"),
                   cc=Version("8.6"), gpu_name="NVIDIA GeForce RTX 3060",
                   driver=DriverVersion("535.104.05"))  # fmt: skip
    request = Request(tf=SpecifierSet("==2.15.*"), tf_text="2.15", manager="pip",
                      allow_cpu=True, pre=True, cuda_libs="newest")  # fmt: skip
    assert resolve_argv(linux, request) == [
        *("tfenv", "resolve", "--tf", "2.15", "--os", "linux", "--arch", "x86_64"),
        *("--python", "3.11", "--gpu", "NVIDIA GeForce RTX 3060", "--cc", "8.6"),
        *("--driver", "535.104.05", "--glibc", "2.35", "--manager", "pip"),
        *("--cuda-libs", "newest", "--allow-cpu", "--pre"),
    ]


def test_no_gpu_leaves_the_gpu_out_and_latest_leaves_out_tf() -> None:
    argv = resolve_argv(WINDOWS_3070, Request(no_gpu=True))
    assert argv == [
        *("tfenv", "resolve", "--os", "windows", "--arch", "x86_64", "--python", "3.10"),
        *("--driver", "552.22", "--no-gpu"),
    ]


def test_windows_lines_read_alike_in_cmd_and_powershell() -> None:
    line = resolve_line(WINDOWS_3070, Request(tf_text="2.10"), "windows")
    assert line == (
        'tfenv resolve --tf "2.10" --os windows --arch x86_64 --python "3.10" '
        '--gpu "NVIDIA GeForce RTX 3070 Ti Laptop GPU" --cc "8.6" --driver "552.22"'
    )
    assert both(line)[2:4] == ["--tf", "2.10"]


def test_a_word_windows_cannot_take_gives_way_to_what_answers_the_same() -> None:
    hostile = Target("windows", "x86_64", cc=Version("8.6"), gpu_name="GeForce caf\u00e9 100%")
    request = Request(tf=SpecifierSet("!=2.11"), tf_text="!=2.11")
    line = resolve_line(hostile, request, "windows", tensorflow="2.10.1")
    assert line == 'tfenv resolve --tf "2.10.1" --os windows --arch x86_64 --cc "8.6"'
    # POSIX takes both words as they are
    assert "--gpu 'GeForce caf\u00e9 100%'" in resolve_line(hostile, request, "posix")
    assert "--tf '!=2.11'" in resolve_line(hostile, request, "posix")
