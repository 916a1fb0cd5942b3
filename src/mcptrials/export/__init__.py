"""Exports of stored results to other tools' formats: inspect_ai eval logs, JSONL episodes."""
