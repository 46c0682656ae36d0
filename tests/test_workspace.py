"""The workspace sandbox: every escape attempt is a one-line ToolError, good paths work."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_compaction.tools import ToolError
from jupyter_compaction.workspace import MAX_FILE_BYTES, Workspace

LIMIT = 1_000


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "root"
    (root / "agents").mkdir(parents=True)
    (root / "agents" / "router.py").write_text("TOOL_HANDLERS = {}\n", encoding="utf-8")
    (root / "agents" / "deep").mkdir()
    (root / "agents" / "deep" / "memory.py").write_text("class Memory: ...\n", encoding="utf-8")
    (root / "notes.md").write_text("# Notes\r\n- first\r\n", encoding="utf-8")
    (root / "big.txt").write_text("x" * (LIMIT + 1), encoding="utf-8")
    (root / "latin1.txt").write_bytes("café crème".encode("latin-1"))
    (root / "empty").mkdir()
    (tmp_path / "secret.txt").write_text("outside the root", encoding="utf-8")
    (root / "etc_link").symlink_to("/etc")
    (root / "parent_link").symlink_to(tmp_path)
    (root / "secret_link").symlink_to(tmp_path / "secret.txt")
    (root / "passwd_link").symlink_to("/etc/passwd")
    (root / "inner_link.py").symlink_to(root / "agents" / "router.py")
    (root / "loop_a").symlink_to(root / "loop_b")
    (root / "loop_b").symlink_to(root / "loop_a")
    return Workspace(root, max_file_bytes=LIMIT)


TRAVERSAL = [
    "",
    "   ",
    "..",
    "../",
    "../x",
    "../secret.txt",
    "a/../../x",
    "agents/../../secret.txt",
    "./../secret.txt",
    "agents/./deep/../../../secret.txt",
    "/etc/passwd",
    "/",
    "~/x",
    "~",
    "~root/.ssh/id_rsa",
    "C:\\Windows\\win.ini",
    "C:/Windows/win.ini",
    "c:secret.txt",
    "\\\\server\\share\\x",
    "..\\secret.txt",
    "agents\\..\\..\\secret.txt",
    "....//",
    "....//....//etc/passwd",
    "%2e%2e/%2e%2e/etc/passwd",
    "..%2fsecret.txt",
    "agents/\x00router.py",
    "\x00",
    "notes.md\x00.png",
    "etc_link/passwd",
    "etc_link",
    "passwd_link",
    "parent_link/secret.txt",
    "parent_link",
    "secret_link",
    "loop_a",
    "big.txt",
    "latin1.txt",
    "agents",
    ".",
    "empty",
    "missing.txt",
    "agents/router.py/..",
    "line\nbreak.txt",
    pytest.param("x" * 5000, id="very-long-name"),
    pytest.param("a/" * 3000 + "b", id="very-deep-path"),
]


@pytest.mark.parametrize("payload", TRAVERSAL)
def test_read_refuses_with_a_one_line_message(ws: Workspace, payload: str) -> None:
    with pytest.raises(ToolError) as info:
        ws.read_text(payload)
    message = str(info.value)
    assert message and "\n" not in message


@pytest.mark.parametrize("payload", TRAVERSAL)
def test_resolve_never_leaves_the_root(ws: Workspace, payload: str) -> None:
    try:
        full = ws.resolve(payload)
    except ToolError as exc:
        assert "\n" not in str(exc)
    else:
        assert full.is_relative_to(ws.root)


@pytest.mark.parametrize(
    "payload", ["..", "../x", "/etc/passwd", "~/x", "parent_link", "etc_link", "a/../../x"]
)
def test_escapes_are_refused_by_resolve_itself(ws: Workspace, payload: str) -> None:
    with pytest.raises(ToolError):
        ws.resolve(payload)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("./\\~:aC%2e\x00 ")), max_size=24))
def test_no_generated_path_escapes(tmp_path_factory: pytest.TempPathFactory, path: str) -> None:
    root = tmp_path_factory.mktemp("prop")
    ws = Workspace(root)
    try:
        full = ws.resolve(path)
    except ToolError as exc:
        assert "\n" not in str(exc)
    else:
        assert full.is_relative_to(ws.root)


def test_messages_say_what_went_wrong(ws: Workspace) -> None:
    with pytest.raises(ToolError, match="1,001 bytes, over the 1,000-byte limit"):
        ws.read_text("big.txt")
    with pytest.raises(ToolError, match="not UTF-8"):
        ws.read_text("latin1.txt")
    with pytest.raises(ToolError, match="is a folder"):
        ws.read_text("agents")
    with pytest.raises(ToolError, match="No file 'missing.txt'"):
        ws.read_text("missing.txt")
    with pytest.raises(ToolError, match="absolute"):
        ws.read_text("/etc/passwd")
    with pytest.raises(ToolError, match="outside the workspace"):
        ws.read_text("../secret.txt")


def test_happy_reads(ws: Workspace) -> None:
    assert ws.read_text("agents/router.py") == "TOOL_HANDLERS = {}\n"
    assert ws.read_text("./agents//deep/memory.py") == "class Memory: ...\n"
    assert ws.read_text("agents\\router.py") == "TOOL_HANDLERS = {}\n"
    assert ws.read_text("agents/deep/../router.py") == "TOOL_HANDLERS = {}\n"
    assert ws.read_text("notes.md") == "# Notes\n- first\n"  # CRLF normalized
    assert ws.read_text("inner_link.py") == "TOOL_HANDLERS = {}\n"  # a link that stays inside


def test_list_files(ws: Workspace) -> None:
    assert ws.list_files("agents") == ["agents/deep/memory.py", "agents/router.py"]
    everything = ws.list_files()
    assert "inner_link.py" in everything and "notes.md" in everything
    for name in everything:
        assert not name.startswith(("etc_link", "parent_link", "secret_link", "passwd_link"))
        assert not name.startswith("loop_")
    assert everything == sorted(everything)
    assert ws.list_files("empty") == []


@pytest.mark.parametrize("folder", ["..", "/etc", "etc_link", "parent_link", "notes.md", "nope"])
def test_list_files_refuses(ws: Workspace, folder: str) -> None:
    with pytest.raises(ToolError) as info:
        ws.list_files(folder)
    assert "\n" not in str(info.value)


def test_append_creates_and_appends(ws: Workspace) -> None:
    ws.append_text("memory/NOTES.md", "- ORD-1042 is on VD-88317\n")
    ws.append_text("memory/NOTES.md", "- decision: no refund\n")
    assert ws.read_text("memory/NOTES.md") == "- ORD-1042 is on VD-88317\n- decision: no refund\n"
    assert (ws.root / "memory" / "NOTES.md").is_file()


@pytest.mark.parametrize(
    "payload", ["../notes.md", "/tmp/x.md", "parent_link/x.md", "etc_link/x", "agents", "", "~/n"]
)
def test_append_refuses(ws: Workspace, payload: str) -> None:
    with pytest.raises(ToolError) as info:
        ws.append_text(payload, "hello\n")
    assert "\n" not in str(info.value)


def test_append_respects_the_size_limit(ws: Workspace) -> None:
    ws.append_text("notes.md", "y" * 100)
    with pytest.raises(ToolError, match="limit"):
        ws.append_text("notes.md", "y" * LIMIT)
    with pytest.raises(ToolError, match="not UTF-8"):
        ws.append_text("latin1.txt", "more")
    assert len(ws.read_text("notes.md")) < LIMIT


def test_root_must_exist(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        Workspace(tmp_path / "nope")
    assert Workspace(tmp_path).root == tmp_path.resolve()
    assert Workspace(tmp_path).max_file_bytes == MAX_FILE_BYTES


def test_root_given_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "a.txt").write_text("a", encoding="utf-8")
    link = tmp_path / "link"
    os.symlink(real, link)
    ws = Workspace(link)
    assert ws.read_text("a.txt") == "a"
    assert ws.list_files() == ["a.txt"]
