"""tfenv's languages: the catalogue is complete and current, the language is chosen in the
documented order, and a terminal that cannot show Chinese gets English, not a traceback."""

from __future__ import annotations

import ast
import contextlib
import gettext
import importlib.util
import io
import os
import re
import string
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tfenv import i18n
from tfenv.cli import main
from tfenv.i18n import N_, UnknownLanguage, _, choose, language, ngettext, set_language, using

ROOT = Path(__file__).resolve().parent.parent


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("i18n_tool", ROOT / "tools" / "i18n.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = _tool()


# -- the catalogue ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def template() -> object:
    return TOOL.extract()


@pytest.fixture(scope="module")
def zh() -> object:
    return TOOL.read(TOOL.po_path("zh"))


def _placeholders(text: str) -> set[str]:
    """``{name}`` fields and ``%(name)s`` / ``%s`` conversions of a message."""
    found = {f"{{{name}}}" for _t, name, _f, _c in string.Formatter().parse(text) if name}
    found |= set(re.findall(r"%(?:\([a-z_]+\))?[sdr]", text))
    return found


def _ids(catalog: object) -> dict[str, object]:
    return {
        (m.id if isinstance(m.id, str) else m.id[0]): m
        for m in catalog  # type: ignore[attr-defined]
        if m.id
    }


def test_extraction_finds_the_messages(template: object) -> None:
    """Not vacuous: the CLI's and errors' messages are there, plurals as pairs."""
    ids = _ids(template)
    assert "tfenv: error: {paragraph}" in ids
    assert "target '{target}': {why}" in ids
    assert len(ids) > 30


def test_every_message_has_a_chinese_translation(template: object, zh: object) -> None:
    translated = _ids(zh)
    missing, fuzzy, empty = [], [], []
    for key, message in _ids(template).items():
        found = translated.get(key)
        if found is None:
            missing.append(key)
            continue
        strings = [found.string] if isinstance(found.string, str) else list(found.string)  # type: ignore[attr-defined]
        if found.fuzzy:  # type: ignore[attr-defined]
            fuzzy.append(key)
        if not strings or not all(s.strip() for s in strings):
            empty.append(key)
        if not isinstance(message.id, str):  # type: ignore[attr-defined]
            assert len(strings) == zh.num_plurals, key  # type: ignore[attr-defined]
    assert not missing, f"not in the .po (tools/i18n.py update): {missing}"
    assert not empty, f"no Chinese for: {empty}"
    assert not fuzzy, f"fuzzy: {fuzzy}"


def test_no_placeholder_lost_or_added(zh: object) -> None:
    wrong = []
    for key, message in _ids(zh).items():
        ids = [message.id] if isinstance(message.id, str) else list(message.id)  # type: ignore[attr-defined]
        strings = [message.string] if isinstance(message.string, str) else list(message.string)  # type: ignore[attr-defined]
        wanted = set().union(*(_placeholders(i) for i in ids))
        for text in strings:
            if text and _placeholders(text) != wanted:
                wrong.append((key, sorted(wanted), sorted(_placeholders(text))))
    assert not wrong


def test_the_placeholder_check_would_fail() -> None:
    assert _placeholders("{a} and %(b)s, %s") == {"{a}", "%(b)s", "%s"}
    assert _placeholders("{a}：{b}") != _placeholders("{a}")


def test_chinese_is_plural_free(zh: object) -> None:
    assert zh.num_plurals == 1  # type: ignore[attr-defined]
    assert zh.plural_expr == "0"  # type: ignore[attr-defined]


def test_the_po_and_the_mo_are_current() -> None:
    """The .po has exactly the source's message ids, and the .mo is compiled from it."""
    assert TOOL.stale() == []


def test_the_shipped_mo_reads_as_the_po(zh: object) -> None:
    """The runtime's reader (stdlib gettext) sees in the .mo what the .po says."""
    with TOOL.mo_path("zh").open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    for message in zh:  # type: ignore[attr-defined]
        if message.id and isinstance(message.id, str):
            assert compiled.gettext(message.id) == message.string


def test_chinese_output_uses_full_width_punctuation(zh: object) -> None:
    """A Chinese sentence ends with 。, ？ or ：, not the English full stop (commands,
    paths and quotes aside: a translation ending in one of those is allowed a dot)."""
    wrong = []
    for key, message in _ids(zh).items():
        text = message.string if isinstance(message.string, str) else message.string[0]  # type: ignore[attr-defined]
        if key.endswith(".") and text.endswith(".") and not text.endswith((").", "'.")):
            wrong.append(key)
    assert not wrong


# -- the API ---------------------------------------------------------------------------


def test_english_is_the_identity() -> None:
    with using("en"):
        assert _("tfenv: interrupted") == "tfenv: interrupted"
        assert _("a sentence no catalogue has") == "a sentence no catalogue has"
        assert ngettext("{count} release", "{count} releases", 1) == "{count} release"
        assert ngettext("{count} release", "{count} releases", 2) == "{count} releases"


def test_chinese_comes_from_the_catalogue() -> None:
    with using("zh"):
        assert language() == "zh"
        assert _("tfenv: interrupted") == "tfenv：已中断"
        assert _("a sentence no catalogue has") == "a sentence no catalogue has"
        assert _("") == ""
    assert language() == "en"


def test_n_marks_without_translating() -> None:
    with using("zh"):
        assert N_("tfenv: interrupted") == "tfenv: interrupted"


def test_using_restores_on_error() -> None:
    with pytest.raises(RuntimeError), using("zh"):
        raise RuntimeError
    assert language() == "en"


def test_set_language_refuses_what_it_does_not_speak() -> None:
    with pytest.raises(UnknownLanguage, match="'fr'"):
        set_language("fr")
    assert language() == "en"


# -- choosing the language -------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "environ", "expected"),
    [
        (None, {}, "en"),
        ("zh", {}, "zh"),
        ("en", {"TFENV_LANG": "zh"}, "en"),  # the flag first
        ("zh_CN", {}, "zh"),
        ("zh-Hans", {}, "zh"),
        (None, {"TFENV_LANG": "zh", "LC_ALL": "en_US.UTF-8"}, "zh"),  # then TFENV_LANG
        (None, {"TFENV_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
        (None, {"TFENV_LANG": " ", "LANG": "zh_CN.UTF-8"}, "zh"),  # blank: not set
        (None, {"LANG": "zh_CN.UTF-8"}, "zh"),  # then the locale
        (None, {"LANG": "zh_SG.UTF-8"}, "zh"),
        (None, {"LANG": "zh_TW.UTF-8"}, "zh"),  # Simplified for all Chinese, for now
        (None, {"LANG": "zh_HK.Big5"}, "zh"),
        (None, {"LANG": "zh"}, "zh"),
        (None, {"LANG": "zh_CN.GB18030@pinyin"}, "zh"),
        (None, {"LANG": "C"}, "en"),
        (None, {"LANG": "C.UTF-8"}, "en"),
        (None, {"LANG": "POSIX"}, "en"),
        (None, {"LANG": "en_GB.UTF-8"}, "en"),
        (None, {"LANG": "de_DE.UTF-8"}, "en"),  # a language tfenv does not speak: English
        (None, {"LC_ALL": "C", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),
        (None, {"LC_ALL": "zh_CN.UTF-8", "LANG": "C"}, "zh"),
        (None, {"LC_ALL": "", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "C"}, "zh"),
        (None, {"LC_MESSAGES": "C", "LANG": "zh_CN.UTF-8"}, "en"),
    ],
)
def test_choose_order(flag: str | None, environ: dict[str, str], expected: str) -> None:
    assert choose(flag, environ) == expected


@pytest.mark.parametrize(
    ("flag", "environ", "where"),
    [("fr", {}, "--lang"), ("", {}, "--lang"), (None, {"TFENV_LANG": "klingon"}, "TFENV_LANG")],
)
def test_choose_refuses_unknown_languages(
    flag: str | None, environ: dict[str, str], where: str
) -> None:
    with pytest.raises(UnknownLanguage) as caught:
        choose(flag, environ)
    assert str(caught.value).startswith(where)
    assert "'en'" in str(caught.value)
    assert "'zh'" in str(caught.value)


# -- the CLI ---------------------------------------------------------------------------


def _tfenv(
    *args: str, env: dict[str, str] | None = None, drop: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in drop}
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "tfenv", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=environ,
        timeout=120,
        check=False,
    )


LOCALE_VARS = ("TFENV_LANG", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (("--lang", "xx", "detect"), {}),
        (("detect", "--lang", "xx"), {}),
        (("--help",), {"TFENV_LANG": "xx"}),
    ],
)
def test_unknown_language_is_one_line_and_exit_2(
    args: tuple[str, ...], env: dict[str, str]
) -> None:
    done = _tfenv(*args, env=env)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "'xx'" in lines[0]
    assert "'zh'" in lines[0]
    assert "Traceback" not in done.stderr


def test_lang_zh_cn_locale_chooses_chinese() -> None:
    done = _tfenv("--help", env={"LANG": "zh_CN.UTF-8"}, drop=LOCALE_VARS)
    assert done.returncode == 0, done.stderr
    assert "用法：" in done.stdout
    assert "显示此帮助信息并退出" in done.stdout


@pytest.mark.parametrize("locale", ["zh_TW.UTF-8", "zh_HK.UTF-8"])
def test_traditional_chinese_locales_get_simplified_and_the_docs_say_so(locale: str) -> None:
    """zh_TW and zh_HK share the one (Simplified) catalogue for now: the Chinese quick start
    and the CLI reference say so, on the line that names them."""
    done = _tfenv("--help", env={"LANG": locale}, drop=LOCALE_VARS)
    assert done.returncode == 0, done.stderr
    assert "显示此帮助信息并退出" in done.stdout  # Simplified: 显示, not 顯示
    zh_doc = (ROOT / "docs" / "zh" / "index.md").read_text("utf-8")
    line = next(x for x in zh_doc.splitlines() if "zh_TW" in x)
    assert "zh_HK" in line
    assert "简体中文" in line
    cli_doc = " ".join((ROOT / "docs" / "cli.md").read_text("utf-8").split())
    assert "`zh_TW`, `zh_HK` and `zh` all mean Simplified Chinese for now" in cli_doc


def test_c_locale_chooses_english() -> None:
    done = _tfenv("--help", env={"LANG": "C.UTF-8"}, drop=LOCALE_VARS)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
    assert "用法" not in done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("--lang", "zh", "resolve", "--help"),
        ("resolve", "--lang", "zh", "--help"),
        ("--lang=zh", "resolve", "--help"),
        ("resolve", "--help", "--lang=zh"),
    ],
)
def test_lang_before_or_after_the_command(args: tuple[str, ...]) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(list(args))
    assert "用法：tfenv resolve" in out.getvalue()
    assert language() == "en"  # main() leaves the process's language as it found it


