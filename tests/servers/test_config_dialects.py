"""Config dialects of other clients, and per-episode variables kept until the episode starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcptrials.cli import app
from mcptrials.servers.config import ConfigError, episode_spec, load_servers, parse_servers, uses_episode_vars


def test_episode_variables_survive_loading_and_expand_per_episode() -> None:
    specs = parse_servers({"mcpServers": {"mem": {
        "command": "node", "args": ["srv.js", "--db=${MCPTRIALS_SANDBOX}/db", "--id", "${MCPTRIALS_EPISODE}"],
        "env": {"MEMORY_FILE_PATH": "${MCPTRIALS_SANDBOX}/memory.jsonl", "CLOCK": "${MCPTRIALS_NOW}",
                "HOME_DIR": "${HOME}"},
        "cwd": "${MCPTRIALS_SANDBOX}"}}}, "cfg", environ={"HOME": "/home/u"})
    spec = specs["mem"]
    assert spec.env["MEMORY_FILE_PATH"] == "${MCPTRIALS_SANDBOX}/memory.jsonl" and spec.env["HOME_DIR"] == "/home/u"
    assert uses_episode_vars(spec)
    live = episode_spec(spec, {"MCPTRIALS_SANDBOX": "/tmp/ep1/sandbox", "MCPTRIALS_NOW": "2026-04-13T09:00:00+08:00",
                               "MCPTRIALS_EPISODE": "ep1"})
    assert live.args == ["srv.js", "--db=/tmp/ep1/sandbox/db", "--id", "ep1"]
    assert live.env["MEMORY_FILE_PATH"] == "/tmp/ep1/sandbox/memory.jsonl" and live.cwd == "/tmp/ep1/sandbox"
    assert live.env["CLOCK"] == "2026-04-13T09:00:00+08:00"
    assert spec.env["MEMORY_FILE_PATH"].startswith("${")  # the loaded spec (and the run's key) is unchanged


def test_episode_variable_set_in_the_environment_is_still_per_episode() -> None:
    spec = parse_servers({"mcpServers": {"s": {"command": "x", "args": ["${MCPTRIALS_SANDBOX}"]}}}, "cfg",
                         environ={"MCPTRIALS_SANDBOX": "/leaked/from/parent"})["s"]
    assert spec.args == ["${MCPTRIALS_SANDBOX}"]


def test_vscode_dialect(tmp_path: Path) -> None:
    vscode = tmp_path / "proj" / ".vscode"
    vscode.mkdir(parents=True)
    (tmp_path / "proj" / ".env").write_text("API_KEY=from-env-file\nexport REGION=eu # comment\nOVERRIDE=file\n")
    config = vscode / "mcp.json"
    config.write_text(json.dumps({
        "inputs": [{"id": "token", "type": "promptString", "description": "GitHub token", "password": True}],
        "servers": {"gh": {"type": "stdio", "command": "${workspaceFolder}/bin/gh-mcp",
                           "args": ["--user", "${env:USER_NAME}"], "envFile": "${workspaceFolder}/.env",
                           "env": {"TOKEN": "${input:token}", "OVERRIDE": "entry"}, "dev": {"watch": "src/**"}},
                    "remote": {"type": "sse", "url": "https://example.test/sse",
                               "headers": {"Authorization": "Bearer ${input:token}"}}}}))
    warnings: list[str] = []
    specs = load_servers(config, {"USER_NAME": "ada"}, inputs={"token": "s3cret"}, warn=warnings.append)
    gh = specs["gh"]
    assert gh.command == f"{tmp_path / 'proj'}/bin/gh-mcp" and gh.args == ["--user", "ada"]
    assert gh.env == {"API_KEY": "from-env-file", "REGION": "eu", "OVERRIDE": "entry", "TOKEN": "s3cret"}
    assert specs["remote"].transport == "sse" and specs["remote"].headers["Authorization"] == "Bearer s3cret"
    assert warnings == [f"{config}: ignored keys mcptrials does not use (other clients' settings): dev (gh)"]
    with pytest.raises(ConfigError, match=r"\$\{input:token\} \(GitHub token\) has no value: give --input token="):
        load_servers(config, {"USER_NAME": "ada"})


def test_other_clients_keys_give_one_warning_line() -> None:
    warnings: list[str] = []
    specs = parse_servers({"mcpServers": {
        "a": {"command": "x", "autoApprove": ["t"], "disabled": False, "timeout": 60},
        "b": {"command": "y", "alwaysAllow": [], "timeout": 30},
        "w": {"serverUrl": "https://windsurf.example/mcp"},
        "c": {"transportType": "sse", "url": "https://cline.example/sse"},
    }}, "cfg", environ={}, warn=warnings.append)
    assert len(warnings) == 1
    assert warnings[0] == ("cfg: ignored keys mcptrials does not use (other clients' settings): alwaysAllow (b); "
                           "autoApprove (a); timeout (a, b)")
    assert specs["w"].transport == "http" and specs["w"].url == "https://windsurf.example/mcp"
    assert specs["c"].transport == "sse"


@pytest.mark.parametrize(("entry", "message"), [
    ({"command": "x", "envFile": "missing.env"}, "missing.env: cannot read envFile (No such file or directory)"),
    ({"url": "http://a", "serverUrl": "http://b"}, "both 'url' and 'serverUrl'"),
    ({"command": "x", "argz": []}, "unknown field 'argz' (did you mean 'args'?)"),
    ({"type": "sse"}, "field 'url' is missing (an sse server needs a url)"),
])
def test_dialect_errors_name_the_field(entry: dict, message: str, tmp_path: Path) -> None:
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps({"mcpServers": {"s": entry}}))
    with pytest.raises(ConfigError) as info:
        load_servers(path, {})
    assert message in str(info.value) and "server 's'" in str(info.value)


def test_cli_input_option_and_missing_input(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"servers": {"time": {"command": "${input:cmd}"}}}))
    runner = CliRunner()
    missing = runner.invoke(app, ["servers", "list", "--servers", str(config)])
    assert missing.exit_code == 2 and "give --input cmd=VALUE" in missing.output
    bad = runner.invoke(app, ["servers", "list", "--servers", str(config), "--input", "novalue"])
    assert bad.exit_code == 2 and "expected NAME=VALUE" in bad.output


def test_servers_list_marks_failed_servers_and_exits_non_zero(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"time": {"command": "mcp-server-time"},
                                                 "broken": {"command": "sh", "args": ["-c", "echo no db >&2; exit 3"]},
                                                 "slow": {"command": "sleep", "args": ["30"]}}}))
    result = CliRunner().invoke(app, ["servers", "list", "--servers", str(config), "--format", "json",
                                      "--start-timeout", "5"])
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["failed"] == ["broken", "slow"]
    assert payload["per_server"]["time"]["status"] == "ok" and payload["per_server"]["time"]["tools"] == 2
    assert "no db" in payload["per_server"]["broken"]["error"]
    assert "no answer within 5s" in payload["per_server"]["slow"]["error"]


def test_servers_list_reports_a_server_needing_an_episode_sandbox_not_as_failed(tmp_path: Path) -> None:
    """A git server on ``${MCPTRIALS_SANDBOX}/repo`` (a task's fixtures make the repo) is not broken: exit 0."""
    from report_world import cli

    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "git": {"command": "mcp-server-git", "args": ["--repository", "${MCPTRIALS_SANDBOX}/repo"]},
        "notrepo": {"command": "mcp-server-git", "args": ["--repository", "${MCPTRIALS_SANDBOX}"]},  # exists: fails
        "time": {"command": "mcp-server-time"}}}))
    table = cli("servers", "list", "--servers", str(config), check=False)
    assert table.returncode == 1  # notrepo really fails: the sandbox is there but is no repository
    assert ("git: needs an episode sandbox: ${MCPTRIALS_SANDBOX}/repo does not exist outside an episode (a task's "
            "fixtures create it); not a failure") in table.stderr.splitlines()
    assert "notrepo: failed to start" in table.stderr and "git: failed" not in table.stderr
    payload = json.loads(cli("servers", "list", "--servers", str(config), "--format", "json", check=False).stdout)
    assert payload["failed"] == ["notrepo"] and payload["needs_episode_sandbox"] == ["git"]
    assert payload["per_server"]["git"]["status"] == "needs_episode_sandbox"
    assert payload["per_server"]["git"]["missing"] == "${MCPTRIALS_SANDBOX}/repo"

    config.write_text(json.dumps({"mcpServers": {
        "git": {"command": "mcp-server-git", "args": ["--repository", "${MCPTRIALS_SANDBOX}/repo"]},
        "time": {"command": "mcp-server-time"}}}))
    alone = cli("servers", "list", "--servers", str(config), check=False)
    assert alone.returncode == 0, alone.stderr
    assert "2 servers, 2 tools, 1 need an episode sandbox" in alone.stdout


def test_servers_tools_takes_input_values(tmp_path: Path) -> None:
    from report_world import cli

    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"servers": {"time": {"command": "${input:cmd}"}}}))
    done = cli("servers", "tools", "time", "--servers", str(config), "--input", "cmd=mcp-server-time")
    assert "time: 2 tools" in done.stdout and "get_current_time" in done.stdout
    missing = cli("servers", "tools", "time", "--servers", str(config), check=False)
    assert missing.returncode == 2 and "give --input cmd=VALUE" in missing.stderr
