"""The README's chart is lesson 1's figure as it is now, checked without a browser.

`docs/chart.png` carries the shape the browser test saw when it was taken (traces and
their points, the budget); lesson 1's figure, built in Python from the lesson's own cell,
must have that shape. The browser test compares the rendered figure itself.
"""

from tests.e2e import readme_chart


def test_the_readme_chart_has_lesson_1s_figure_shape():
    committed = readme_chart.shape(readme_chart.CHART)
    assert committed, f"docs/chart.png carries no figure shape; {readme_chart.REFRESH}"
    assert committed == readme_chart.lesson_1_figure(), (
        f"lesson 1's figure changed shape; run tests/e2e/test_lesson_figures.py, then "
        f"{readme_chart.REFRESH}")


def test_a_stored_shape_reads_back(tmp_path):
    png = tmp_path / "x.png"
    png.write_bytes(readme_chart.CHART.read_bytes())
    readme_chart.store_shape(png, {"traces": {"budget": 2}, "budget": 1})
    assert readme_chart.shape(png) == {"traces": {"budget": 2}, "budget": 1}
    assert readme_chart.size(png) == readme_chart.size(readme_chart.CHART)
