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


def test_versions_are_the_entry_with_each_versions_overrides(tmp_path) -> None:
    from mcptrials.servers.versions import declared_versions

    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"fs": {
        "command": "npx", "args": ["-y", "pkg", "."], "env": {"A": "1"}, "cwd": "work",
        "versions": {"2025.3.28": {"args": ["-y", "pkg@2025.3.28", "."]},
                     "2025.7.1": {"args": ["-y", "pkg@2025.7.1", "."], "env": {"B": "2"}},
                     "local": {"command": "node", "cwd": "build"},
                     "remote": {"url": "https://mcp.example.org/mcp"},
                     "late": {"stage": "late", "lineages": "lineages"}}},
        "time": {"command": "mcp-server-time", "version": "2026.10.19"}}}))
    specs = load_servers(config, environ={})
    fs = declared_versions(specs["fs"])
    assert list(fs) == ["2025.3.28", "2025.7.1", "local", "remote", "late"]
    assert specs["fs"].version == "2025.3.28" and specs["fs"].args == ["-y", "pkg@2025.3.28", "."]
    assert fs["2025.7.1"].spec.env == {"A": "1", "B": "2"} and fs["2025.7.1"].spec.version == "2025.7.1"
    assert (fs["local"].spec.command, fs["local"].spec.args, fs["local"].spec.cwd) == ("node", [],
                                                                                       str(tmp_path / "build"))
    assert (fs["remote"].spec.transport, fs["remote"].spec.command) == ("http", None)
    assert fs["late"].stage == "late" and fs["late"].lineages == str(tmp_path / "lineages")
    assert fs["late"].spec.args == ["-y", "pkg", "."] and fs["late"].spec.cwd == str(tmp_path / "work")
    assert specs["time"].version == "2026.10.19" and list(declared_versions(specs["time"])) == ["2026.10.19"]


@pytest.mark.parametrize(("entry", "message"), [
    ({"command": "x", "versions": {}}, "server 's': field 'versions' must map labels to overrides"),
    ({"command": "x", "versions": {"1 0": {}}}, "server 's': version label '1 0': a version label is 1-64"),
    ({"command": "x", "versions": {"a,b": {}}}, "version label 'a,b'"),
    ({"command": "x", "version": "1", "versions": {"2": {}}}, "give either 'version' (one label) or 'versions'"),
    ({"command": "x", "versions": {"2": "pkg@2"}}, "server 's', version '2': expected an object of overrides"),
    ({"command": "x", "versions": {"2": {"version": "3"}}}, "version '2': field 'version' cannot be set per version"),
    ({"command": "x", "versions": {"2": {"stage": "v"}}}, "version '2': field 'stage' must be early, middle, late"),
    ({"command": "x", "versions": {"2": {"argz": []}}}, "unknown field 'argz' (did you mean 'args'?) (in version '2')"),
    ({"versions": {"2": {"env": {}}}}, "field 'command' is missing (a stdio server needs a command) (in version '2')"),
    ({"command": "x", "version": 2}, "server 's': version label 2: a version label is"),
])
def test_a_bad_version_is_one_line_naming_file_server_and_label(entry: dict, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_servers({"mcpServers": {"s": entry}}, "cfg.json", environ={})
    text = str(caught.value)
    assert text.startswith("cfg.json: server 's'") and message in text and "\n" not in text


def test_version_labels_sort_stages_first_then_releases_in_natural_order() -> None:
    from mcptrials.model import version_sort_key

    labels = ["2025.7.1", "v3", "0.10.0", "v0", "2025.3.28", "0.9.0", "v10"]
    assert sorted(labels, key=version_sort_key) == ["v0", "v3", "v10", "0.9.0", "0.10.0", "2025.3.28", "2025.7.1"]
