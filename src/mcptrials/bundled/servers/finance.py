"""Simulated stock market data: ticker profiles, quotes, price history, earnings, statements, FX.

Prices are simulated from seeded parameters: a close for (symbol, date) depends only on the
symbol and the date, and the history window ends at the frozen clock (``MCPTRIALS_NOW``).
Nothing here is real market data.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from functools import lru_cache
from itertools import pairwise
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import load_data, now, rng, serve

DYNAMISM = "live_read"
CATEGORY = "finance"
DESCRIPTION = "Simulated stock quotes, price history, earnings, financial statements and currency rates."

mcp = MCPServer(
    "finance",
    log_level="WARNING",
    instructions="Simulated market data for listed companies. Prices move with the clock.",
)

Period = Literal["1mo", "3mo", "6mo", "1y", "5y"]
Interval = Literal["1d", "1wk", "1mo"]
EPOCH = date(2026, 1, 1)
TWINS = {"GOOG": "GOOGL", "BRK-A": "BRK-B"}
MONTHS = {"1mo": 1, "3mo": 3, "6mo": 6, "1y": 12, "5y": 60}
ZERO_DECIMALS = {"JPY", "KRW"}


# --------------------------------------------------------------------------- model


def _tickers() -> dict[str, Any]:
    return load_data("finance.json")["tickers"]


def _ticker(symbol: str) -> tuple[str, dict[str, Any]]:
    key = symbol.strip().upper()
    info = _tickers().get(key)
    if info is None:
        raise ToolError(f"unknown symbol {symbol!r}; use search_symbols to look up a ticker by company name")
    return key, info


def _is_trading_day(day: date) -> bool:
    return day.weekday() < 5 and (day.month, day.day) not in {(1, 1), (12, 25)}


@lru_cache(maxsize=20000)
def _close(symbol: str, day: date) -> float:
    """The simulated closing price of ``symbol`` on ``day``."""
    group = TWINS.get(symbol, symbol)
    info, base_info = _tickers()[symbol], _tickers()[group]
    days = (day - EPOCH).days
    wave = sum(c["amplitude"] * math.sin(2 * math.pi * days / c["period_days"] + c["phase"])
               for c in base_info["cycles"])
    market = rng("market", day.isoformat()).gauss(0.0, 1.0) * min(base_info["beta"], 1.5) * 0.6
    own = rng("close", group, day.isoformat()).gauss(0.0, 1.0) * 0.8
    noise = (market + own) * base_info["volatility"] * 0.02
    log_price = math.log(info["base_price"]) + base_info["drift"] * days / 365.25 + wave + noise
    return round(math.exp(log_price), 2)


def _bar(symbol: str, day: date, previous: float) -> dict[str, Any]:
    close = _close(symbol, day)
    gen = rng("bar", TWINS.get(symbol, symbol), day.isoformat())
    open_ = round(previous * (1 + gen.gauss(0.0, 0.004)), 2)
    high = round(max(open_, close) * (1 + abs(gen.gauss(0.0, 0.006))), 2)
    low = round(min(open_, close) * (1 - abs(gen.gauss(0.0, 0.006))), 2)
    shares = _tickers()[symbol]["shares_outstanding"]
    volume = int(shares * 0.004 * (0.6 + gen.random()))
    return {"date": day.isoformat(), "open": open_, "high": high, "low": low, "close": close,
            "volume": volume}


def _today() -> date:
    return now().date()


def _previous_trading_day(day: date) -> date:
    day -= timedelta(days=1)
    while not _is_trading_day(day):
        day -= timedelta(days=1)
    return day


def _months_back(day: date, months: int) -> date:
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    month += 1
    for d in (day.day, 30, 29, 28):
        try:
            return date(year, month, d)
        except ValueError:
            continue
    raise AssertionError("unreachable")


def _daily_bars(symbol: str, period: str) -> list[dict[str, Any]]:
    """Daily bars from the period start up to the last session before the frozen date."""
    end = _previous_trading_day(_today())
    start = _months_back(_today(), MONTHS[period])
    bars: list[dict[str, Any]] = []
    day = start
    previous = _close(symbol, _previous_trading_day(start))
    while day <= end:
        if _is_trading_day(day):
            bar = _bar(symbol, day, previous)
            bars.append(bar)
            previous = bar["close"]
        day += timedelta(days=1)
    return bars


def _resample(bars: list[dict[str, Any]], interval: str) -> list[dict[str, Any]]:
    if interval == "1d":
        return bars
    groups: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for bar in bars:
        d = date.fromisoformat(bar["date"])
        key = (d.isocalendar()[0], d.isocalendar()[1]) if interval == "1wk" else (d.year, d.month)
        groups.setdefault(key, []).append(bar)
    out = []
    for chunk in groups.values():
        out.append({"date": chunk[0]["date"], "open": chunk[0]["open"],
                    "high": max(b["high"] for b in chunk), "low": min(b["low"] for b in chunk),
                    "close": chunk[-1]["close"], "volume": sum(b["volume"] for b in chunk)})
    return out


def _history(symbol: str, period: str, interval: str) -> list[dict[str, Any]]:
    if period == "5y" and interval == "1d":
        raise ToolError("daily bars are limited to 1y of history; for 5y use interval '1wk' or '1mo'")
    return _resample(_daily_bars(symbol, period), interval)


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    first, last = rows[0]["close"], rows[-1]["close"]
    return {"first_close": first, "last_close": last,
            "change_pct": round((last - first) / first * 100, 2),
            "high": max(r["high"] for r in rows), "low": min(r["low"] for r in rows),
            "average_close": round(sum(r["close"] for r in rows) / len(rows), 2)}


def _quote(symbol: str) -> dict[str, Any]:
    moment, today = now(), _today()
    last_session = _previous_trading_day(today)
    previous_close = _close(symbol, last_session)
    minutes_open = (moment.hour * 60 + moment.minute) - (9 * 60 + 30)
    if _is_trading_day(today) and minutes_open >= 0:
        fraction = min(1.0, minutes_open / 390)
        price = round(previous_close + (_close(symbol, today) - previous_close) * fraction, 2)
        state = "open" if fraction < 1.0 else "closed"
        reference = previous_close
    else:
        price, state = previous_close, "closed"
        reference = _close(symbol, _previous_trading_day(last_session))
    return {"price": price, "previous_close": reference, "change": round(price - reference, 2),
            "change_pct": round((price - reference) / reference * 100, 2), "market_state": state,
            "last_session": last_session.isoformat()}


# --------------------------------------------------------------------------- fundamentals

SEASON = (0.96, 0.98, 1.0, 1.06)


def _quarter_end(year: int, quarter: int) -> date:
    return date(year, 3 * quarter, 30 if quarter in (2, 3) else 31)


def _quarter(symbol: str, year: int, quarter: int) -> dict[str, Any]:
    group = TWINS.get(symbol, symbol)
    info, base = _tickers()[symbol], _tickers()[group]
    gen = rng("quarter", group, year, quarter)
    years = year + (quarter - 0.5) / 4 - 2025.5
    revenue = base["revenue"] / 4 * (1 + base["revenue_growth"]) ** years * SEASON[quarter - 1]
    revenue *= 1 + gen.gauss(0.0, 0.03)
    net_income = revenue * base["net_margin"] * (1 + gen.gauss(0.0, 0.08))
    # share classes of one company earn the same profit; EPS scales with the class's price
    eps = net_income / base["shares_outstanding"] * info["base_price"] / base["base_price"]
    surprise = gen.gauss(0.03, 0.04)
    estimate = eps * (1 - surprise)
    report = _quarter_end(year, quarter) + timedelta(days=24 + gen.randrange(0, 15))
    return {"fiscal_quarter": f"{year}-Q{quarter}", "period_end": _quarter_end(year, quarter).isoformat(),
            "report_date": report.isoformat(), "revenue": revenue, "net_income": net_income,
            "eps_actual": round(eps, 2), "eps_estimate": round(estimate, 2),
            "surprise_pct": round((eps - estimate) / abs(estimate) * 100, 2) if estimate else 0.0}


def _reported_quarters(symbol: str, count: int) -> list[dict[str, Any]]:
    """The ``count`` most recent quarters already reported by the frozen date, newest first."""
    today = _today()
    year, quarter = today.year, (today.month - 1) // 3 + 1
    out: list[dict[str, Any]] = []
    while len(out) < count:
        q = _quarter(symbol, year, quarter)
        if date.fromisoformat(q["report_date"]) < today:
            out.append(q)
        quarter -= 1
        if quarter == 0:
            year, quarter = year - 1, 4
    return out


def _reported_years(symbol: str, count: int) -> list[int]:
    latest_q4 = next(q for q in _reported_quarters(symbol, 8) if q["fiscal_quarter"].endswith("Q4"))
    last_year = int(latest_q4["fiscal_quarter"][:4])
    return [last_year - i for i in range(count)]


def _millions(value: float) -> float:
    return round(value / 1e6, 1)


def _statement(symbol: str, statement: str, quarters: list[dict[str, Any]], label: str,
               end: str) -> dict[str, Any]:
    info = _tickers()[symbol]
    revenue = sum(q["revenue"] for q in quarters)
    net = sum(q["net_income"] for q in quarters)
    gen = rng("statement", TWINS.get(symbol, symbol), label)
    if statement == "income":
        gross = revenue * info["gross_margin"]
        operating = revenue * info["operating_margin"] * (1 + gen.gauss(0.0, 0.03))
        return {"period": label, "period_end": end, "total_revenue": _millions(revenue),
                "cost_of_revenue": _millions(revenue - gross), "gross_profit": _millions(gross),
                "operating_expenses": _millions(gross - operating), "operating_income": _millions(operating),
                "net_income": _millions(net),
                "diluted_eps": round(sum(q["eps_actual"] for q in quarters), 2)}
    if statement == "balance":
        scale = revenue * (4 / len(quarters))
        assets = scale * (1.1 + 0.6 * abs(math.sin(len(symbol))) + gen.gauss(0.0, 0.02))
        liabilities = assets * (0.45 + 0.2 * abs(math.cos(len(symbol))))
        cash = scale * (0.12 + 0.05 * gen.random())
        debt = liabilities * (0.3 + 0.1 * gen.random())
        return {"period": label, "period_end": end, "total_assets": _millions(assets),
                "total_liabilities": _millions(liabilities),
                "shareholders_equity": _millions(assets - liabilities),
                "cash_and_equivalents": _millions(cash), "total_debt": _millions(debt)}
    operating_cf = net * (1.15 + gen.gauss(0.0, 0.05))
    capex = revenue * (0.04 + 0.04 * gen.random())
    dividends = net * min(0.9, info["dividend_yield"] * 12)
    return {"period": label, "period_end": end, "operating_cash_flow": _millions(operating_cf),
            "capital_expenditure": _millions(-capex), "free_cash_flow": _millions(operating_cf - capex),
            "dividends_paid": _millions(-dividends),
            "share_buybacks": _millions(-max(0.0, operating_cf - capex - dividends) * 0.5)}


def _fx(currency: str, day: date) -> float:
    """Units of ``currency`` per US dollar on ``day``."""
    table = load_data("finance.json")["fx_per_usd"]
    code = currency.strip().upper()
    if code not in table:
        raise ToolError(f"unsupported currency {currency!r}; supported: {', '.join(sorted(table))}")
    if code == "USD":
        return 1.0
    days = (day - EPOCH).days
    phase = sum(ord(c) for c in code) / 10
    wave = 0.025 * math.sin(2 * math.pi * days / 173 + phase)
    return table[code] * math.exp(wave + 0.003 * rng("fx", code, day.isoformat()).gauss(0.0, 1.0))


# --------------------------------------------------------------------------- tools


@mcp.tool()
def get_tickers_info(
    symbols: Annotated[
        list[str], Field(min_length=1, max_length=10, description="Ticker symbols, e.g. ['AAPL', 'MSFT']")
    ],
) -> dict[str, Any]:
    """Company profile and key statistics for one or more ticker symbols.

    Returns for each symbol: company name, exchange, trading currency, sector and industry,
    number of employees, a one-line business summary, the previous close, market
    capitalisation, 52-week high and low, trailing P/E (price over the last four quarters
    of EPS), dividend yield and beta. Unknown symbols are reported per entry.
    """
    results: list[dict[str, Any]] = []
    for raw in symbols:
        try:
            symbol, info = _ticker(raw)
        except ToolError as exc:
            results.append({"symbol": raw, "error": str(exc)})
            continue
        quote = _quote(symbol)
        year = _daily_bars(symbol, "1y")
        ttm_eps = sum(q["eps_actual"] for q in _reported_quarters(symbol, 4))
        results.append({
            "symbol": symbol, "name": info["name"], "exchange": info["exchange"],
            "currency": info["currency"], "sector": info["sector"], "industry": info["industry"],
            "country": info["country"], "employees": info["employees"], "summary": info["summary"],
            "previous_close": _close(symbol, _previous_trading_day(_today())),
            "market_cap": round(quote["price"] * info["shares_outstanding"]),
            "fifty_two_week_high": max(b["high"] for b in year),
            "fifty_two_week_low": min(b["low"] for b in year),
            "trailing_pe": round(quote["price"] / ttm_eps, 2) if ttm_eps > 0 else None,
            "dividend_yield": info["dividend_yield"], "beta": info["beta"],
        })
    if all("error" in r for r in results):
        raise ToolError("; ".join(r["error"] for r in results))
    return {"as_of": now().isoformat(), "tickers": results}


@mcp.tool()
def get_quote(symbol: str) -> dict[str, Any]:
    """Latest price of a ticker."""
    key, info = _ticker(symbol)
    return {"symbol": key, "currency": info["currency"], "as_of": now().isoformat(), **_quote(key)}


@mcp.tool()
def get_price_history(
    symbol: Annotated[str, Field(description="One ticker symbol, e.g. 'AAPL'")],
    period: Annotated[Period, Field(description="How far back to go from today")] = "1mo",
    interval: Annotated[Interval, Field(description="Bar size: daily, weekly or monthly")] = "1d",
) -> dict[str, Any]:
    """Historical OHLCV bars (open, high, low, close, volume) for one ticker.

    The window runs from ``period`` before today up to the last completed trading session.
    Weekly and monthly bars aggregate the daily ones and are dated by their first session.
    Daily bars are only available for periods up to 1y. A summary (first and last close,
    change in percent, high, low, average close) comes before the rows.
    """
    key, info = _ticker(symbol)
    rows = _history(key, period, interval)
    return {"symbol": key, "currency": info["currency"], "period": period, "interval": interval,
            "start": rows[0]["date"], "end": rows[-1]["date"], "summary": _summary(rows), "rows": rows}


@mcp.tool()
def download(
    tickers: Annotated[str, Field(description="Space- or comma-separated symbols, e.g. 'AAPL MSFT'")],
    period: Period = "1mo",
    interval: Interval = "1d",
) -> dict[str, Any]:
    """Download closing prices for several tickers as one table (one column per ticker)."""
    symbols = [s for s in tickers.replace(",", " ").split() if s]
    if not symbols:
        raise ToolError("give at least one ticker symbol")
    keys = [_ticker(s)[0] for s in symbols]
    table: dict[str, dict[str, float]] = {}
    summary: dict[str, Any] = {}
    for key in keys:
        rows = _history(key, period, interval)
        summary[key] = _summary(rows)
        for row in rows:
            table.setdefault(row["date"], {})[key] = row["close"]
    rows_out = [{"date": d, **table[d]} for d in sorted(table)]
    return {"tickers": keys, "period": period, "interval": interval, "field": "close",
            "summary": summary, "rows": rows_out}


@mcp.tool()
def get_earnings(
    symbol: str,
    period: Annotated[
        Literal["quarterly", "yearly"], Field(description="Quarterly or yearly results")
    ] = "quarterly",
    limit: Annotated[int, Field(ge=1, le=8, description="How many periods, newest first")] = 4,
) -> dict[str, Any]:
    """Reported earnings of a company: EPS actual versus analyst estimate and surprise for each
    quarter, or revenue, net income and EPS per fiscal year. Only periods already reported
    by today are included; amounts are in millions of the listing currency."""
    key, info = _ticker(symbol)
    if period == "quarterly":
        rows = [{k: (_millions(v) if k in ("revenue", "net_income") else v) for k, v in q.items()
                 if not k.startswith("_")} for q in _reported_quarters(key, limit)]
    else:
        rows = []
        for year in _reported_years(key, limit):
            quarters = [_quarter(key, year, q) for q in (1, 2, 3, 4)]
            rows.append({"fiscal_year": year, "revenue": _millions(sum(q["revenue"] for q in quarters)),
                         "net_income": _millions(sum(q["net_income"] for q in quarters)),
                         "eps": round(sum(q["eps_actual"] for q in quarters), 2)})
    return {"symbol": key, "currency": info["currency"], "period": period, "units": "millions",
            "earnings": rows}


@mcp.tool()
def get_financials(
    symbol: str,
    statement: Annotated[Literal["income", "balance", "cashflow"], Field(description="Which statement")],
    period: Literal["yearly", "quarterly"] = "yearly",
) -> dict[str, Any]:
    """Financial statements: income statement, balance sheet or cash-flow statement for the
    last four reported years or quarters (amounts in millions of the listing currency)."""
    key, info = _ticker(symbol)
    if period == "quarterly":
        rows = [_statement(key, statement, [q], q["fiscal_quarter"], q["period_end"])
                for q in _reported_quarters(key, 4)]
    else:
        rows = []
        for year in _reported_years(key, 4):
            quarters = [_quarter(key, year, q) for q in (1, 2, 3, 4)]
            rows.append(_statement(key, statement, quarters, f"FY{year}", f"{year}-12-31"))
    return {"symbol": key, "currency": info["currency"], "statement": statement, "period": period,
            "units": "millions", "rows": rows}


@mcp.tool()
def search_symbols(
    query: Annotated[str, Field(description="Company name, ticker fragment, sector or industry")],
    limit: Annotated[int, Field(ge=1, le=20)] = 5,
) -> dict[str, Any]:
    """Find ticker symbols by company name or keyword."""
    words = [w for w in query.lower().replace(",", " ").split() if w]
    if not words:
        raise ToolError("query must not be empty")
    scored = []
    for symbol, info in _tickers().items():
        hay = f"{symbol} {info['name']} {info['sector']} {info['industry']}".lower()
        score = sum(3 if w == symbol.lower() else 2 if w in info["name"].lower() else 1 if w in hay else 0
                    for w in words)
        if score:
            scored.append((-score, symbol))
    matches = [{"symbol": s, "name": _tickers()[s]["name"], "exchange": _tickers()[s]["exchange"],
                "currency": _tickers()[s]["currency"]} for _, s in sorted(scored)[:limit]]
    return {"query": query, "matches": matches}


@mcp.tool()
def convert(
    amount: float,
    from_currency: Annotated[str, Field(description="ISO currency code, e.g. 'EUR'")],
    to_currency: Annotated[str, Field(description="ISO currency code, e.g. 'USD'")],
    on_date: Annotated[str | None, Field(description="YYYY-MM-DD; default today")] = None,
) -> dict[str, Any]:
    """Convert money between currencies at the day's simulated exchange rate."""
    day = _today()
    if on_date:
        try:
            day = date.fromisoformat(on_date)
        except ValueError:
            raise ToolError(f"on_date must be YYYY-MM-DD, got {on_date!r}") from None
        if day > _today():
            raise ToolError("exchange rates for future dates are not known")
    rate = _fx(to_currency, day) / _fx(from_currency, day)
    target = to_currency.strip().upper()
    digits = 0 if target in ZERO_DECIMALS else 2
    converted = round(amount * rate, digits)
    return {"amount": amount, "from_currency": from_currency.strip().upper(), "to_currency": target,
            "rate": round(rate, 6), "converted": int(converted) if digits == 0 else converted,
            "date": day.isoformat()}


@mcp.tool()
def correlation(
    symbol_a: str,
    symbol_b: str,
    period: Annotated[
        Literal["1mo", "3mo", "6mo", "1y"], Field(description="Window of daily returns")
    ] = "6mo",
) -> dict[str, Any]:
    """Pearson correlation of two tickers' daily returns over a period, from -1 to 1."""
    a, _ = _ticker(symbol_a)
    b, _ = _ticker(symbol_b)
    closes_a = [r["close"] for r in _daily_bars(a, period)]
    closes_b = [r["close"] for r in _daily_bars(b, period)]
    ra = [y / x - 1 for x, y in pairwise(closes_a)]
    rb = [y / x - 1 for x, y in pairwise(closes_b)]
    n = len(ra)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va = math.sqrt(sum((x - ma) ** 2 for x in ra))
    vb = math.sqrt(sum((y - mb) ** 2 for y in rb))
    value = cov / (va * vb) if va and vb else 0.0
    return {"symbol_a": a, "symbol_b": b, "period": period, "observations": n,
            "correlation": round(value, 4)}


if __name__ == "__main__":
    serve(mcp)
