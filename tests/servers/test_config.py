"""Server config loading: every format users have, and clear errors naming file, server, field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcptrials.servers.config import ConfigError, load_servers, parse_servers


def test_claude_style_with_env_expansion() -> None:
    specs = parse_servers({"mcpServers": {"fs": {"command": "npx", "args": ["-y", "srv", "${ROOT}"],
                                                 "env": {"TOKEN": "${TOK:-none}"}}}},
                          environ={"ROOT": "/data"})
    assert specs["fs"].transport == "stdio"
    assert specs["fs"].args == ["-y", "srv", "/data"]
    assert specs["fs"].env == {"TOKEN": "none"}


def test_vscode_style_and_http_types() -> None:
    specs = parse_servers({"servers": {
        "a": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${K}"}},
        "b": {"transport": "streamable-http", "url": "http://x/mcp"},
        "c": {"url": "http://y/mcp"},
        "d": {"type": "stdio", "command": "python"},
        "off": {"command": "x", "disabled": True},
    }}, environ={"K": "secret"})
    assert [specs[n].transport for n in "abcd"] == ["http", "http", "http", "stdio"]
    assert specs["a"].headers["Authorization"] == "Bearer secret"
    assert "off" not in specs
    assert specs["a"].public_view()["headers"] == {"Authorization": "***"}


@pytest.mark.parametrize(("doc", "message"), [
    ({"mcpServers": {"s": {"args": []}}}, "server 's': field 'command' is missing"),
    ({"mcpServers": {"s": {"type": "websocket", "url": "x"}}}, "server 's': field 'type' has unknown value"),
    ({"mcpServers": {"s": {"type": "http"}}}, "server 's': field 'url' is missing"),
    ({"mcpServers": {"s": {"command": "x", "comand": 1}}}, "unknown field 'comand' (did you mean 'command'?)"),
    ({"mcpServers": {"s": {"command": "x", "args": "notalist"}}}, "field 'args'"),
    ({"mcpServers": {"s": {"command": "${NOPE}"}}}, "environment variable ${NOPE} is not set"),
    ({"other": {}}, "no 'mcpServers' or 'servers'"),
    ({"mcpServers": {"a__b": {"command": "x"}}}, "must not contain '__'"),
])
def test_bad_configs_name_the_field(doc: dict, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_servers(doc, "cfg.json", environ={})
    assert message in str(info.value) and "cfg.json" in str(info.value)


def test_bad_json_names_file_and_position(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text('{"mcpServers": {"a": {"command": "x",}}}')
    with pytest.raises(ConfigError, match=r"servers.json: invalid JSON at line 1 column"):
        load_servers(path)
    with pytest.raises(ConfigError, match="cannot read servers file"):
        load_servers(tmp_path / "absent.json")


def test_relative_cwd_is_resolved_against_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"mcpServers": {"a": {"command": "x", "cwd": "srv"}}}))
    assert load_servers(path)["a"].cwd == str(tmp_path / "srv")
