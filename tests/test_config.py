"""Loading ``[tool.tfenv]`` / ``tfenv.toml``: the happy path and one-paragraph errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfenv import errors
from tfenv.config import load_config
from tfenv.errors import ConfigError

PYPROJECT = """
[project]
name = "demo"

[tool.tfenv]
tensorflow = "2.15"
python = "3.11"
dependencies = ["pandas>=2", "tensorflow-datasets"]
index-url = "http://127.0.0.1:1/simple/"
channels = ["conda-forge"]
manager = "pip"

[tool.tfenv.targets.cluster]
os = "linux"
gpu = "A100"
driver = "535.104.05"
glibc = "2.31"

[tool.tfenv.targets.laptop]
host = "hosts/laptop.json"
python = "3.10"
manager = "conda"
"""


def test_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    c = load_config(tmp_path)
    assert c.tensorflow == "2.15"
    assert c.dependencies == ("pandas>=2", "tensorflow-datasets")
    assert c.channels == ("conda-forge",)
    assert c.index_url == "http://127.0.0.1:1/simple/"
    cluster, laptop = c.targets
    assert cluster.machine.os == "linux"
    assert cluster.machine.python == "3.11"  # the project's default
    assert cluster.manager == "pip"
    assert laptop.machine.host_file == tmp_path / "hosts" / "laptop.json"
    assert laptop.machine.python == "3.10"
    assert laptop.manager == "conda"


def test_tfenv_toml_wins_and_defaults(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "tfenv.toml").write_text('[targets.a]\nos = "linux"\nno-gpu = true\n')
    c = load_config(tmp_path)
    assert c.path.name == "tfenv.toml"
    assert c.tensorflow == "latest"
    assert c.manager == "auto"
    assert c.targets[0].machine.no_gpu


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('pythn = "3.11"\n[targets.a]\nos = "linux"\n', "pythn"),
        ('python = 3.11\n[targets.a]\nos = "linux"\n', "python"),
        ('tensorflow = "two"\n[targets.a]\nos = "linux"\n', "tensorflow"),
        ('dependencies = ["pandas>>2"]\n[targets.a]\nos = "linux"\n', "dependencies[0]"),
        ('manager = "brew"\n[targets.a]\nos = "linux"\n', "manager"),
        ('python = "3.11"\n', "targets"),
        ('[targets.a]\narch = "x86_64"\n', "targets.a"),
        ('[targets.a]\nos = "beos"\n', "targets.a.os"),
        ('[targets.a]\nos = "linux"\ncc = "8.6"\nno-gpu = true\n', "targets.a"),
        ('[targets.a]\nos = "linux"\ndriver = "abc"\n', "targets.a.driver"),
        ('[targets."a.b"]\nos = "linux"\n', "targets.a.b"),
    ],
)
def test_errors_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    (tmp_path / "tfenv.toml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path)
    assert err.value.key == key
    assert isinstance(err.value, errors.ConfigError)
    assert err.value.exit_code == 2
    assert "\n" not in str(err.value)
    assert f"'{key}'" in str(err.value)


def test_not_toml_and_missing(tmp_path: Path) -> None:
    (tmp_path / "tfenv.toml").write_text("targets = [\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(tmp_path)
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.toml")


def test_folder_without_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    with pytest.raises(ConfigError, match="No tfenv configuration"):
        load_config(tmp_path)


def test_a_folder_s_pyproject_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding the configuration reads pyproject.toml (has it a [tool.tfenv] table?);
    loading it uses what was read."""
    import tfenv.fsutil
    from tfenv.config import optional_config

    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    reads: list[Path] = []
    real = tfenv.fsutil.read_text

    def counted(path: Path, *args: object, **kw: object) -> str:
        reads.append(Path(path))
        return real(path, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(tfenv.fsutil, "read_text", counted)
    assert load_config(tmp_path).tensorflow == "2.15"
    assert reads == [tmp_path / "pyproject.toml"]
    found = optional_config(tmp_path)
    assert found is not None
    assert found.tensorflow == "2.15"
    assert len(reads) == 2
    assert optional_config(tmp_path / "hosts") is None  # no such folder: no configuration
    (tmp_path / "tfenv.toml").write_text('tensorflow = "2.16"\n[targets.a]\nos = "linux"\n')
    assert load_config(tmp_path).tensorflow == "2.16"  # tfenv.toml wins, read once
    assert reads[2:] == [tmp_path / "tfenv.toml"]
