"""The database rows of bench/run (db, fortunes, queries-20, updates-5): TechEmpower's test types
as a Starlette app on PostgreSQL through asyncpg, as Starlette users write them.

bench/run starts the database (bench/postgres.py) and names it in APX_BENCH_DSN. Each server
process makes its own pool at lifespan startup; POOL_SIZE connections, the same under apx and Uvicorn.
TechEmpower's rules followed: ids are random in 1..10000; db and queries read each row with its own
query; fortunes adds a row at request time, sorts by message and renders an escaping template;
updates reads each row on its own, then writes all new random numbers in one statement.
"""
import contextlib
import os
from operator import itemgetter
from pathlib import Path
from random import randint, sample

import asyncpg
import jinja2
from starlette.applications import Starlette
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

POOL_SIZE = int(os.environ.get("APX_BENCH_DB_POOL", "10"))  # asyncpg's default, as TechEmpower's starlette entry
ROWS = 10000
READ_ROW = "SELECT randomnumber FROM world WHERE id = $1"
# one statement for the whole batch; the ids come sorted so that concurrent updates lock rows in
# the same order and cannot deadlock
WRITE_ROWS = ("UPDATE world SET randomnumber = new.randomnumber "
              "FROM unnest($1::int[], $2::int[]) AS new(id, randomnumber) WHERE world.id = new.id")
ADDED_FORTUNE = (0, "Additional fortune added at request time.")

_templates = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
                                autoescape=True)
_fortunes_html = _templates.get_template("fortunes.html")
_by_message = itemgetter(1)
_pool = None


@contextlib.asynccontextmanager
async def lifespan(app):
    global _pool
    dsn = os.environ.get("APX_BENCH_DSN")
    if not dsn:
        raise RuntimeError("APX_BENCH_DSN is not set: bench/run starts PostgreSQL and sets it")
    _pool = await asyncpg.create_pool(dsn, min_size=POOL_SIZE, max_size=POOL_SIZE)
    try:
        yield
    finally:
        await _pool.close()


def query_count(request):
    """?queries=N, clamped to 1..500; 1 when missing or not a number (TechEmpower's rule)."""
    try:
        count = int(request.query_params.get("queries", "1"))
    except ValueError:
        return 1
    return min(max(count, 1), 500)


async def single_query(request):
    row_id = randint(1, ROWS)
    async with _pool.acquire() as connection:
        number = await connection.fetchval(READ_ROW, row_id)
    return JSONResponse({"id": row_id, "randomNumber": number})


async def queries(request):
    worlds = []
    async with _pool.acquire() as connection:
        for row_id in sample(range(1, ROWS + 1), query_count(request)):
            worlds.append({"id": row_id, "randomNumber": await connection.fetchval(READ_ROW, row_id)})
    return JSONResponse(worlds)


async def fortunes(request):
    async with _pool.acquire() as connection:
        rows = [tuple(row) for row in await connection.fetch("SELECT id, message FROM fortune")]
    rows.append(ADDED_FORTUNE)
    rows.sort(key=_by_message)
    return HTMLResponse(_fortunes_html.render(fortunes=rows))


async def updates(request):
    ids = sorted(sample(range(1, ROWS + 1), query_count(request)))
    numbers = [randint(1, ROWS) for _ in ids]
    async with _pool.acquire() as connection:
        for row_id in ids:
            await connection.fetchval(READ_ROW, row_id)
        await connection.execute(WRITE_ROWS, ids, numbers)
    return JSONResponse([{"id": row_id, "randomNumber": number} for row_id, number in zip(ids, numbers)])


app = Starlette(routes=[Route("/db", single_query), Route("/queries", queries), Route("/fortunes", fortunes),
                        Route("/updates", updates)],
                lifespan=lifespan)
