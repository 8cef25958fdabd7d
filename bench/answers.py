"""The answer checks of bench/run's rows whose right answer is more than a size: each takes the
response (headers as a lowercase dict, body bytes), the request body sent (or None) and the
database's DSN, and returns what is wrong, or None. The database rows are checked against the
database itself (asyncpg), read after the response, while nothing else loads it."""
import asyncio
import html
import json
import re


def same_json(headers, body, sent, dsn):
    """fastapi-post: the model sent comes back (same fields, same values)."""
    try:
        answer = json.loads(body)
    except ValueError:
        return f"not JSON: {body[:200]!r}"
    return None if answer == json.loads(sent) else f"echoed {answer!r}, sent {sent.decode()!r}"


def _rows(dsn, query, *arguments):
    import asyncpg

    async def fetch():
        connection = await asyncpg.connect(dsn)
        try:
            return await connection.fetch(query, *arguments)
        finally:
            await connection.close()
    return asyncio.run(fetch())


def _worlds(body, count):
    """The [{"id": N, "randomNumber": M}] of a db/queries/updates answer, or what is wrong."""
    try:
        answer = json.loads(body)
    except ValueError:
        return None, f"not JSON: {body[:200]!r}"
    worlds = [answer] if count is None else answer
    if count is not None and (not isinstance(answer, list) or len(answer) != count):
        return None, f"expected a list of {count} rows, got {body[:200]!r}"
    for world in worlds:
        if not (isinstance(world, dict) and set(world) == {"id", "randomNumber"}
                and all(isinstance(world[k], int) and 1 <= world[k] <= 10000 for k in world)):
            return None, f"not a World row: {world!r}"
    if len({w["id"] for w in worlds}) != len(worlds):
        return None, f"the same id twice: {body[:200]!r}"
    return worlds, None


def worlds_in_database(count):
    """db (count None: one object), queries and updates (a list of count): rows as the database has
    them after the request (for updates: the new numbers were written)."""
    def check(headers, body, sent, dsn):
        if not headers.get("content-type", "").startswith("application/json"):
            return f"content-type {headers.get('content-type')!r}"
        worlds, problem = _worlds(body, count)
        if problem:
            return problem
        stored = {r["id"]: r["randomnumber"] for r in
                  _rows(dsn, "SELECT id, randomnumber FROM world WHERE id = any($1::int[])", [w["id"] for w in worlds])}
        wrong = [w for w in worlds if stored.get(w["id"]) != w["randomNumber"]]
        return f"rows differ from the database's {stored}: {wrong}" if wrong else None
    return check


def fortunes(headers, body, sent, dsn):
    """The table's rows are the database's fortunes plus the one added at request time, sorted by
    message, every message HTML-escaped; text/html in UTF-8."""
    if headers.get("content-type", "").replace(" ", "").lower() != "text/html;charset=utf-8":
        return f"content-type {headers.get('content-type')!r}"
    text = body.decode("utf-8")
    if "<script>" in text or not text.startswith("<!DOCTYPE html>") or "<title>Fortunes</title>" not in text:
        return f"not the escaped Fortunes page: {text[:300]!r}"
    shown = [(int(i), html.unescape(m)) for i, m in re.findall(r"<tr><td>(\d+)</td><td>(.*?)</td></tr>", text)]
    expected = sorted([(r["id"], r["message"]) for r in _rows(dsn, "SELECT id, message FROM fortune")]
                      + [(0, "Additional fortune added at request time.")], key=lambda row: row[1])
    return None if shown == expected else f"rows {shown} instead of {expected}"
