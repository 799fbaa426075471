"""The feed, for real: a local HTTP endpoint over SQLite that follows the article's receive recipe.

For one key, the lookup, the parameter check, the post and the remembering of its answer happen in one
SQLite transaction (BEGIN IMMEDIATE, so two requests for a key cannot both miss the lookup). A repeat gets
the stored answer; the same key with other parameters is rejected; a request with no key always posts.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS posts (number INTEGER PRIMARY KEY, digest TEXT, key TEXT, attempt INTEGER);
CREATE TABLE IF NOT EXISTS remembered (key TEXT PRIMARY KEY, params TEXT, post INTEGER);
"""


def receive(db: Path, key: str | None, params: dict, attempt: int) -> dict:
    connection = sqlite3.connect(db, isolation_level=None, timeout=10)
    try:
        connection.executescript(SCHEMA)
        connection.execute("BEGIN IMMEDIATE")
        if key is not None:
            saved = connection.execute("SELECT params, post FROM remembered WHERE key = ?", (key,)).fetchone()
            if saved is not None:
                connection.execute("COMMIT")
                if json.loads(saved[0]) != params:
                    return {"status": "rejected", "post": None}
                return {"status": "repeat", "post": saved[1]}
        cursor = connection.execute(
            "INSERT INTO posts (digest, key, attempt) VALUES (?, ?, ?)", (params["digest"], key, attempt)
        )
        number = cursor.lastrowid
        if key is not None:
            connection.execute("INSERT INTO remembered VALUES (?, ?, ?)", (key, json.dumps(params), number))
        connection.execute("COMMIT")
        return {"status": "applied", "post": number}
    finally:
        connection.close()


def posts(db: Path) -> list[dict]:
    if not db.exists():
        return []
    connection = sqlite3.connect(db)
    try:
        connection.executescript(SCHEMA)
        rows = connection.execute("SELECT number, digest, key, attempt FROM posts ORDER BY number").fetchall()
    finally:
        connection.close()
    return [{"number": n, "digest": d, "key": k, "attempt": a} for n, d, k, a in rows]


class Receiver:
    """Serves receive() on 127.0.0.1 from a thread of the orchestrating process."""

    def __init__(self, db: Path):
        self.db = db
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                answer = receive(receiver.db, body.get("key"), body["params"], body.get("attempt", 0))
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/post"

    def __enter__(self) -> Receiver:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
