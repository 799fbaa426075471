"""Real durable-execution engines beside the model: the worked example's situations run for real.

Optional: ``pip install -e .[engines]`` (LangGraph with its SQLite checkpointer, DBOS Transact); DBOS
needs a PostgreSQL server, which ``engines.postgres`` starts in a temporary data directory.
``python -m engines run`` runs every scenario on both engines and writes ``engines/results.json``.
"""
