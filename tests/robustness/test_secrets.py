"""Six planted secrets never reach the result store, the reports, the command output, the logs or evolve's files.

The secrets: an API key in its environment variable, a password in the model base URL's userinfo, a token in a
server URL's query, an HTTP header, and a ``${VAR}`` expanded into a server's args and into its env. The stdio
server echoes its args and env through a tool and on stderr when it refuses to start, and the model repeats
what the tools said, so the secrets really do pass through the run: masking has to catch them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, Reply, completion
from faults import HOSTILE, MARK_VAR, describe, hostile_http, wait_gone
from typer.testing import CliRunner

from mcptrials.cli import app

SECRETS = {
    "api_key": "sk-SECRET1-apikey-7f3a9c",
    "base_url_userinfo": "SECRET2-basepass-5d1e",
    "server_url_query": "SECRET3-querytok-8b2f",
    "header": "SECRET4-headertok-1c7d",
    "expanded_arg": "SECRET5-argvalue-4e9a",
    "expanded_env": "SECRET6-envvalue-2a6b",
}


@pytest.fixture
def http_server(mark: str) -> Iterator[int]:
    """The hostile server over streamable HTTP on a free port."""
    yield from hostile_http()


def _task(task_id: str, servers: list[str], tool: str) -> dict[str, Any]:
    return {"id": task_id, "prompt": "Tell me what the servers say about themselves.", "servers": servers,
            "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": [tool]}]},
            "reference": [{"tool": tool, "args": {}}]}


def _model(request: dict[str, Any]) -> Reply:
    """Call the revealing tools once, then answer by repeating everything the tools returned."""
    tool_results = [m["content"] for m in request["messages"] if m["role"] == "tool"]
    if tool_results:
        return completion("The servers said: " + " | ".join(tool_results))
    names = {t["function"]["name"] for t in request.get("tools", [])}
    calls = [(name, {"text": "ping"} if name.endswith("echo") else {}) for name in sorted(names)
             if name.endswith(("reveal", "echo"))]
    return completion("", calls)


def _everything_written(*roots: Path) -> dict[str, bytes]:
    files = {}
    for root in roots:
        for path in [root] if root.is_file() else root.rglob("*"):
            if path.is_file():
                files[str(path)] = path.read_bytes()
    return files


def _plant(tmp_path: Path, fake_openai: FakeOpenAI, http_server: int,
           monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path, str]:
    """The servers and tasks files, the temp folder the run's processes use, and the model's base URL, with the six
    secrets planted in them and in the environment."""
    fake_openai.responder = _model
    servers = {"mcpServers": {
        "hostile": {"command": "python", "args": [str(HOSTILE), "--label", "${LABEL_SECRET}"],
                    "env": {"HOSTILE_TOKEN": "${ENV_SECRET}", MARK_VAR: "${" + MARK_VAR + "}"}},
        "web": {"url": f"http://127.0.0.1:{http_server}/mcp?token={SECRETS['server_url_query']}",
                "headers": {"Authorization": f"Bearer {SECRETS['header']}"}},
        "broken": {"command": "python", "args": [str(HOSTILE), "--label", "${LABEL_SECRET}"],
                   "env": {"HOSTILE_TOKEN": "${ENV_SECRET}", "HOSTILE_FAIL_START": "1"}},
    }}
    servers_path = tmp_path / "servers.json"
    servers_path.write_text(json.dumps(servers))
    tasks_path = tmp_path / "tasks.jsonl"
    tasks = [_task("reveal", ["hostile", "web"], "hostile__reveal"), _task("broken", ["broken"], "broken__reveal")]
    tasks_path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("OPENAI_API_KEY", SECRETS["api_key"])
    monkeypatch.setenv("LABEL_SECRET", SECRETS["expanded_arg"])
    monkeypatch.setenv("ENV_SECRET", SECRETS["expanded_env"])
    monkeypatch.setenv("TMPDIR", str(temp))
    base_url = fake_openai.base_url.replace("http://", f"http://user:{SECRETS['base_url_userinfo']}@")
    return servers_path, tasks_path, temp, base_url


@pytest.mark.slow
def test_six_planted_secrets_are_masked_everywhere(tmp_path: Path, fake_openai: FakeOpenAI, http_server: int,
                                                   mark: str, monkeypatch: pytest.MonkeyPatch) -> None:
    servers_path, tasks_path, temp, base_url = _plant(tmp_path, fake_openai, http_server, monkeypatch)
    db, out = tmp_path / "runs.db", tmp_path / "out"
    out.mkdir()
    runner = CliRunner()
    outputs = []

    def cli(*args: str) -> None:
        result = runner.invoke(app, list(args))
        outputs.append(result.output)
        # report exits 1 when nothing passed; run 5 when infra errors remain (the broken server's, printed)
        assert result.exit_code in (0, 1, 5), result.output

    cli("run", "--model", "openai:fake-model", "--base-url", base_url, "--servers", str(servers_path),
        "--tasks", str(tasks_path), "--db", str(db))
    for fmt in ("table", "json", "csv", "html"):
        cli("report", "--db", str(db), "--format", fmt, "--out", str(out / f"report.{fmt}"), "--episodes")
    cli("report", "--db", str(db), "--episodes")
    cli("evolve", "--server", "hostile", "--servers", str(servers_path), "--out", str(out / "evo-stdio"),
        "--rounds", "2")
    cli("evolve", "--server", "web", "--servers", str(servers_path), "--out", str(out / "evo-http"), "--rounds", "2")
    (out / "cli-output.txt").write_text("\n".join(outputs))

    # the secrets did pass through: the provider saw the revealed args/env in tool results, and the run went on
    sent = json.dumps(fake_openai.requests)
    assert SECRETS["expanded_arg"] in sent and SECRETS["expanded_env"] in sent
    assert (out / "evo-http" / "v2" / "manifest.json").is_file() and (out / "evo-stdio" / "v2").is_dir()
    written = _everything_written(db.parent / "runs.db", *db.parent.glob("runs.db-*"), out, temp)
    assert len(written) > 10
    leaks = {(name, path) for path, data in written.items() for name, secret in SECRETS.items()
             if secret.encode() in data}
    assert leaks == set()
    # and what is stored still says what happened, masked
    from mcptrials.store.db import Store

    episodes = {e.task_id: e for e in Store(db).episodes()}
    assert "***" in episodes["reveal"].final_answer and "argv=" in episodes["reveal"].final_answer
    broken = episodes["broken"].infra_error
    assert broken is not None and "refusing to start" in broken.message and "***" in broken.message
    run = json.dumps(Store(db).runs())
    assert "${LABEL_SECRET}" in run and "user:***@" in run and "token=***" in run
    manifest = json.loads((out / "evo-stdio" / "v0" / "manifest.json").read_text())
    assert manifest["upstream"]["args"][-2:] == ["--label", "${LABEL_SECRET}"]
    left = wait_gone(mark)
    assert left == [], describe(left)
    assert os.environ["OPENAI_API_KEY"] == SECRETS["api_key"]


def _view_pages(db: str, run_ids: list[str], episode_ids: list[str]) -> list[str]:
    """What `mcptrials view` says on start and every page a user can open, over the store ``db``."""
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    process = subprocess.Popen([sys.executable, "-m", "mcptrials.cli", "view", "--db", db, "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    paths = ["/", "/matrix", "/episodes", "/episodes?outcome=infra_error", "/nowhere",
             *(f"/run/{r}" for r in run_ids), *(f"/episode/{e}" for e in episode_ids),
             f"/diff?a={episode_ids[0]}&b={episode_ids[-1]}", f"/diff?a={episode_ids[0]}"]
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.communicate()
            try:
                httpx.get(base + "/", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        pages = [httpx.get(base + path, timeout=30).text for path in paths]
    finally:
        process.terminate()
        said, _ = process.communicate(timeout=10)
    return [said, *pages]


@pytest.mark.slow
def test_no_output_of_a_postgres_store_holds_a_planted_secret(tmp_path: Path, fake_openai: FakeOpenAI,
                                                              http_server: int, mark: str, postgres_url: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The six secrets of a run, plus the store's own: the PostgreSQL password and a token in the ``--db`` URL.
    Every output is rendered (each report format from the CLI and the API, each viewer page, `show`, both
    exports, the command lines' output, the temp folder's logs) and the stored rows read back: none holds one."""
    import subprocess
    import sys

    from pg_cluster import PASSWORD
    from sqlalchemy import MetaData, create_engine, select

    import mcptrials

    secrets = {**SECRETS, "db_password": PASSWORD, "db_url_query": "SECRET7-dbquerytok-3e8d"}
    servers_path, tasks_path, temp, base_url = _plant(tmp_path, fake_openai, http_server, monkeypatch)
    db = f"{postgres_url}?application_name={secrets['db_url_query']}"
    out = tmp_path / "out"
    out.mkdir()
    said: list[str] = []

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([sys.executable, "-m", "mcptrials.cli", *args], capture_output=True, text=True,
                              timeout=300)
        said.extend([done.stdout, done.stderr])
        # report exits 1 when nothing passed; run 5 when infra errors remain (the broken server's, printed)
        assert done.returncode in (0, 1, 5), done.stderr
        return done

    cli("run", "--model", "openai:fake-model", "--base-url", base_url, "--servers", str(servers_path),
        "--tasks", str(tasks_path), "--db", db)
    for fmt in ("table", "json", "csv", "html"):
        cli("report", "--db", db, "--format", fmt, "--out", str(out / f"report.{fmt}"), "--episodes")
    cli("report", "--db", db, "--episodes")
    mcptrials.write_report(db, out / "api-report.html")
    said.append(json.dumps(mcptrials.build_report(db), default=str))
    cli("export", "--format", "jsonl", "--db", db, "--out", str(out / "episodes.jsonl"))
    cli("export", "--format", "inspect", "--db", db, "--out", str(out / "inspect"))
    engine = create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://"))
    tables = MetaData()
    tables.reflect(engine)
    with engine.connect() as conn:
        stored = {name: [tuple(row) for row in conn.execute(select(table))] for name, table in tables.tables.items()}
    engine.dispose()
    run_ids = [row[0] for row in stored["runs"]]
    episode_ids = [row[0] for row in stored["episodes"]]
    assert len(run_ids) == 1 and len(episode_ids) == 2
    for episode_id in episode_ids:
        cli("show", episode_id, "--db", db)
    said.extend(_view_pages(db, run_ids, episode_ids))

    # the outputs are really there and really about this run
    html = (out / "report.html").read_text()
    assert "postgresql://postgres:***@127.0.0.1" in html and "application_name=***" in html
    assert "postgresql://postgres:***@127.0.0.1" in (out / "api-report.html").read_text()
    assert any("hostile__reveal" in page for page in said) and len(list((out / "inspect").iterdir())) >= 1
    written = {path: data.decode(errors="replace") for path, data in _everything_written(out, temp).items()}
    texts = {**written, "command output and viewer pages": "\n".join(said), "stored rows": repr(stored)}
    leaks = {(name, where) for where, text in texts.items() for name, secret in secrets.items() if secret in text}
    assert leaks == set()
    assert wait_gone(mark) == []
