"""The API's lock and check-upgrade calls: bad input is a TfenvError (never a traceback
of ours), and the commands print what the API returns, rendered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import tfenv
from tfenv.cli import main
from tfenv.errors import UsageError
from tfenv.upgrade import render
from tfenv.upgrade.model import UpgradeReport


def _on_gpu(to: str, **kw: Any) -> UpgradeReport:
    return tfenv.check_upgrade(
        to, os="linux", arch="x86_64", gpu="RTX 3090", driver="535.54.03", **kw
    )


def test_check_upgrade_takes_one_current_source() -> None:
    with pytest.raises(UsageError, match="one of from_version"):
        _on_gpu("2.16", from_version="2.15", from_env=True)


def test_check_upgrade_refuses_cc_without_a_gpu() -> None:
    with pytest.raises(UsageError, match="--no-gpu"):
        tfenv.check_upgrade("2.16", from_version="2.15", os="linux", no_gpu=True, cc="8.6")


def test_check_upgrade_bad_version_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="not a TensorFlow version"):
        _on_gpu("two", from_version="2.15")


def test_a_missing_lockfile_is_a_config_error(tmp_path: Path) -> None:
    from tfenv.errors import ConfigError

    missing = tmp_path / "requirements.txt"
    with pytest.raises(ConfigError, match="does not exist"):
        _on_gpu("2.16", from_files=[missing])
    with pytest.raises(ConfigError, match="does not exist"):  # one path, not its letters
        _on_gpu("2.16", from_files=str(missing))


def test_the_command_prints_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["--os", "linux", "--arch", "x86_64", "--gpu", "RTX 3090", "--driver", "535.54.03"]
    code = main(["check-upgrade", "--from", "2.15", "--to", "2.16", "--json", *flags])
    printed = capsys.readouterr().out
    report = _on_gpu("2.16", from_version="2.15")
    assert printed == render.to_json(report, False)
    assert code == report.exit_code(False)
    assert json.loads(printed)["targets"][0]["to"] == report.targets[0].to_version


@pytest.mark.parametrize(
    ("options", "match"),
    [({"jobs": 0}, "jobs=0"), ({"timeout": 0.0}, "timeout=0.0"), ({"targets": "ci"}, "list")],
)
def test_lock_refuses_bad_options(tmp_path: Path, options: dict[str, object], match: str) -> None:
    with pytest.raises(UsageError, match=match):
        tfenv.lock(tmp_path, **options)  # type: ignore[arg-type]


def test_check_lock_without_a_configuration_is_an_error(tmp_path: Path) -> None:
    from tfenv.errors import TfenvError

    with pytest.raises(TfenvError) as info:
        tfenv.check_lock(tmp_path)
    assert info.value.exit_code == 2


def test_check_lock_of_an_unknown_target_names_the_known_ones(tmp_path: Path) -> None:
    (tmp_path / "tfenv.toml").write_text('tensorflow = "2.15"\n[targets.ci]\nos = "linux"\n')
    with pytest.raises(UsageError, match="ci"):
        tfenv.check_lock(tmp_path, targets=["nope"])
