from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.boundary.transport import read_limited
from harness.errors import RejectedInput
from harness.strict_json import check_depth


class CountingStream(io.RawIOBase):
    """An endless stream that counts how many bytes were pulled from it."""

    def __init__(self) -> None:
        self.pulled = 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        assert n is not None and n > 0, "the transport must never ask for 'everything'"
        self.pulled += n
        return b"[" * n


def test_oversized_stream_is_rejected_after_reading_one_byte_past_the_cap() -> None:
    stream = CountingStream()
    with pytest.raises(RejectedInput) as info:
        read_limited(stream, 1000)
    assert info.value.code == "transport.max_bytes"
    assert stream.pulled == 1001


def test_chunks_are_cut_at_the_cap_and_the_rest_is_never_pulled() -> None:
    pulled = []

    def chunks():
        for i in range(1000):
            pulled.append(i)
            yield b"x" * 100

    with pytest.raises(RejectedInput) as info:
        read_limited(chunks(), 250)
    assert info.value.code == "transport.max_bytes"
    assert len(pulled) == 3


def test_body_of_exactly_max_bytes_is_read_whole() -> None:
    assert read_limited(io.BytesIO(b"[1]"), 3) == b"[1]"


@pytest.mark.parametrize("body", [b"", b"   \r\n\t"])
def test_empty_body_is_rejected(body: bytes) -> None:
    with pytest.raises(RejectedInput) as info:
        read_limited(body, 100)
    assert info.value.code == "transport.empty"


def test_text_is_refused_as_a_programming_error() -> None:
    with pytest.raises(TypeError):
        read_limited("{}", 100)


def test_hundred_thousand_open_brackets_are_a_clean_depth_rejection() -> None:
    with pytest.raises(RejectedInput) as info:
        check_depth(b"[" * 100_000, 64)
    assert info.value.code == "transport.max_depth"
    assert info.value.layer == "transport"


@pytest.mark.parametrize(
    ("body", "limit", "too_deep"),
    [
        (b"[" * 64 + b"]" * 64, 64, False),
        (b"[" * 65 + b"]" * 65, 64, True),
        (b'{"a":' * 3 + b"1" + b"}" * 3, 3, False),
        (b'{"a":' * 4 + b"1" + b"}" * 4, 3, True),
        (b'["[[[[[[[[[[[[[[[[[[[[[[["]', 2, False),  # brackets inside strings do not count
        (b'["\\"[[[[[[[[[[["]', 2, False),  # nor after an escaped quote
        (b"[" + b"[]," * 5000 + b"[]]", 2, False),  # wide, shallow
        (b"[[[]", 2, True),  # unclosed brackets count as open
    ],
)
def test_depth_is_measured_on_the_bytes(body: bytes, limit: int, too_deep: bool) -> None:
    if too_deep:
        with pytest.raises(RejectedInput):
            check_depth(body, limit)
    else:
        check_depth(body, limit)


# Strings full of the characters that matter to the prescan: quotes, backslashes, brackets.
_tricky_text = st.text(alphabet='[]{}"\\\\ab\\n', max_size=12)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | _tricky_text,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(_tricky_text, children, max_size=4),
    max_leaves=40,
)


def _true_depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_true_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_true_depth(v) for v in value.values()), default=0)
    return 0


@settings(max_examples=400, deadline=None)
@given(_json_values, st.integers(min_value=1, max_value=8))
def test_prescan_agrees_with_the_parsed_depth(value: object, limit: int) -> None:
    data = json.dumps(value).encode()
    depth = _true_depth(value)
    if depth > limit:
        with pytest.raises(RejectedInput):
            check_depth(data, limit)
    else:
        check_depth(data, limit)
