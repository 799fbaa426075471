"""The real feed's receiver answers every request, however malformed, with HTTP and a JSON reason."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

from engines.receiver import BACKLOG, MAX_BODY, Receiver, posts


@pytest.fixture
def receiver(tmp_path):
    with Receiver(tmp_path / "feed.sqlite", client_timeout=0.5) as r:
        yield r


def post(url: str, body: bytes) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def raw(url: str, data: bytes) -> bytes:
    host, port = url.split("//")[1].split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(data)
        received = b""
        while chunk := s.recv(65536):
            received += chunk
        return received


GOOD = {"key": "k1", "params": {"digest": "d1"}, "attempt": 2}


def test_a_good_post_is_applied_and_a_repeat_gets_the_stored_answer(receiver):
    assert post(receiver.url, json.dumps(GOOD).encode()) == (200, {"status": "applied", "post": 1})
    assert post(receiver.url, json.dumps(GOOD).encode()) == (200, {"status": "repeat", "post": 1})
    other = {**GOOD, "params": {"digest": "d2"}}
    assert post(receiver.url, json.dumps(other).encode()) == (200, {"status": "rejected", "post": None})


@pytest.mark.parametrize(
    "body,words",
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (b"[" * 50_000, "not JSON"),
        (json.dumps({"params": {"digest": "d"}, "key": 7}).encode(), "key must be a string"),
        (json.dumps({"params": "d"}).encode(), "string digest"),
        (json.dumps({"params": {"digest": "d"}, "attempt": "1"}).encode(), "whole number"),
        (b"9" * 5000, "not JSON"),
    ],
)
def test_malformed_requests_get_400_with_a_reason(receiver, body, words):
    status, answer = post(receiver.url, body)
    assert status == 400 and words in answer["error"]
    assert posts(receiver.db) == []


def test_numbers_and_strings_are_never_one_key(receiver):
    assert post(receiver.url, json.dumps({"key": "7", "params": {"digest": "d"}}).encode())[0] == 200
    assert post(receiver.url, json.dumps({"key": 7, "params": {"digest": "d"}}).encode())[0] == 400


def test_a_body_over_the_cap_gets_413(receiver):
    status, answer = post(receiver.url, b" " * (MAX_BODY + 1))
    assert status == 413 and "larger than" in answer["error"]


def test_no_content_length_gets_411_and_get_gets_405(receiver):
    answer = raw(receiver.url, b"POST /post HTTP/1.1\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 411") and b'"error"' in answer
    answer = raw(receiver.url, b"GET /post HTTP/1.1\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 405")


def test_a_stalled_client_is_dropped(receiver):
    host, port = receiver.url.split("//")[1].split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"POST /post HTTP/1.1\r\n")  # and then nothing
        assert s.recv(100) == b""  # the receiver hung up after its client timeout, not ours


def test_a_burst_of_clients_is_held_and_answered(receiver):
    """BACKLOG clients post at once, each as a careful client does: waiting as long as a busy machine
    needs, and sending again after a 503's Retry-After. Every post is answered 200 in the end and applied
    once: the receiver's key makes a post sent again the same post."""
    answers: list[int] = []

    def one(n: int) -> None:
        body = json.dumps({"key": f"k{n}", "params": {"digest": f"d{n}"}}).encode()
        kind = {"Content-Type": "application/json"}
        request = urllib.request.Request(receiver.url, data=body, headers=kind)
        for _ in range(30):
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    answers.append(response.status)
                    return
            except urllib.error.HTTPError as error:
                if error.code != 503:
                    answers.append(error.code)
                    return
                time.sleep(float(error.headers.get("Retry-After", "1")))

    threads = [threading.Thread(target=one, args=(n,)) for n in range(BACKLOG)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert answers.count(200) == BACKLOG
    assert len(posts(receiver.db)) == BACKLOG


@pytest.mark.parametrize(
    "body,words",
    [
        (json.dumps({"params": {"digest": "d"}, "attempt": 2**63}).encode(), "from 0 to"),
        (json.dumps({"params": {"digest": "d"}, "attempt": -1}).encode(), "from 0 to"),
        (b'{"key": "\\ud800", "params": {"digest": "d"}}', "UTF-8"),
        (b'{"key": "k", "params": {"digest": "\\udfff"}}', "UTF-8"),
        (b'{"key": "a", "key": "b", "params": {"digest": "d"}}', "'key' appears twice"),
    ],
    ids=["attempt-too-large", "attempt-negative", "key-surrogate", "digest-surrogate", "duplicate-key"],
)
def test_values_sqlite_or_json_cannot_hold_get_400_not_a_dropped_connection(receiver, body, words):
    status, answer = post(receiver.url, body)
    assert status == 400 and words in answer["error"], answer
    assert posts(receiver.db) == []


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS", "BREW"])
def test_every_method_gets_json(receiver, method):
    answer = raw(receiver.url, f"{method} /post HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    status = int(answer.split()[1])
    assert status in (405, 501) and answer.split(b"\r\n\r\n", 1)[1].startswith(b'{"error"')


def test_head_gets_405_and_no_body(receiver):
    answer = raw(receiver.url, b"HEAD /post HTTP/1.1\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 405") and answer.endswith(b"\r\n\r\n")


@pytest.mark.slow
def test_a_client_dribbling_headers_is_cut_off_by_the_whole_request_deadline(receiver):
    """A header line every 0.3 s never trips the 0.5 s read timeout; the deadline (three times it) does."""
    import time

    host, port = receiver.url.split("//")[1].split("/")[0].split(":")
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"POST /post HTTP/1.1\r\n")
        try:
            for n in range(40):
                time.sleep(0.3)
                s.sendall(f"X-Slow-{n}: 1\r\n".encode())
        except OSError:
            pass  # the receiver hung up
        s.settimeout(5)
        try:
            rest = s.recv(100)
        except OSError:
            rest = b""
    assert rest == b"" and time.monotonic() - started < 8


def test_connections_beyond_the_cap_get_503_at_once(tmp_path, monkeypatch):
    import engines.receiver as receiver_module

    monkeypatch.setattr(receiver_module, "MAX_CONNECTIONS", 2)
    with Receiver(tmp_path / "feed.sqlite", client_timeout=2) as r:
        host, port = r.url.split("//")[1].split("/")[0].split(":")
        held = [socket.create_connection((host, int(port)), timeout=10) for _ in range(2)]
        for s in held:
            s.sendall(b"POST /post HTTP/1.1\r\n")  # and wait
        import time

        time.sleep(0.3)
        answer = raw(r.url, b"POST /post HTTP/1.1\r\nHost: x\r\n\r\n")
        for s in held:
            s.close()
    assert answer.startswith(b"HTTP/1.0 503") and b"too many requests" in answer


@pytest.mark.slow
def test_the_deadline_bounds_reading_a_request_not_answering_it(tmp_path, monkeypatch):
    """A burst of posts queues on SQLite's lock; a post whose turn comes after the read deadline (three
    times the 0.5 s client timeout here) still gets its answer."""
    import time

    import engines.receiver as receiver_module

    slow = receiver_module.receive

    def receive_after_a_queue(*args):
        time.sleep(2)
        return slow(*args)

    monkeypatch.setattr(receiver_module, "receive", receive_after_a_queue)
    with Receiver(tmp_path / "feed.sqlite", client_timeout=0.5) as r:
        assert post(r.url, json.dumps(GOOD).encode()) == (200, {"status": "applied", "post": 1})


def test_a_write_lock_held_too_long_gets_503_with_retry_after_and_changes_nothing(tmp_path):
    import sqlite3

    with Receiver(tmp_path / "feed.sqlite", lock_timeout=0.3) as r:
        post(r.url, json.dumps(GOOD).encode())  # the tables exist
        holder = sqlite3.connect(r.db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another writer keeps the lock past the receiver's patience
        try:
            request = urllib.request.Request(r.url, data=json.dumps({**GOOD, "key": "k2"}).encode())
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=10)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert refused.value.code == 503 and refused.value.headers["Retry-After"] == "1"
        assert "busy" in json.loads(refused.value.read())["error"]
        assert [p["key"] for p in posts(r.db)] == ["k1"]
        # Once the lock is free, the same request is simply applied.
        assert post(r.url, json.dumps({**GOOD, "key": "k2"}).encode()) == (
            200,
            {"status": "applied", "post": 2},
        )


@pytest.mark.parametrize("digits", ["1" * 5000, "0" * 21 + "64"])
def test_a_content_length_too_long_to_be_a_size_gets_400_with_a_reason(receiver, digits):
    head = f"POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: {digits}\r\n\r\n".encode()
    answer = raw(receiver.url, head)
    assert answer.startswith(b"HTTP/1.0 400") and b"Content-Length has" in answer


@pytest.mark.parametrize("first,second", [(True, 1), (1, 1.0), (1.0, True), ([1], [True]), (0, False)])
def test_parameters_equal_only_in_python_are_another_request(receiver, first, second):
    def body(x):
        return json.dumps({"key": "k", "params": {"digest": "d", "x": x}}).encode()

    assert post(receiver.url, body(first)) == (200, {"status": "applied", "post": 1})
    assert post(receiver.url, body(second)) == (200, {"status": "rejected", "post": None})
    assert post(receiver.url, body(first)) == (200, {"status": "repeat", "post": 1})


def test_the_order_of_a_parameter_objects_keys_does_not_count(receiver):
    one = b'{"key": "k", "params": {"digest": "d", "a": 1, "b": 2}}'
    other = b'{"key": "k", "params": {"b": 2, "a": 1, "digest": "d"}}'
    assert post(receiver.url, one)[1]["status"] == "applied"
    assert post(receiver.url, other)[1]["status"] == "repeat"


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_numbers_json_does_not_have_are_refused(receiver, number):
    status, answer = post(
        receiver.url, f'{{"key": "k", "params": {{"digest": "d", "x": {number}}}}}'.encode()
    )
    assert status == 400 and "number" in answer["error"]
    assert posts(receiver.db) == []
