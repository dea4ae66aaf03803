#!/usr/bin/env python3
"""The bare insert `benchmark create` is compared with (BENCHMARKS.md,
"Registry: benchmark create against a bare insert"): read a JSONL file
with python's json, insert one row per line into a SQLite table shaped
like the registry's entries table (revision, ordinal, id, question, the
row as JSON), in one transaction, with the registry's settings (WAL,
synchronous NORMAL).

    python3 scripts/bareinsert.py rows.jsonl out.db
"""
import json
import sqlite3
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    db = sqlite3.connect(dst, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("""CREATE TABLE entries (
        revision_id BIGINT NOT NULL, ordinal BIGINT NOT NULL, entry_id TEXT NOT NULL,
        question TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (revision_id, ordinal))""")
    db.execute("CREATE INDEX entries_by_id ON entries (revision_id, entry_id)")
    db.execute("BEGIN IMMEDIATE")

    def rows():
        with open(src, encoding="utf-8") as f:
            for i, line in enumerate(f):
                if not line.strip():
                    continue
                o = json.loads(line)
                yield (1, i, o["id"], o["question"], json.dumps(o, ensure_ascii=False, separators=(",", ":")))

    db.executemany("INSERT INTO entries VALUES (?, ?, ?, ?, ?)", rows())
    db.execute("COMMIT")
    db.close()


if __name__ == "__main__":
    main()
