"""`jupyter-compaction release`: solutions stubbed at their indentation, outputs cleared."""

from __future__ import annotations

import nbformat
import pytest

from jupyter_compaction.cli import main
from jupyter_compaction.grading.notebooks import STUB, ReleaseError, strip_solutions

SOLVED = '''def safe_cut_index(messages, cut):
    """The first safe index >= cut."""
    ### BEGIN SOLUTION
    for i in range(max(cut, 1), len(messages)):
        if messages[i]["role"] == "assistant":
            return i
    return len(messages)
    ### END SOLUTION
'''
TOP_LEVEL = "x = 1\n### BEGIN SOLUTION\ny = 2\n### END SOLUTION"


def lesson(folder):
    v4 = nbformat.v4
    out = v4.new_output("stream", name="stdout", text="score: 8/8\n")
    cells = [v4.new_markdown_cell("# Lesson 3\n### BEGIN SOLUTION stays in markdown"),
             v4.new_code_cell(SOLVED, execution_count=3, outputs=[out]),
             v4.new_code_cell(TOP_LEVEL, execution_count=4),
             v4.new_code_cell("check('ex3')", execution_count=5, outputs=[out], metadata={
                 "tags": ["keep"], "execution": {"iopub.status.busy": "2024-01-01T00:00:00Z"}})]
    nb = v4.new_notebook(cells=cells, metadata={"widgets": {"state": {}}})
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / "03_cut.ipynb")
    (folder / "README.md").write_text("# The course\n")
    (folder / "data").mkdir()
    (folder / "data" / "history.json").write_text("[]")
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / ".ipynb_checkpoints" / "03_cut-checkpoint.ipynb").write_text("{}")
    (folder / ".hypothesis" / "constants").mkdir(parents=True)  # left by check()'s draws
    (folder / ".hypothesis" / "constants" / "a1b2").write_text("cache")


def test_release_stubs_solutions_clears_outputs_and_copies_files(tmp_path, capsys):
    lesson(tmp_path / "lessons")
    assert main(["release", str(tmp_path / "lessons"), str(tmp_path / "out" / "learner")]) == 0
    assert "released 1 notebooks and 2 other files" in capsys.readouterr().out
    out = tmp_path / "out" / "learner"
    nb = nbformat.read(out / "03_cut.ipynb", as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].source == ('def safe_cut_index(messages, cut):\n'
                              '    """The first safe index >= cut."""\n'
                              f'    {STUB}\n')
    assert code[1].source == f"x = 1\n{STUB}"
    assert code[2].source == "check('ex3')" and code[2].metadata["tags"] == ["keep"]
    assert all(c.outputs == [] and c.execution_count is None for c in code)
    assert "execution" not in code[2].metadata and "widgets" not in nb.metadata
    assert "### BEGIN SOLUTION" in nb.cells[0].source  # markdown is left alone
    assert (out / "README.md").read_text() == "# The course\n"
    assert (out / "data" / "history.json").exists()
    assert not (out / ".ipynb_checkpoints").exists() and not (out / ".hypothesis").exists()
    namespace = {}
    exec(code[0].source, namespace)
    with pytest.raises(NotImplementedError, match="write your solution here"):
        namespace["safe_cut_index"]([], 0)


@pytest.mark.parametrize("target", [".", "sub"])
def test_release_refuses_to_write_into_the_source(tmp_path, capsys, target):
    lesson(tmp_path / "lessons")
    before = (tmp_path / "lessons" / "03_cut.ipynb").read_text()
    assert main(["release", str(tmp_path / "lessons"), str(tmp_path / "lessons" / target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: refusing to write into the source folder")
    assert err.count("\n") == 1
    assert (tmp_path / "lessons" / "03_cut.ipynb").read_text() == before


def test_release_of_a_missing_folder_is_a_usage_error(tmp_path, capsys):
    assert main(["release", str(tmp_path / "nope"), str(tmp_path / "out")]) == 2
    assert "no such folder" in capsys.readouterr().err


@pytest.mark.parametrize("source", [
    "### BEGIN SOLUTION\nx = 1\n",
    "x = 1\n### END SOLUTION\n",
    "### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n",
])
def test_unbalanced_markers_are_an_error_naming_the_cell(source):
    with pytest.raises(ReleaseError, match="cell"):
        strip_solutions(source, "03_cut.ipynb, cell 1")


def test_unbalanced_markers_stop_the_release_before_writing(tmp_path, capsys):
    folder = tmp_path / "lessons"
    folder.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("### BEGIN SOLUTION\n")])
    nbformat.write(nb, folder / "bad.ipynb")
    assert main(["release", str(folder), str(tmp_path / "out")]) == 2
    assert "bad.ipynb, cell 0" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
