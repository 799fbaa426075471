"""Real durable-execution engines beside the model: the worked example's situations run for real.

Optional: ``pip install -e .[engines]`` (LangGraph with its SQLite checkpointer, DBOS Transact, Restate's
Python SDK on Hypercorn). DBOS needs a PostgreSQL server, which ``engines.postgres`` starts in a temporary
data directory; Restate needs npm's ``restate-server``, which ``engines.restate_server`` starts for each run.
``python -m engines run`` runs every scenario on every engine and writes ``content/engine-results.json``.
"""
