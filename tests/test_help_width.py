"""--help lines fit the terminal by display width: a Chinese character takes two columns."""

from __future__ import annotations

import contextlib
import io

import pytest

from tfenv.cli import COMMANDS, main
from tfenv.i18n.width import display_width, wrap


def test_display_width_counts_wide_characters_twice() -> None:
    assert display_width("tfenv") == 5
    assert display_width("中文") == 4
    assert display_width("（默认），") == 10  # full-width punctuation is wide too
    assert display_width("e\u0301") == 1  # a combining accent takes no column


def test_wrap_breaks_chinese_between_characters() -> None:
    text = "pip 方案固定哪些 CUDA wheel：TensorFlow 构建时所用的版本（默认），或其最新版本。"
    for width in (12, 20, 31, 40):
        lines = wrap(text, width)
        assert all(display_width(line) <= width for line in lines), (width, lines)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing lost


def test_wrap_keeps_ascii_words_whole() -> None:
    assert wrap("see activate-tfenv.bat and .ps1 here", 20) == [
        "see",
        "activate-tfenv.bat",
        "and .ps1 here",
    ]
    assert wrap("a" * 25, 10) == ["a" * 10, "a" * 10, "a" * 5]  # only a word wider than a line


def test_wrap_never_starts_a_line_with_a_closing_mark() -> None:
    for width in range(6, 30):
        lines = wrap("安装方式（默认：文档推荐的方式），然后是另一句话。再一句。", width)
        assert all(display_width(line) <= width for line in lines)
        assert not any(line[0] in "，。：）" for line in lines), lines
        assert not any(line[-1] == "（" for line in lines), lines


def _help(*argv: str, columns: int, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([*argv, "--help"])
    return out.getvalue()


@pytest.mark.parametrize("command", ["", *COMMANDS])
@pytest.mark.parametrize("columns", [60, 80])
def test_chinese_help_fits_the_terminal(
    command: str, columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _help(
        "--lang", "zh", *([command] if command else []), columns=columns, monkeypatch=monkeypatch
    )
    assert "用法" in text
    # argparse fills to COLUMNS - 2; a usage line or a flag's name may run over (unbreakable)
    over = [
        line
        for line in text.splitlines()
        if display_width(line) > columns - 2 and not line.lstrip().startswith(("-", "[", "用法"))
    ]
    assert over == [], "\n".join(over)


def test_argparse_alone_would_overflow() -> None:
    """The check above can fail: textwrap counts a Chinese character as one column."""
    import argparse

    text = "pip 方案固定哪些 CUDA wheel：TensorFlow 构建时所用的版本（默认），或其最新版本。"
    lines = argparse.HelpFormatter("tfenv")._split_lines(text, 30)
    assert max(display_width(line) for line in lines) > 30


@pytest.mark.parametrize("columns", ["20", "50", "80", "132", "300"])
def test_help_layout_is_argparse_own(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The formatter reads the terminal's width when help is first formatted (not when
    argparse makes one per flag): the width and help column are argparse's own."""
    import argparse

    from tfenv.cli import _HelpFormatter

    monkeypatch.setenv("COLUMNS", columns)
    for position in (24, 10, 60):
        ours = _HelpFormatter("tfenv", max_help_position=position)
        theirs = argparse.HelpFormatter("tfenv", max_help_position=position)
        assert "_width" not in vars(ours)  # not measured yet
        assert (ours._width, ours._max_help_position) == (
            theirs._width,
            theirs._max_help_position,
        )
    given = _HelpFormatter("tfenv", width=40)
    assert given._width == 40
    with pytest.raises(AttributeError):
        given._no_such_thing  # noqa: B018