def test_a_command_takes_lang_for_its_own_run() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["resolve", "--lang", "en", "--os", "linux", "--no-gpu", "--json"])
    assert code == 0
    assert language() == "en"


def test_an_ascii_terminal_gets_english_and_a_note() -> None:
    """Chinese asked for on a terminal that cannot show it: English, one note, no
    UnicodeEncodeError."""
    done = _tfenv("--lang", "zh", "--help", env={"PYTHONIOENCODING": "ascii", "LANG": "C"})
    assert done.returncode == 0, done.stderr
    assert "UnicodeEncodeError" not in done.stderr
    assert "usage: tfenv" in done.stdout
    assert done.stderr.count("\n") == 1
    assert "cannot show Chinese" in done.stderr


def test_an_ascii_terminal_and_an_error_in_chinese_do_not_crash() -> None:
    done = _tfenv("--lang", "zh", "resolve", "--bogus", env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "unrecognized arguments: --bogus" in done.stderr


def test_a_gbk_terminal_gets_chinese() -> None:
    """A Chinese Windows console's code page (cp936, GBK) can show Chinese: no fallback."""
    done = subprocess.run(
        [sys.executable, "-m", "tfenv", "--lang", "zh", "--help"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "gbk"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0
    assert "用法：".encode("gbk") in done.stdout
    assert done.stderr == b""


def test_english_never_reads_the_catalogue() -> None:
    """The catalogue loads only when Chinese is spoken (tfenv resolve's import path)."""
    code = (
        "import contextlib, io, sys\n"
        "from tfenv import i18n\n"
        "from tfenv.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['resolve', '--os', 'linux', '--no-gpu', '--json'])\n"
        "print(sorted(i18n._catalogues))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert i18n.LOCALE_DIR.endswith("locale")


def _shadowing(tree: ast.AST) -> list[str]:
    """Functions that bind the name ``_`` (``key, _, value = ...``) and call ``_()``: the
    call would find the bound value, not the translation."""
    found = []
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = [n for stmt in func.body for n in ast.walk(stmt)]
        # a comprehension's own variables live in its scope, not the function's
        inner = {
            id(n) for c in body if isinstance(c, ast.comprehension) for n in ast.walk(c.target)
        }
        binds = any(
            isinstance(n, ast.Name)
            and n.id == "_"
            and isinstance(n.ctx, ast.Store)
            and id(n) not in inner
            for n in body
        )
        calls = any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_"
            for n in body
        )
        if binds and calls:
            found.append(f"{func.name} (line {func.lineno})")
    return found


def test_no_function_hides_the_translation_function() -> None:
    bad = []
    for path in sorted((ROOT / "src" / "tfenv").rglob("*.py")):
        for name in _shadowing(ast.parse(path.read_text("utf-8"))):
            bad.append(f"{path.relative_to(ROOT)}: {name}")
    assert not bad


def test_the_shadowing_check_would_fail() -> None:
    code = "def f(x):\n    a, _, b = x.partition('=')\n    return _('text')\n"
    assert _shadowing(ast.parse(code)) == ["f (line 1)"]
    fine = "def f(x):\n    k = [a for a, _ in x]\n    return _('text')\n"
    assert _shadowing(ast.parse(fine)) == []


def test_using_is_per_thread() -> None:
    """A worker writing a lockfile in English does not change the language of the others."""
    import threading

    seen: dict[str, str] = {}
    entered, release = threading.Event(), threading.Event()

    def worker() -> None:
        with using("en"):
            entered.set()
            release.wait(10)
            seen["worker"] = _("tfenv: interrupted")

    set_language("zh")
    try:
        thread = threading.Thread(target=worker)
        thread.start()
        entered.wait(10)
        seen["main"] = _("tfenv: interrupted")
        release.set()
        thread.join(10)
        seen["after"] = _("tfenv: interrupted")
    finally:
        set_language("en")
    assert seen == {
        "worker": "tfenv: interrupted",
        "main": "tfenv：已中断",
        "after": "tfenv：已中断",
    }
