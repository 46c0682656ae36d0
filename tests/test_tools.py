"""Tool schemas from type hints and docstrings; Toolbox turns every failure into a result."""

from typing import Optional  # the old spelling must work too

import pytest

from jupyter_compaction.tools import MAX_RESULT_CHARS, Toolbox, ToolError, tool_schema, truncate


def search_orders(query: str, limit: int, min_score: float, exact: bool, tags: list[str],
                  filters: list[dict], page: int | None = None, sort: str = "date") -> str:
    """Search the order database for
    orders matching a query.

    This second paragraph is not part of the description.
    """
    return "ok"


def test_schema_types_required_and_description_from_hints_and_docstring():
    assert tool_schema(search_orders) == {
        "name": "search_orders",
        "description": "Search the order database for orders matching a query.",
        "input_schema": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer"},
                "min_score": {"type": "number"},
                "exact": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "filters": {"type": "array", "items": {"type": "object"}},
                "page": {"type": "integer"},
                "sort": {"type": "string"},
            },
            "required": ["query", "limit", "min_score", "exact", "tags", "filters"],
        },
    }


def test_schema_of_unannotated_optional_and_bare_containers():
    def lookup(order_id, when: Optional[int] = None,  # noqa: UP045
               data: dict = None, items: list = ()):
        return order_id

    schema = tool_schema(lookup)
    assert schema["description"] == "lookup"  # no docstring: the name
    assert schema["input_schema"]["properties"] == {
        "order_id": {"type": "string"},
        "when": {"type": "integer"},
        "data": {"type": "object"},
        "items": {"type": "array", "items": {}},
    }
    assert schema["input_schema"]["required"] == ["order_id"]


def test_schema_with_no_parameters():
    def ping() -> str:
        """Say pong."""
        return "pong"

    assert tool_schema(ping)["input_schema"] == {"type": "object", "properties": {},
                                                 "required": []}


def test_var_positional_and_var_keyword_are_not_required_properties():
    def flexible(path: str, *args: str, **kwargs: int) -> str:
        """Read."""
        return path

    schema = tool_schema(flexible)["input_schema"]
    assert schema["required"] == ["path"]
    assert set(schema["properties"]) == {"path"}


def double(n: int) -> int:
    """Double a number."""
    return n * 2


def echo(text: str = "") -> str:
    """Echo the text."""
    return text


def fail(reason: str) -> str:
    """Fail on purpose."""
    raise ValueError(f"{reason}\nsecond line of the traceback-ish message")


def refuse() -> str:
    """Raise a ToolError."""
    raise ToolError("path must be relative")


def silent() -> str:
    """Raise an exception without a message."""
    raise RuntimeError()


def box():
    return Toolbox([double, echo, fail, refuse, silent])


def test_toolbox_schemas_follow_the_functions():
    assert [s["name"] for s in box().schemas] == ["double", "echo", "fail", "refuse", "silent"]


def test_call_returns_a_tool_result_for_the_call_id():
    assert box().call({"type": "tool_use", "id": "toolu_1", "name": "double",
                       "input": {"n": 21}}) == {
        "type": "tool_result", "tool_use_id": "toolu_1", "content": "42"}


@pytest.mark.parametrize("given", [None, {}])
def test_call_with_no_input(given):
    result = box().call({"id": "a", "name": "echo", "input": given})
    assert result == {"type": "tool_result", "tool_use_id": "a", "content": ""}


@pytest.mark.parametrize(("block", "expected"), [
    ({"id": "a", "name": "fail", "input": {"reason": "disk on fire"}},
     "ValueError: disk on fire"),
    ({"id": "a", "name": "refuse", "input": {}}, "ToolError: path must be relative"),
    ({"id": "a", "name": "silent", "input": {}}, "RuntimeError: RuntimeError"),
    ({"id": "a", "name": "teleport", "input": {}},
     "Unknown tool 'teleport'; tools: double, echo, fail, refuse, silent."),
    ({"id": "a", "input": {}}, "Unknown tool None; tools: double, echo, fail, refuse, silent."),
])
def test_failures_become_one_line_error_results(block, expected):
    result = box().call(block)
    assert result == {"type": "tool_result", "tool_use_id": "a", "content": expected,
                      "is_error": True}


@pytest.mark.parametrize("given", [{}, {"n": 1, "extra": 2}, {"m": 1}, ["not", "a", "dict"]])
def test_bad_arguments_become_error_results(given):
    result = box().call({"id": "b", "name": "double", "input": given})
    assert result["is_error"] is True
    assert result["content"].startswith("Bad arguments for double: ")
    assert "\n" not in result["content"]


def test_an_unknown_tool_in_an_empty_toolbox():
    assert Toolbox().call({"id": "x", "name": "a"})["content"] == "Unknown tool 'a'; tools: none."


def test_missing_id_gives_an_empty_tool_use_id():
    assert box().call({"name": "double", "input": {"n": 1}})["tool_use_id"] == ""


def test_oversized_output_is_truncated_with_a_visible_note():
    def dump(n: int) -> str:
        """Dump n characters."""
        return "x" * n

    toolbox = Toolbox([dump])
    exact = toolbox.call({"id": "d", "name": "dump", "input": {"n": MAX_RESULT_CHARS}})
    assert exact["content"] == "x" * MAX_RESULT_CHARS
    over = toolbox.call({"id": "d", "name": "dump", "input": {"n": MAX_RESULT_CHARS + 1234}})
    assert over["content"].startswith("x" * MAX_RESULT_CHARS + "\n")
    assert over["content"].endswith("[1234 more characters truncated]")
    assert "is_error" not in over


def test_truncate_with_a_custom_limit():
    assert truncate("abcdef", 10) == "abcdef"
    assert truncate("abcdef", 4) == "abcd\n… [2 more characters truncated]"


def test_call_with_an_unhashable_name_is_an_error_result():
    result = box().call({"id": "z", "name": ["double"], "input": {"n": 1}})
    assert result["is_error"] is True


def test_a_type_error_inside_a_tool_is_not_reported_as_bad_arguments():
    def broken(path: str) -> str:
        """A tool with a bug."""
        return len(5)  # TypeError inside the tool

    result = Toolbox([broken]).call({"id": "k", "name": "broken", "input": {"path": "a"}})
    assert result["is_error"] is True
    assert not result["content"].startswith("Bad arguments")
