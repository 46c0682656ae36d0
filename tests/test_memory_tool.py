"""The memory tool's six commands, its path refusals and its bounds, through a Toolbox."""

from __future__ import annotations

import pytest

from jupyter_compaction.memory_tool import MemoryFolder
from jupyter_compaction.tools import Toolbox, ToolError


@pytest.fixture
def folder(tmp_path):
    return MemoryFolder(tmp_path / "mem")


def call(box: Toolbox, **args) -> dict:
    return box.call({"type": "tool_use", "id": "t1", "name": "memory", "input": args})


def test_create_then_view_shows_numbered_lines(folder):
    assert folder.run("create", path="/memories/a.md", file_text="one\ntwo") == (
        "File created successfully at: /memories/a.md")
    shown = folder.run("view", path="/memories/a.md")
    assert shown.splitlines()[1:] == ["     1\tone", "     2\ttwo"]
    assert folder.run("view", path="/memories/a.md", view_range=[2, -1]).endswith("     2\ttwo")


def test_view_folder_lists_files_with_sizes(folder):
    folder.run("create", path="/memories/notes/b.md", file_text="x" * 10)
    listing = folder.run("view", path="/memories")
    assert "10\t/memories/notes/b.md" in listing
    assert "\t/memories/notes" in listing


def test_create_refuses_an_existing_file(folder):
    folder.run("create", path="/memories/a.md", file_text="one")
    with pytest.raises(ToolError, match="already exists"):
        folder.run("create", path="/memories/a.md", file_text="two")
    assert (folder.root / "a.md").read_text() == "one"


def test_str_replace_needs_exactly_one_occurrence(folder):
    folder.run("create", path="/memories/a.md", file_text="k = 1\nk = 1\nz = 2")
    with pytest.raises(ToolError, match=r"Multiple occurrences .* lines: \[1, 2\]"):
        folder.run("str_replace", path="/memories/a.md", old_str="k = 1", new_str="k = 3")
    with pytest.raises(ToolError, match="did not appear verbatim"):
        folder.run("str_replace", path="/memories/a.md", old_str="q", new_str="r")
    out = folder.run("str_replace", path="/memories/a.md", old_str="z = 2", new_str="z = 9")
    assert out.startswith("The memory file has been edited.") and "     3\tz = 9" in out


def test_insert_at_top_and_end_and_refuses_out_of_range(folder):
    folder.run("create", path="/memories/a.md", file_text="b")
    folder.run("insert", path="/memories/a.md", insert_line=0, insert_text="a\n")
    folder.run("insert", path="/memories/a.md", insert_line=2, insert_text="c")
    assert (folder.root / "a.md").read_text() == "a\nb\nc"
    with pytest.raises(ToolError, match=r"range of lines of the file: \[0, 3\]"):
        folder.run("insert", path="/memories/a.md", insert_line=9, insert_text="x")


def test_delete_and_rename(folder):
    folder.run("create", path="/memories/a.md", file_text="a")
    assert folder.run("rename", old_path="/memories/a.md", new_path="/memories/d/b.md") == (
        "Successfully renamed /memories/a.md to /memories/d/b.md")
    folder.run("create", path="/memories/c.md", file_text="c")
    with pytest.raises(ToolError, match="already exists"):
        folder.run("rename", old_path="/memories/c.md", new_path="/memories/d/b.md")
    assert folder.run("delete", path="/memories/d") == "Successfully deleted /memories/d"
    assert not (folder.root / "d").exists()
    with pytest.raises(ToolError, match="does not exist"):
        folder.run("delete", path="/memories/d")


@pytest.mark.parametrize("path", ["/etc/passwd", "/memories/../secret", "/memoriesX/a",
                                  "memories/a.md", "/memories/a/../../x", "/memories\\..\\x",
                                  "/memories/./a"])
def test_paths_outside_the_folder_are_refused_with_the_missing_path_text(folder, path):
    with pytest.raises(ToolError, match="does not exist. Please provide a valid path."):
        folder.run("create", path=path, file_text="x")
    assert not (folder.root.parent / "secret").exists()


def test_a_link_that_leads_out_is_refused(folder, tmp_path):
    (tmp_path / "outside").mkdir()
    folder.root.mkdir(parents=True)
    (folder.root / "out").symlink_to(tmp_path / "outside")
    with pytest.raises(ToolError, match="does not exist"):
        folder.run("create", path="/memories/out/x.md", file_text="x")
    assert not (tmp_path / "outside" / "x.md").exists()


def test_sizes_are_bounded(tmp_path):
    small = MemoryFolder(tmp_path / "m", max_file_chars=10, max_files=1)
    with pytest.raises(ToolError, match="over the 10 allowed"):
        small.run("create", path="/memories/a.md", file_text="x" * 11)
    small.run("create", path="/memories/a.md", file_text="x")
    with pytest.raises(ToolError, match="already holds 1 files"):
        small.run("create", path="/memories/b.md", file_text="x")
    with pytest.raises(ToolError, match="over the 10 allowed"):
        small.run("insert", path="/memories/a.md", insert_line=1, insert_text="y" * 10)
    assert (small.root / "a.md").read_text() == "x"


def test_the_tool_runs_through_a_toolbox_and_errors_become_results(folder):
    box = Toolbox([folder.tool()])
    assert box.schemas[0]["name"] == "memory"
    assert box.schemas[0]["input_schema"]["required"] == ["command"]
    ok = call(box, command="create", path="/memories/a.md", file_text="hi")
    assert not ok.get("is_error") and "created" in ok["content"]
    bad = call(box, command="view", path="/elsewhere")
    assert bad["is_error"] and "does not exist" in bad["content"]
    unknown = call(box, command="launch", path="/memories")
    assert unknown["is_error"] and "view, create, str_replace" in unknown["content"]
