"""Bounded output capture."""

from sandbox.output import CappedOutput


def test_short_output_is_kept_whole() -> None:
    capture = CappedOutput("stdout", 100)
    capture.write(b"hello ")
    capture.write(b"world\n")
    assert capture.text() == "hello world\n"
    assert not capture.truncated


def test_long_output_keeps_head_and_tail_around_a_marker() -> None:
    capture = CappedOutput("stderr", 20)
    capture.write(b"HEAD-" + b"x" * 1000)
    capture.write(b"y" * 1000 + b"-TAIL")
    text = capture.text()
    assert text.startswith("HEAD-xxxxx")
    assert text.endswith("yyyyy-TAIL")
    assert capture.dropped == 2010 - 20
    assert f"{2010 - 20} bytes of stderr dropped here" in text


def test_memory_stays_bounded_whatever_arrives() -> None:
    capture = CappedOutput("stdout", 1000)
    for _ in range(10_000):
        capture.write(b"z" * 997)
    held = len(capture._head) + sum(len(chunk) for chunk in capture._tail)
    assert held == 1000
    assert capture.dropped == 10_000 * 997 - 1000


def test_bad_utf8_is_replaced_not_fatal() -> None:
    capture = CappedOutput("stdout", 100)
    capture.write(b"ok \xff\xfe done")
    assert capture.text() == "ok \ufffd\ufffd done"
