"""A mailbox for Alex Morgan at Northwind Labs: inbox, search, send, contacts, archive, delete.

The mailbox starts from shipped seed messages placed relative to the frozen clock. All
changes (read flags, archived and deleted messages) are kept in ``mail/mailbox.json`` and
every sent message is appended to ``mail/outbox.json``, both inside the sandbox.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import load_data, now, serve
from mcptrials.bundled.servers._workspace import read_state, workspace_path, write_state

DYNAMISM = "stateful_write"
CATEGORY = "productivity"
DESCRIPTION = "Email for one user: list, read, search, send, forward, archive and delete messages; contacts."

mcp = MCPServer("mail", log_level="WARNING", instructions="The mailbox of alex.morgan@northwind.example.")

MAILBOX = "mail/mailbox.json"
OUTBOX = "mail/outbox.json"
EMAIL = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")
Folder = Literal["inbox", "archive", "sent"]


def _initial_mailbox() -> dict[str, Any]:
    seed = load_data("mail.json")
    moment = now()
    messages = []
    for message in seed["messages"]:
        sent = moment - timedelta(minutes=message["minutes_ago"])
        item = {k: v for k, v in message.items() if k != "minutes_ago"}
        item["date"] = sent.isoformat(timespec="minutes")
        messages.append(item)
    return {"messages": messages}


def _mailbox() -> dict[str, Any]:
    return read_state(MAILBOX, _initial_mailbox)


def _outbox() -> list[dict[str, Any]]:
    return read_state(OUTBOX, list)


def _summary(message: dict[str, Any]) -> dict[str, Any]:
    body = " ".join(message["body"].split())
    return {"id": message["id"], "from": message["from"], "subject": message["subject"],
            "date": message["date"], "read": message.get("read", True), "folder": message["folder"],
            "labels": message.get("labels", []), "snippet": body[:90] + ("..." if len(body) > 90 else "")}


def _sent_as_messages() -> list[dict[str, Any]]:
    owner = load_data("mail.json")["owner"]
    return [{**m, "from": owner, "folder": "sent", "read": True} for m in _outbox()]


def _find(box: dict[str, Any], message_id: str) -> dict[str, Any]:
    for message in box["messages"]:
        if message["id"] == message_id:
            return message
    for message in _sent_as_messages():
        if message["id"] == message_id:
            return message
    raise ToolError(f"no message with id {message_id!r}; list_inbox or search show message ids")


def _addresses(values: list[str], field: str) -> list[str]:
    out = []
    for value in values:
        address = value.strip()
        if not EMAIL.match(address):
            raise ToolError(f"{field}: {value!r} is not an email address; look people up with list_contacts")
        out.append(address.lower())
    return out


def _send(record: dict[str, Any]) -> dict[str, Any]:
    outbox = _outbox()
    record = {"id": f"s{len(outbox) + 1:03d}", "date": now().isoformat(timespec="minutes"), **record}
    outbox.append(record)
    write_state(OUTBOX, outbox)
    return record


@mcp.tool()
def list_inbox(
    folder: Annotated[Folder, Field(description="Which folder to list")] = "inbox",
    unread_only: bool = False,
    limit: Annotated[int, Field(ge=1, le=100)] = 20,
) -> dict[str, Any]:
    """List messages in a folder, newest first, with sender, subject, date and a snippet."""
    messages = _sent_as_messages() if folder == "sent" else [
        m for m in _mailbox()["messages"] if m["folder"] == folder]
    if unread_only:
        messages = [m for m in messages if not m.get("read", True)]
    messages = sorted(messages, key=lambda m: m["date"], reverse=True)
    return {"folder": folder, "total": len(messages),
            "unread": sum(1 for m in messages if not m.get("read", True)),
            "messages": [_summary(m) for m in messages[:limit]]}


@mcp.tool()
def read_message(message_id: Annotated[str, Field(description="Message id, e.g. 'm003'")]) -> dict[str, Any]:
    """Open one message and show its full text. Marks it as read."""
    box = _mailbox()
    message = _find(box, message_id)
    if message["folder"] != "sent" and not message.get("read", True):
        message["read"] = True
        write_state(MAILBOX, box)
    order = ["id", "folder", "date", "from", "to", "cc", "subject", "body", "labels", "read", "in_reply_to",
             "attachments"]
    first = {k: message[k] for k in order if k in message}
    return first | {k: v for k, v in message.items() if k not in order}


@mcp.tool()
def search(
    query: Annotated[str, Field(description="Words to look for in sender, subject and body")],
    folder: Annotated[Literal["inbox", "archive", "sent", "all"], Field(description="Where to look")] = "all",
    sender: Annotated[str | None, Field(description="Only messages whose sender contains this")] = None,
    since: Annotated[str | None, Field(description="Only messages on or after YYYY-MM-DD")] = None,
) -> dict[str, Any]:
    """Search the mailbox. Every word of the query must appear (case-insensitive)."""
    words = query.lower().split()
    start: date | None = None
    if since:
        try:
            start = date.fromisoformat(since)
        except ValueError:
            raise ToolError(f"since must be YYYY-MM-DD, got {since!r}") from None
    pool = _mailbox()["messages"] + _sent_as_messages()
    hits = []
    for message in pool:
        if folder != "all" and message["folder"] != folder:
            continue
        sender_text = f"{message['from']['name']} {message['from']['email']}".lower()
        recipients = " ".join(r if isinstance(r, str) else r.get("email", "") for r in message.get("to", []))
        hay = f"{sender_text} {recipients} {message['subject']} {message['body']}".lower()
        if not all(w in hay for w in words):
            continue
        if sender and sender.lower() not in sender_text:
            continue
        if start and datetime.fromisoformat(message["date"]).date() < start:
            continue
        hits.append(message)
    hits.sort(key=lambda m: m["date"], reverse=True)
    return {"query": query, "count": len(hits), "messages": [_summary(m) for m in hits]}


@mcp.tool()
def send_message(
    to: Annotated[list[str], Field(min_length=1, description="Recipient email addresses")],
    subject: str,
    body: str,
    cc: Annotated[list[str] | None, Field(description="Copy recipients")] = None,
    in_reply_to: Annotated[str | None, Field(description="Id of the message this answers")] = None,
    attachments: Annotated[
        list[str] | None, Field(description="Workspace files to attach, e.g. ['reports/q1.md']")
    ] = None,
) -> dict[str, Any]:
    """Send an email. Recipients must be full email addresses (see list_contacts).

    The message goes to the outbox at once and cannot be recalled. Use ``in_reply_to`` to
    answer a message (the subject gets a 'Re:' prefix if missing) and ``attachments`` to
    attach text files from the workspace.
    """
    recipients = _addresses(to, "to")
    copies = _addresses(cc or [], "cc")
    if in_reply_to:
        original = _find(_mailbox(), in_reply_to)
        if not subject.lower().startswith("re:"):
            subject = f"Re: {original['subject']}" if not subject.strip() else f"Re: {subject}"
    files = []
    for path in attachments or []:
        target = workspace_path(path, must_exist=True)
        if not target.is_file():
            raise ToolError(f"attachment {path!r} is not a file")
        try:
            content = target.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ToolError(f"attachment {path!r} is not a text file") from None
        files.append({"path": path, "bytes": len(content.encode()), "content": content[:20000]})
    record = _send({"to": recipients, "cc": copies, "subject": subject.strip(), "body": body,
                    "in_reply_to": in_reply_to, "attachments": files})
    return {"sent": True, "id": record["id"], "to": recipients, "cc": copies, "subject": record["subject"],
            "attachments": [f["path"] for f in files]}


@mcp.tool()
def forward_message(message_id: str, to: list[str], note: str = "") -> dict[str, Any]:
    """Forward a message to other people, optionally with a note on top."""
    original = _find(_mailbox(), message_id)
    recipients = _addresses(to, "to")
    body = (note + "\n\n" if note else "") + (
        f"---------- Forwarded message ----------\nFrom: {original['from']['name']} "
        f"<{original['from']['email']}>\nDate: {original['date']}\nSubject: {original['subject']}\n\n"
        f"{original['body']}")
    record = _send({"to": recipients, "cc": [], "subject": f"Fwd: {original['subject']}", "body": body,
                    "forwarded_from": message_id, "attachments": []})
    return {"sent": True, "id": record["id"], "to": recipients, "subject": record["subject"]}


@mcp.tool()
def list_contacts(
    query: Annotated[str | None, Field(description="Filter by name, email, organisation or role")] = None,
) -> dict[str, Any]:
    """Address book entries."""
    contacts = load_data("mail.json")["contacts"]
    if query:
        q = query.lower()
        contacts = [c for c in contacts if any(q in str(v).lower() for v in c.values())]
    return {"count": len(contacts), "contacts": contacts}


@mcp.tool()
def archive_message(message_id: str) -> dict[str, Any]:
    """Move a message out of the inbox into the archive folder (it can still be found by search)."""
    box = _mailbox()
    message = _find(box, message_id)
    if message["folder"] == "sent":
        raise ToolError("sent messages cannot be archived")
    message["folder"] = "archive"
    write_state(MAILBOX, box)
    return {"archived": message_id, "subject": message["subject"]}


@mcp.tool()
def delete_message(message_id: str) -> dict[str, Any]:
    """Permanently delete a message. It cannot be recovered."""
    box = _mailbox()
    message = _find(box, message_id)
    if message["folder"] == "sent":
        raise ToolError("sent messages cannot be deleted")
    box["messages"] = [m for m in box["messages"] if m["id"] != message_id]
    write_state(MAILBOX, box)
    return {"deleted": message_id, "subject": message["subject"]}


if __name__ == "__main__":
    serve(mcp)
