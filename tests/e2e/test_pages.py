"""The browser helpers' own checks, on small static pages: a "Select Kernel" dialog in
front of the notebook is answered, any other dialog stops the run with its text."""

from __future__ import annotations

import pytest

from tests.e2e.pages import answer_dialog

pytestmark = [pytest.mark.browser]

DIALOG = """<dialog open class="jp-Dialog"><div class="jp-Dialog-header">{title}</div>
<div>{body}</div><button class="jp-mod-accept"
onclick="this.closest('dialog').remove()">Select</button></dialog>"""


@pytest.fixture
def page(browser):
    context = browser.new_context()
    yield context.new_page()
    context.close()


def test_a_select_kernel_dialog_is_answered(page):
    page.set_content(DIALOG.format(title="Select Kernel", body="Select kernel for: a.ipynb"))
    answer_dialog(page)
    assert page.locator(".jp-Dialog").count() == 0


def test_no_dialog_is_nothing_to_answer(page):
    page.set_content("<div class='jp-Notebook'></div>")
    answer_dialog(page)


def test_any_other_dialog_fails_with_its_text(page):
    page.set_content(DIALOG.format(title="Kernel Restarting", body="The kernel appears to "
                                   "have died. It will restart automatically."))
    with pytest.raises(AssertionError, match="a dialog stopped the run: Kernel Restarting "
                       "The kernel appears to have died"):
        answer_dialog(page)
