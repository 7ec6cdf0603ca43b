from __future__ import annotations

import contextlib

import pytest

from harness import RejectedInput, strict_loads


def rejected(data: bytes, **kw: int) -> RejectedInput:
    with pytest.raises(RejectedInput) as info:
        strict_loads(data, **kw)
    return info.value


def test_plain_json_parses() -> None:
    assert strict_loads(b' {"a": [1, 2.5, "x", null, true]} \n') == {"a": [1, 2.5, "x", None, True]}


def test_duplicate_member_is_rejected_with_its_pointer() -> None:
    err = rejected(b'{"data": {"approved": false, "approved": true}}')
    assert (err.code, err.layer, err.pointer) == ("parse.duplicate_member", "parse", "/data")
    assert "'approved'" in err.message


def test_duplicate_member_spelled_with_an_escape_is_rejected() -> None:
    assert rejected(b'{"a": 1, "\\u0061": 2}').code == "parse.duplicate_member"


def test_duplicate_inside_an_array_element_is_located() -> None:
    assert rejected(b'[{}, {"x": {"k": 1, "k": 1}}]').pointer == "/1/x"


def test_same_name_in_different_objects_is_fine() -> None:
    assert strict_loads(b'{"a": {"a": 1}, "b": {"a": 2}}') == {"a": {"a": 1}, "b": {"a": 2}}


@pytest.mark.parametrize("text", [b"NaN", b"[Infinity]", b'{"a": -Infinity}', b"[1e400]", b"-1E999"])
def test_non_finite_numbers_are_rejected(text: bytes) -> None:
    assert rejected(text).code == "parse.non_finite_number"


def test_integer_past_the_digit_cap_is_a_clean_rejection() -> None:
    assert rejected(b"[" + b"1" * 5000 + b"]").code == "parse.number_too_large"


@pytest.mark.parametrize("text", [b'["\\ud800"]', b'{"\\udc00": 1}', b'["\\ud800\\u0041"]'])
def test_lone_surrogate_escapes_are_rejected(text: bytes) -> None:
    assert rejected(text).code == "parse.lone_surrogate"


def test_surrogate_pair_escape_is_one_character() -> None:
    assert strict_loads(b'["\\ud83d\\ude00"]') == ["\U0001f600"]


def test_escaped_backslash_before_u_is_not_a_surrogate_escape() -> None:
    assert strict_loads(b'["\\\\ud800"]') == ["\\ud800"]


def test_encoded_surrogate_bytes_are_invalid_utf8() -> None:
    err = rejected(b'["\xed\xa0\x80"]')
    assert (err.code, err.offset) == ("parse.invalid_utf8", 2)


@pytest.mark.parametrize(
    "data", [b"\xef\xbb\xbf{}", b"\xff\xfe{\x00}\x00", b"\xfe\xff\x00{\x00}"]
)
def test_byte_order_marks_are_rejected(data: bytes) -> None:
    assert rejected(data).code == "parse.bom"


def test_utf16_without_bom_is_rejected() -> None:
    assert rejected("[1]".encode("utf-16-le")).code == "parse.invalid_utf8"


def test_trailing_data_is_rejected_with_its_byte_offset() -> None:
    err = rejected('{"é": 1} {}'.encode())
    assert (err.code, err.offset) == ("parse.trailing_data", 10)


def test_syntax_error_reports_a_byte_offset() -> None:
    err = rejected(b'{"a": tru}')
    assert err.code == "parse.syntax" and err.offset == 6


def test_depth_is_checked_before_parsing() -> None:
    err = rejected(b"[" * 100_000, max_depth=64)
    assert err.code == "transport.max_depth"


def test_parser_never_raises_anything_else_on_garbage() -> None:
    import random

    rng = random.Random(7)
    for _ in range(2000):
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        with contextlib.suppress(RejectedInput):
            strict_loads(blob)
