"""Write the shipped data of the business, data and productivity servers, from fixed seeds.

Run ``python -m mcptrials.bundled.data.generate_business`` (or this file directly) to
regenerate ``finance.json``, ``shopdb.json``, ``mail.json``, ``calendar.json`` and
``web_pages.json`` beside it. The output is byte-identical on every run: every random
choice comes from a ``random.Random`` with a fixed seed and JSON keys are sorted.

Times in the mail and calendar data are offsets from the episode's frozen clock, so the
servers place them relative to ``MCPTRIALS_NOW`` at run time.
"""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# --------------------------------------------------------------------------- finance

# symbol: name, exchange, currency, sector, industry, country, employees, shares (billions),
# price at 2026-01-01, yearly drift, yearly volatility, yearly revenue (billions, listed
# currency), revenue growth, gross / operating / net margin, dividend yield, beta, summary.
TICKERS: list[tuple[Any, ...]] = [
    ("AAPL", "Apple Inc.", "NASDAQ", "USD", "Technology", "Consumer Electronics", "United States",
     164000, 15.1, 238.0, 0.10, 0.24, 402.0, 0.05, 0.46, 0.31, 0.25, 0.0045, 1.18,
     "Designs phones, computers, tablets and wearables, and sells the software and "
     "subscription services that run on them."),
    ("MSFT", "Microsoft Corporation", "NASDAQ", "USD", "Technology", "Software - Infrastructure",
     "United States", 228000, 7.43, 455.0, 0.12, 0.22, 281.0, 0.14, 0.69, 0.45, 0.36, 0.0072, 0.93,
     "Sells operating systems, office software and cloud computing, and makes gaming consoles."),
    ("GOOGL", "Alphabet Inc. (Class A)", "NASDAQ", "USD", "Communication Services",
     "Internet Content & Information", "United States", 183000, 12.2, 188.0, 0.11, 0.28, 350.0, 0.12,
     0.58, 0.32, 0.28, 0.0045, 1.02,
     "Runs a search engine, a video platform and an advertising network, plus a cloud business. "
     "Class A shares carry one vote each."),
    ("GOOG", "Alphabet Inc. (Class C)", "NASDAQ", "USD", "Communication Services",
     "Internet Content & Information", "United States", 183000, 5.8, 190.0, 0.11, 0.28, 350.0, 0.12,
     0.58, 0.32, 0.28, 0.0045, 1.02,
     "The same company as GOOGL; Class C shares carry no voting rights."),
    ("AMZN", "Amazon.com, Inc.", "NASDAQ", "USD", "Consumer Cyclical", "Internet Retail",
     "United States", 1550000, 10.6, 221.0, 0.13, 0.30, 640.0, 0.11, 0.49, 0.10, 0.08, 0.0, 1.15,
     "Operates an online marketplace and logistics network and rents out cloud computing capacity."),
    ("NVDA", "NVIDIA Corporation", "NASDAQ", "USD", "Technology", "Semiconductors", "United States",
     36000, 24.4, 139.0, 0.25, 0.45, 160.0, 0.45, 0.74, 0.62, 0.55, 0.0003, 1.70,
     "Designs graphics processors and accelerator chips used for gaming and for training AI models."),
    ("AMD", "Advanced Micro Devices, Inc.", "NASDAQ", "USD", "Technology", "Semiconductors",
     "United States", 28000, 1.62, 121.0, 0.15, 0.48, 29.0, 0.18, 0.53, 0.12, 0.09, 0.0, 1.65,
     "Designs processors and graphics chips for PCs, game consoles and data centres."),
    ("INTC", "Intel Corporation", "NASDAQ", "USD", "Technology", "Semiconductors", "United States",
     108000, 4.36, 20.5, -0.05, 0.42, 53.0, -0.02, 0.35, 0.02, -0.03, 0.0, 1.05,
     "Designs and manufactures processors and runs a contract chip-making business."),
    ("META", "Meta Platforms, Inc.", "NASDAQ", "USD", "Communication Services",
     "Internet Content & Information", "United States", 72000, 2.52, 598.0, 0.14, 0.33, 172.0, 0.16,
     0.81, 0.42, 0.37, 0.0035, 1.25,
     "Runs social networks and messaging apps funded by advertising, and builds VR headsets."),
    ("TSLA", "Tesla, Inc.", "NASDAQ", "USD", "Consumer Cyclical", "Auto Manufacturers",
     "United States", 125000, 3.22, 410.0, 0.08, 0.55, 98.0, 0.03, 0.18, 0.07, 0.07, 0.0, 2.05,
     "Builds electric cars, stationary batteries and solar equipment."),
    ("JPM", "JPMorgan Chase & Co.", "NYSE", "USD", "Financial Services", "Banks - Diversified",
     "United States", 317000, 2.79, 241.0, 0.09, 0.20, 178.0, 0.06, 0.60, 0.40, 0.32, 0.021, 1.08,
     "A large bank offering retail accounts, cards, lending, investment banking and asset management."),
    ("BAC", "Bank of America Corporation", "NYSE", "USD", "Financial Services",
     "Banks - Diversified", "United States", 213000, 7.6, 44.5, 0.07, 0.24, 101.0, 0.04, 0.60, 0.30,
     0.26, 0.023, 1.30,
     "A consumer and commercial bank with a wealth management and markets arm."),
    ("V", "Visa Inc.", "NYSE", "USD", "Financial Services", "Credit Services", "United States",
     31600, 1.95, 316.0, 0.10, 0.19, 38.0, 0.10, 0.80, 0.67, 0.54, 0.0072, 0.95,
     "Runs a card payment network that moves money between banks, merchants and cardholders."),
    ("MA", "Mastercard Incorporated", "NYSE", "USD", "Financial Services", "Credit Services",
     "United States", 35000, 0.92, 527.0, 0.11, 0.20, 31.0, 0.12, 0.77, 0.58, 0.46, 0.0055, 1.05,
     "Operates a payment network and sells fraud and data services to card issuers."),
    ("KO", "The Coca-Cola Company", "NYSE", "USD", "Consumer Defensive", "Beverages - Non-Alcoholic",
     "United States", 69700, 4.31, 62.0, 0.04, 0.15, 47.0, 0.03, 0.61, 0.29, 0.23, 0.031, 0.58,
     "Makes and licenses soft-drink brands sold through bottling partners worldwide."),
    ("PEP", "PepsiCo, Inc.", "NASDAQ", "USD", "Consumer Defensive", "Beverages - Non-Alcoholic",
     "United States", 318000, 1.37, 152.0, 0.02, 0.16, 92.0, 0.02, 0.55, 0.14, 0.10, 0.036, 0.55,
     "Sells snacks and soft drinks, running its own bottling and distribution."),
    ("WMT", "Walmart Inc.", "NYSE", "USD", "Consumer Defensive", "Discount Stores", "United States",
     2100000, 8.03, 91.0, 0.10, 0.18, 681.0, 0.05, 0.25, 0.04, 0.028, 0.0095, 0.52,
     "Runs supercentres, warehouse clubs and an online store."),
    ("COST", "Costco Wholesale Corporation", "NASDAQ", "USD", "Consumer Defensive",
     "Discount Stores", "United States", 333000, 0.44, 915.0, 0.11, 0.20, 264.0, 0.07, 0.13, 0.037,
     0.029, 0.0050, 0.80,
     "Runs membership warehouse stores that sell groceries and general goods in bulk."),
    ("XOM", "Exxon Mobil Corporation", "NYSE", "USD", "Energy", "Oil & Gas Integrated",
     "United States", 61000, 4.32, 108.0, 0.03, 0.23, 339.0, -0.02, 0.31, 0.13, 0.10, 0.036, 0.88,
     "Explores for, produces and refines oil and natural gas and makes chemicals."),
    ("JNJ", "Johnson & Johnson", "NYSE", "USD", "Healthcare", "Drug Manufacturers - General",
     "United States", 139000, 2.41, 145.0, 0.04, 0.15, 89.0, 0.04, 0.69, 0.26, 0.19, 0.034, 0.52,
     "Develops prescription medicines and medical devices."),
    ("PFE", "Pfizer Inc.", "NYSE", "USD", "Healthcare", "Drug Manufacturers - General",
     "United States", 81000, 5.67, 26.0, -0.02, 0.22, 63.0, 0.00, 0.72, 0.22, 0.13, 0.065, 0.60,
     "Researches and sells medicines and vaccines."),
    ("BRK-A", "Berkshire Hathaway Inc. (Class A)", "NYSE", "USD", "Financial Services",
     "Insurance - Diversified", "United States", 392000, 0.00058, 690000.0, 0.09, 0.16, 371.0, 0.05,
     0.30, 0.15, 0.14, 0.0, 0.87,
     "A holding company owning insurers, a railway, utilities and stakes in listed firms. "
     "Class A shares are the original, high-priced class."),
    ("BRK-B", "Berkshire Hathaway Inc. (Class B)", "NYSE", "USD", "Financial Services",
     "Insurance - Diversified", "United States", 392000, 1.31, 460.0, 0.09, 0.16, 371.0, 0.05, 0.30,
     0.15, 0.14, 0.0, 0.87,
     "The same holding company as BRK-A; one Class B share is worth 1/1500 of a Class A share."),
    ("7203.T", "Toyota Motor Corporation", "TSE", "JPY", "Consumer Cyclical", "Auto Manufacturers",
     "Japan", 380000, 13.0, 2850.0, 0.06, 0.25, 46000.0, 0.04, 0.20, 0.11, 0.10, 0.029, 0.60,
     "Builds cars and trucks, including hybrid models, and offers car loans."),
    ("SAP", "SAP SE", "XETRA", "EUR", "Technology", "Software - Application", "Germany", 108000,
     1.17, 238.0, 0.12, 0.24, 36.0, 0.10, 0.73, 0.26, 0.19, 0.0100, 1.00,
     "Sells enterprise software for finance, supply chains and HR, increasingly as a cloud service."),
    ("NESN.SW", "Nestle S.A.", "SIX", "CHF", "Consumer Defensive", "Packaged Foods", "Switzerland",
     270000, 2.58, 78.0, -0.01, 0.15, 91.0, 0.01, 0.46, 0.17, 0.12, 0.039, 0.45,
     "Makes packaged food, coffee, pet food and infant nutrition."),
    ("SHEL.L", "Shell plc", "LSE", "GBP", "Energy", "Oil & Gas Integrated", "United Kingdom",
     103000, 6.2, 25.6, 0.03, 0.22, 230.0, -0.03, 0.22, 0.12, 0.07, 0.041, 0.70,
     "Produces and trades oil, gas and power and runs fuel stations. Reports in US dollars."),
]

# Units of each currency per US dollar on 2026-01-01.
FX_PER_USD: dict[str, float] = {
    "USD": 1.0, "EUR": 0.918, "GBP": 0.786, "JPY": 152.4, "CHF": 0.884, "CAD": 1.372, "AUD": 1.528,
    "NZD": 1.676, "SEK": 10.42, "NOK": 10.71, "DKK": 6.848, "PLN": 3.951, "CNY": 7.186, "HKD": 7.812,
    "SGD": 1.341, "INR": 84.2, "KRW": 1362.0, "MXN": 18.45, "BRL": 5.62, "ZAR": 18.1,
}


def finance_data() -> dict[str, Any]:
    """Ticker profiles, price-model parameters and base exchange rates."""
    rand = random.Random(20260413)
    tickers: dict[str, Any] = {}
    for row in TICKERS:
        (symbol, name, exchange, currency, sector, industry, country, employees, shares, price, drift,
         vol, revenue, growth, gross, operating, net, dividend, beta, summary) = row
        tickers[symbol] = {
            "name": name, "exchange": exchange, "currency": currency, "sector": sector,
            "industry": industry, "country": country, "employees": employees,
            "shares_outstanding": round(shares * 1e9), "base_price": price, "drift": drift,
            "volatility": vol, "revenue": revenue * 1e9, "revenue_growth": growth,
            "gross_margin": gross, "operating_margin": operating, "net_margin": net,
            "dividend_yield": dividend, "beta": beta, "summary": summary,
            "cycles": [
                {"period_days": rand.choice([47, 61, 83, 131, 197, 263, 401]),
                 "amplitude": round(rand.uniform(0.01, 0.06), 4), "phase": round(rand.uniform(0, 6.283), 4)}
                for _ in range(3)
            ],
        }
    return {"tickers": tickers, "fx_per_usd": FX_PER_USD,
            "note": "Simulated market data for an offline benchmark; not real prices."}


# --------------------------------------------------------------------------- shop database

FIRST = ["Ava", "Ben", "Chloe", "Daniel", "Elena", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kira",
         "Liam", "Mia", "Noah", "Olga", "Pablo", "Quinn", "Rosa", "Sven", "Tara", "Umar", "Vera", "Wen",
         "Ximena", "Yusuf", "Zoe", "Leo", "Nadia", "Owen", "Lena"]
LAST = ["Andersen", "Brooks", "Castillo", "Dubois", "Eriksen", "Fischer", "Garcia", "Hoffmann", "Ito",
        "Jensen", "Kowalski", "Larsen", "Moreau", "Novak", "Oliveira", "Petrov", "Quintero", "Rossi",
        "Schmidt", "Tanaka", "Ueda", "Varga", "Weber", "Yilmaz", "Zimmer", "Park"]
CITIES = [("Lisbon", "Portugal"), ("Berlin", "Germany"), ("Lyon", "France"), ("Madrid", "Spain"),
          ("Copenhagen", "Denmark"), ("Warsaw", "Poland"), ("Milan", "Italy"), ("Vienna", "Austria"),
          ("Dublin", "Ireland"), ("Rotterdam", "Netherlands"), ("Gothenburg", "Sweden"),
          ("Porto", "Portugal"), ("Munich", "Germany"), ("Seville", "Spain"), ("Toronto", "Canada"),
          ("Austin", "United States")]
PRODUCTS: list[tuple[str, str, str, float]] = [
    # sku, name, category, price (EUR)
    ("BP-TENT-2", "Ridgeline 2-Person Tent", "tents", 249.0),
    ("BP-TENT-4", "Ridgeline 4-Person Tent", "tents", 389.0),
    ("BP-TENT-UL", "Featherlite Ultralight Tent", "tents", 429.0),
    ("BP-BAG-0", "Glacier 0C Sleeping Bag", "sleeping", 179.0),
    ("BP-BAG-10", "Meadow 10C Sleeping Bag", "sleeping", 99.0),
    ("BP-PAD-AIR", "Cloudrest Air Pad", "sleeping", 119.0),
    ("BP-PAD-FOAM", "Trailfoam Closed-Cell Pad", "sleeping", 39.0),
    ("BP-PACK-35", "Summit 35L Daypack", "packs", 139.0),
    ("BP-PACK-55", "Traverse 55L Backpack", "packs", 229.0),
    ("BP-PACK-70", "Expedition 70L Backpack", "packs", 299.0),
    ("BP-STOVE-CAN", "Blaze Canister Stove", "cooking", 59.0),
    ("BP-STOVE-MULTI", "Blaze Multi-Fuel Stove", "cooking", 149.0),
    ("BP-POT-1L", "Titanium 1L Pot", "cooking", 54.0),
    ("BP-MUG", "Insulated Camp Mug", "cooking", 24.0),
    ("BP-FILTER", "ClearFlow Water Filter", "water", 44.0),
    ("BP-BOTTLE-1L", "Trail Bottle 1L", "water", 19.0),
    ("BP-BLADDER-3L", "Hydra 3L Reservoir", "water", 36.0),
    ("BP-LAMP-400", "Beacon 400 Headlamp", "lighting", 45.0),
    ("BP-LAMP-900", "Beacon 900 Headlamp", "lighting", 79.0),
    ("BP-LANTERN", "Glow Camp Lantern", "lighting", 34.0),
    ("BP-POLES", "Carbon Trekking Poles (pair)", "accessories", 129.0),
    ("BP-GAITERS", "Scree Gaiters", "accessories", 42.0),
    ("BP-COMPASS", "Baseplate Compass", "navigation", 29.0),
    ("BP-GPS", "Waypoint Handheld GPS", "navigation", 319.0),
    ("BP-JKT-RAIN", "Stormshell Rain Jacket", "clothing", 189.0),
    ("BP-JKT-DOWN", "Loft Down Jacket", "clothing", 219.0),
    ("BP-FLEECE", "Basecamp Fleece", "clothing", 79.0),
    ("BP-SOCKS", "Merino Hiking Socks", "clothing", 22.0),
    ("BP-BOOT-M", "Crag Hiking Boot (men)", "footwear", 199.0),
    ("BP-BOOT-W", "Crag Hiking Boot (women)", "footwear", 199.0),
    ("BP-SANDAL", "River Sandal", "footwear", 69.0),
    ("BP-FIRSTAID", "Trail First-Aid Kit", "safety", 49.0),
    ("BP-BIVY", "Emergency Bivy Sack", "safety", 27.0),
    ("BP-WHISTLE", "Storm Whistle", "safety", 9.0),
    ("BP-CHAIR", "Packable Camp Chair", "camp", 89.0),
    ("BP-TABLE", "Roll-Top Camp Table", "camp", 75.0),
    ("BP-HAMMOCK", "Canopy Hammock", "camp", 65.0),
    ("BP-TARP", "Shelter Tarp 3x3m", "tents", 95.0),
    ("BP-KNIFE", "Folding Camp Knife", "accessories", 39.0),
    ("BP-SOLAR", "Sunpanel 21W Charger", "electronics", 109.0),
]
STATUSES = ["delivered"] * 6 + ["shipped"] * 2 + ["pending", "cancelled", "returned"]


def shop_data() -> dict[str, Any]:
    """Rows of the four shop tables: customers, products, orders, order_items."""
    rand = random.Random(1042)
    customers = []
    used: set[str] = set()
    for cid in range(1, 61):
        while True:
            first, last = rand.choice(FIRST), rand.choice(LAST)
            if (first, last) not in used:
                used.add((first, last))  # type: ignore[arg-type]
                break
        city, country = rand.choice(CITIES)
        joined = date(2023, 1, 1) + timedelta(days=rand.randrange(0, 900))
        customers.append({
            "id": cid, "name": f"{first} {last}",
            "email": f"{first.lower()}.{last.lower()}@mail.example",
            "city": city, "country": country, "joined": joined.isoformat(),
        })
    # a customer the mail data refers to
    customers[41]["name"], customers[41]["email"] = "Leo Park", "leo.park@mail.example"
    customers[41]["city"], customers[41]["country"] = "Toronto", "Canada"
    products = []
    for pid, (sku, name, category, price) in enumerate(PRODUCTS, start=1):
        products.append({"id": pid, "sku": sku, "name": name, "category": category, "price": price,
                         "stock": rand.randrange(0, 120)})
    orders = []
    items = []
    start = date(2025, 1, 6)
    for oid in range(1001, 1161):
        day = start + timedelta(days=int((oid - 1001) * 2.9) + rand.randrange(0, 3))
        customer = rand.randrange(1, 61)
        status = rand.choice(STATUSES)
        if day > date(2026, 3, 25):
            status = rand.choice(["pending", "shipped"])
        orders.append({"id": oid, "customer_id": customer, "order_date": day.isoformat(),
                       "status": status})
        for pid in sorted(rand.sample(range(1, len(PRODUCTS) + 1), rand.randrange(1, 5))):
            items.append({"order_id": oid, "product_id": pid, "quantity": rand.choice([1, 1, 1, 2, 2, 3]),
                          "unit_price": PRODUCTS[pid - 1][3]})
    # the damaged order from the mail data
    for order in orders:
        if order["id"] == 1042:
            order["customer_id"], order["status"] = 42, "delivered"
    return {"customers": customers, "products": products, "orders": orders, "order_items": items}


# --------------------------------------------------------------------------- mail

ME = {"name": "Alex Morgan", "email": "alex.morgan@northwind.example"}
CONTACTS = [
    ("Maya Chen", "maya.chen@northwind.example", "Northwind Labs", "CFO"),
    ("Sam Rivera", "sam.rivera@northwind.example", "Northwind Labs", "Engineering manager"),
    ("Dana Whitfield", "dana.whitfield@northwind.example", "Northwind Labs", "Project lead, Atlas"),
    ("Jordan Lee", "jordan.lee@northwind.example", "Northwind Labs", "Office manager"),
    ("Tomas Kral", "tomas.kral@northwind.example", "Northwind Labs", "Data analyst"),
    ("Aisha Bello", "aisha.bello@northwind.example", "Northwind Labs", "HR partner"),
    ("Ravi Menon", "ravi.menon@northwind.example", "Northwind Labs", "IT support"),
    ("Hannah Schulz", "hannah.schulz@northwind.example", "Northwind Labs", "Account manager"),
    ("Leo Park", "leo.park@mail.example", "Bluepeak customer", "Customer"),
    ("Grace Okafor", "grace.okafor@ledgerly.example", "Ledgerly", "Accounts receivable"),
    ("Marco Ruiz", "marco.ruiz@venuehaus.example", "VenueHaus", "Events coordinator"),
    ("Elif Demir", "elif.demir@bluepeak.example", "Bluepeak Outdoor", "Store operations"),
    ("Nora Lindqvist", "nora.lindqvist@northwind.example", "Northwind Labs", "Designer"),
    ("Ken Watanabe", "ken.watanabe@tokai-partners.example", "Tokai Partners", "Partner"),
    ("Sofia Marin", "sofia.marin@northwind.example", "Northwind Labs", "Sales lead"),
    ("Bluepeak Support", "support@bluepeak.example", "Bluepeak Outdoor", "Support desk"),
    ("Olivia Grant", "olivia.grant@northwind.example", "Northwind Labs", "CEO"),
    ("Felix Braun", "felix.braun@clearpath-legal.example", "Clearpath Legal", "Counsel"),
]

# (id, from, to, subject, body, minutes before now, folder, read, labels)
MESSAGES: list[tuple[Any, ...]] = [
    ("m001", "maya.chen@northwind.example", "Board pack: EPS comparison",
     "Hi Alex,\n\nFor the board pack I need the most recent quarterly EPS for Apple (AAPL) and "
     "Microsoft (MSFT), actual versus estimate. Could you pull them and email me the numbers by "
     "Wednesday?\n\nThanks,\nMaya", 55, "inbox", False, ["finance"]),
    ("m002", "leo.park@mail.example", "Order 1042 arrived damaged",
     "Hello,\n\nMy order 1042 arrived yesterday and the tent poles are bent. I would like to return it. "
     "Can you confirm the return and tell me what happens next?\n\nRegards,\nLeo Park", 140, "inbox",
     False, ["support"]),
    ("m003", "sam.rivera@northwind.example", "Can we find 45 minutes this week?",
     "Hey Alex,\n\nI'd like 45 minutes with you on Wednesday afternoon to go over the hiring plan. "
     "Any free slot after 13:00 works for me. Send me an invite?\n\nSam", 190, "inbox", False, []),
    ("m004", "digest@marketwire.example", "Weekly Market Digest: chips rally",
     "This week: semiconductor shares led the market, bank earnings season opens, and oil slipped. "
     "Read more at https://news.marketwire.example/digest/2026-15", 420, "inbox", True, ["newsletter"]),
    ("m005", "priya.n@helio-analytics.example", "Offsite venue deposit",
     "Hi Alex,\n\nThe venue in Porto asks for a deposit of 2,400 EUR to hold the dates. Could you tell me "
     "what that comes to in US dollars so I can get it approved?\n\nBest,\nPriya Natarajan\n"
     "Helio Analytics", 600, "inbox", False, ["offsite"]),
    ("m006", "aisha.bello@northwind.example", "Expense policy updated",
     "Hi all,\n\nThe expense policy has been updated for the new quarter, including the mileage rate. "
     "The full text is at https://handbook.northwind.example/policies/expenses\n\nAisha", 1500, "inbox",
     True, ["hr"]),
    ("m007", "jordan.lee@northwind.example", "Team lunch recipe",
     "Alex, for Friday's team lunch we're making the shakshuka from "
     "https://kitchen.example/recipes/shakshuka - the quantities are in US units, could you convert "
     "them to metric for the shopping list?\n\nJordan", 1700, "inbox", False, ["lunch"]),
    ("m008", "dana.whitfield@northwind.example", "Project Atlas kickoff notes",
     "Team,\n\nKickoff notes for Project Atlas:\n- Goal: migrate the billing reports to the new data "
     "warehouse by end of June.\n- Tomas Kral owns the data model.\n- Nora Lindqvist owns the dashboard "
     "design.\n- Budget: 48,000 EUR.\n- Next review on Wednesday.\n\nDana", 2900, "inbox", True,
     ["atlas"]),
    ("m009", "grace.okafor@ledgerly.example", "Invoice INV-2291 overdue",
     "Dear Alex,\n\nOur invoice INV-2291 for 3,150.00 GBP was due on 31 March and is still open. Please "
     "arrange payment or let us know if there is a problem.\n\nKind regards,\nGrace Okafor\nLedgerly",
     3100, "inbox", False, ["finance"]),
    ("m010", "ravi.menon@northwind.example", "Laptop refresh schedule",
     "Hi Alex, your laptop is due for replacement. Please book a 30 minute handover slot with IT next "
     "week.\n\nRavi", 4300, "inbox", True, ["it"]),
    ("m011", "digest@marketwire.example", "Weekly Market Digest: rates on hold",
     "Central banks held rates, consumer staples outperformed and the yen weakened. "
     "Read more at https://news.marketwire.example/digest/2026-14", 10500, "inbox", True,
     ["newsletter"]),
    ("m012", "marco.ruiz@venuehaus.example", "Quote for the June offsite",
     "Hello Alex,\n\nAs promised, our quote for the June offsite: room hire 1,800 EUR per day for two "
     "days, catering 42 EUR per person per day. The deposit is 20% of room hire.\n\nMarco Ruiz\n"
     "VenueHaus", 5800, "inbox", True, ["offsite"]),
    ("m013", "tomas.kral@northwind.example", "Regional sales numbers",
     "Alex,\n\nHere are the monthly unit sales for the pilot region, January to August: 120, 135, 150, "
     "149, 171, 180, 198, 205. And the ad spend in thousands for the same months: 10, 11, 13, 13, 15, "
     "16, 18, 18. Can you check how well spend predicts sales?\n\nTomas", 7200, "inbox", False,
     ["analysis"]),
    ("m014", "support@bluepeak.example", "Your Bluepeak order has shipped",
     "Your order 1157 has shipped and should arrive within 3 working days.", 8600, "inbox", True,
     ["notifications"]),
    ("m015", "olivia.grant@northwind.example", "Quarterly review prep",
     "Alex,\n\nFor the quarterly review please prepare a one-page summary of Project Atlas status and "
     "publish it on the internal site so everyone can read it before the meeting.\n\nOlivia", 9800,
     "inbox", False, ["atlas"]),
    ("m016", "hannah.schulz@northwind.example", "Client visit from Tokai Partners",
     "Hi Alex,\n\nKen Watanabe from Tokai Partners visits on Thursday. He asked how Toyota's share price "
     "has moved in the past month, in yen. Could you prepare that?\n\nHannah", 11200, "inbox", True,
     []),
    ("m017", "digest@marketwire.example", "Weekly Market Digest: earnings preview",
     "Big tech reports later this month; analysts expect strong cloud growth. "
     "Read more at https://news.marketwire.example/digest/2026-13", 20500, "inbox", True,
     ["newsletter"]),
    ("m018", "felix.braun@clearpath-legal.example", "NDA for Helio Analytics",
     "Alex,\n\nAttached in spirit: the NDA draft for Helio Analytics is ready for your review. Please "
     "reply with any changes by Friday.\n\nFelix Braun\nClearpath Legal", 13000, "inbox", True, ["legal"]),
    ("m019", "sofia.marin@northwind.example", "Customer list for Lisbon event",
     "Hi Alex, could you pull the list of our shop customers based in Lisbon? I want to invite them to "
     "the store event.\n\nSofia", 14500, "inbox", False, ["sales"]),
    ("m020", "elif.demir@bluepeak.example", "Stock check: headlamps",
     "Hi Alex, how many Beacon 400 and Beacon 900 headlamps do we have in stock? We may run a promotion "
     "next month.\n\nElif", 16000, "inbox", True, ["sales"]),
    ("m021", "jordan.lee@northwind.example", "Office closed on 1 May",
     "Reminder: the office is closed on 1 May for the public holiday.", 30000, "archive", True, []),
    ("m022", "aisha.bello@northwind.example", "Onboarding buddy",
     "Alex, thank you for agreeing to be an onboarding buddy. The checklist is at "
     "https://handbook.northwind.example/people/onboarding", 40000, "archive", True, ["hr"]),
    ("m023", "maya.chen@northwind.example", "Re: budget 2026",
     "Thanks Alex, the 2026 budget is approved as submitted.", 52000, "archive", True, ["finance"]),
    ("m024", "promo@gearhub.example", "Flash sale: 40% off everything!!!",
     "Huge savings on outdoor gear this weekend only. Click now.", 700, "inbox", False, ["promotions"]),
    ("m025", "ken.watanabe@tokai-partners.example", "Looking forward to Thursday",
     "Dear Alex,\n\nI look forward to our meeting on Thursday. Could we start at 10:00?\n\n"
     "Best regards,\nKen Watanabe", 2200, "inbox", False, []),
    ("m026", "sam.rivera@northwind.example", "Hiring plan draft",
     "Draft hiring plan: two backend engineers in Q2, one data engineer in Q3. Total budget "
     "310,000 EUR.", 3600, "inbox", True, []),
    ("m027", "nora.lindqvist@northwind.example", "Atlas dashboard mockups",
     "Alex, the first dashboard mockups for Atlas are done; I used the new colour palette. "
     "Feedback welcome before Wednesday's review.", 2500, "inbox", True, ["atlas"]),
    ("m028", "ravi.menon@northwind.example", "Security reminder",
     "Never share your password by email. Phishing reports go to security@northwind.example.", 26000,
     "inbox", True, ["it"]),
]


def mail_data() -> dict[str, Any]:
    """Contacts and seed messages; message times are minutes before the frozen clock."""
    names = {email: name for name, email, _org, _role in CONTACTS}
    names.update({"digest@marketwire.example": "Marketwire Digest", "promo@gearhub.example": "GearHub",
                  "priya.n@helio-analytics.example": "Priya Natarajan"})
    messages = []
    for mid, sender, subject, body, minutes, folder, read, labels in MESSAGES:
        messages.append({
            "id": mid, "from": {"name": names[sender], "email": sender}, "to": [ME],
            "subject": subject, "body": body, "minutes_ago": minutes, "folder": folder, "read": read,
            "labels": labels,
        })
    contacts = [{"name": n, "email": e, "organization": o, "role": r} for n, e, o, r in CONTACTS]
    return {"owner": ME, "contacts": contacts, "messages": messages}


# --------------------------------------------------------------------------- calendar

# (id, title, day offset from the frozen date, start "HH:MM" or None for all-day, minutes,
#  location, attendees, description)
EVENTS: list[tuple[Any, ...]] = [
    ("evt-001", "Team standup", 0, "09:30", 15, "Room Fjord", ["sam.rivera@northwind.example"], ""),
    ("evt-002", "Team standup", 1, "09:30", 15, "Room Fjord", ["sam.rivera@northwind.example"], ""),
    ("evt-003", "Team standup", 2, "09:30", 15, "Room Fjord", ["sam.rivera@northwind.example"], ""),
    ("evt-004", "Team standup", 3, "09:30", 15, "Room Fjord", ["sam.rivera@northwind.example"], ""),
    ("evt-005", "Team standup", 4, "09:30", 15, "Room Fjord", ["sam.rivera@northwind.example"], ""),
    ("evt-006", "1:1 with Sam", 1, "14:00", 30, "Sam's office", ["sam.rivera@northwind.example"],
     "Weekly one-to-one."),
    ("evt-007", "Project Atlas review", 2, "10:00", 90, "Room Delta",
     ["dana.whitfield@northwind.example", "tomas.kral@northwind.example",
      "nora.lindqvist@northwind.example"], "Status of the billing-report migration."),
    ("evt-008", "Lunch with Maya", 2, "12:30", 60, "Cafe Linde", ["maya.chen@northwind.example"], ""),
    ("evt-009", "Dentist appointment", 3, "16:00", 60, "Smile Dental, Harbour St 4", [],
     "Routine check-up."),
    ("evt-010", "Board pack prep", 4, "13:00", 120, "Room Delta", ["maya.chen@northwind.example"],
     "Assemble the quarterly board pack."),
    ("evt-011", "Budget sync", 0, "11:00", 60, "Video call", ["maya.chen@northwind.example"], ""),
    ("evt-012", "Customer call: Bluepeak", 0, "15:00", 45, "Video call", ["elif.demir@bluepeak.example"],
     "Quarterly account check-in."),
    ("evt-013", "Design critique", 2, "15:30", 60, "Studio", ["nora.lindqvist@northwind.example"], ""),
    ("evt-014", "Tokai Partners visit", 3, "11:00", 90, "Room Fjord",
     ["ken.watanabe@tokai-partners.example", "hannah.schulz@northwind.example"], "Partner visit."),
    ("evt-015", "Gym", 1, "18:00", 60, "City Gym", [], ""),
    ("evt-016", "1:1 with Sam", 8, "14:00", 30, "Sam's office", ["sam.rivera@northwind.example"],
     "Weekly one-to-one."),
    ("evt-017", "Quarterly review", 9, "10:00", 120, "Main hall",
     ["olivia.grant@northwind.example", "maya.chen@northwind.example", "dana.whitfield@northwind.example"],
     "Company quarterly review."),
    ("evt-018", "Team offsite (Porto)", 57, None, 0, "Porto", [], "Two-day offsite, second day follows."),
    ("evt-019", "Retro", -3, "16:00", 60, "Room Fjord", ["sam.rivera@northwind.example"], ""),
    ("evt-020", "Vendor demo: Ledgerly", -1, "10:00", 45, "Video call", ["grace.okafor@ledgerly.example"],
     ""),
    ("evt-021", "Public holiday", 18, None, 0, "", [], "Office closed."),
    ("evt-022", "Hiring plan review", 7, "09:00", 60, "Room Delta", ["sam.rivera@northwind.example",
                                                                   "aisha.bello@northwind.example"], ""),
]


def calendar_data() -> dict[str, Any]:
    """Seed events placed by day offset from the frozen clock's date, in its time zone."""
    events = []
    for eid, title, day, start, minutes, location, attendees, description in EVENTS:
        events.append({"id": eid, "title": title, "day_offset": day, "start": start,
                       "duration_minutes": minutes, "all_day": start is None, "location": location,
                       "attendees": attendees, "description": description})
    return {"owner": ME["email"], "events": events}


# --------------------------------------------------------------------------- web corpus


def page(url: str, title: str, text: str, links: list[str] | None = None,
         moved_to: str | None = None) -> dict[str, Any]:
    """One page of the offline web."""
    return {"url": url, "title": title, "text": text.strip(), "links": links or [], "moved_to": moved_to}


HB = "https://handbook.northwind.example"
SHOP = "https://shop.bluepeak.example"
NEWS = "https://news.marketwire.example"
KITCHEN = "https://kitchen.example"
LEARN = "https://learn.numbersense.example"


def web_pages() -> list[dict[str, Any]]:
    """About forty small pages: a company handbook, a shop, market news, recipes, explainers."""
    pages = [
        page(f"{HB}/", "Northwind Labs handbook",
             "The Northwind Labs handbook collects how we work: policies, people processes and "
             "office information. Start with the expense policy, the travel policy or the onboarding "
             "checklist.",
             [f"{HB}/policies/expenses", f"{HB}/policies/travel", f"{HB}/people/onboarding",
              f"{HB}/office/holidays", f"{HB}/policies/security"]),
        page(f"{HB}/policies/expenses", "Expense policy (Q2 2026)",
             "Expense policy, effective 1 April 2026.\n\n"
             "Mileage: when you drive your own car for work we reimburse 0.42 EUR per kilometre. "
             "Claims in miles are converted to kilometres before payment.\n"
             "Meals: the daily meal allowance is 55 EUR when travelling, 25 EUR for a working lunch.\n"
             "Hotels: up to 160 EUR per night in most cities, 210 EUR in London, Paris and Zurich.\n"
             "Receipts: submit receipts within 30 days. Claims above 500 EUR need approval from your "
             "manager before they are paid.\n"
             "Foreign currency: we reimburse in EUR at the exchange rate of the day you paid.",
             [f"{HB}/policies/travel", f"{HB}/"]),
        page(f"{HB}/policies/travel", "Travel policy",
             "Book trips through the travel desk at least 14 days ahead. Economy class for flights under "
             "6 hours, premium economy above that. Rail is preferred for trips under 4 hours. Per diem "
             "and hotel limits are in the expense policy.",
             [f"{HB}/policies/expenses"]),
        page(f"{HB}/policies/mileage", "Mileage rates (archived)",
             "This page has moved. Mileage rules now live in the expense policy.",
             [f"{HB}/policies/expenses"], moved_to=f"{HB}/policies/expenses"),
        page(f"{HB}/people/onboarding", "Onboarding checklist",
             "Onboarding checklist for new colleagues:\n1. Collect your laptop from IT on day one.\n"
             "2. Set up two-factor authentication.\n3. Read the security policy.\n"
             "4. Meet your onboarding buddy in the first week.\n5. Book a 30-minute intro with HR.\n"
             "6. Join the team standup at 09:30.",
             [f"{HB}/policies/security"]),
        page(f"{HB}/office/holidays", "Office holidays 2026",
             "The office is closed on these days in 2026: 1 January, 3 April (Good Friday), 6 April "
             "(Easter Monday), 1 May, 14 May, 25 May, 24-26 December and 31 December.", []),
        page(f"{HB}/policies/security", "Security policy",
             "Use a password manager and unique passwords. Report suspicious emails to "
             "security@northwind.example. Lock your screen when you leave your desk. Laptops are "
             "replaced every three years.", []),
        page(f"{HB}/people/parental-leave", "Parental leave",
             "Every parent gets 20 weeks of paid leave, which can be split into up to three blocks "
             "within the child's first two years.", []),
        page(f"{SHOP}/", "Bluepeak Outdoor",
             "Bluepeak Outdoor sells tents, packs, sleeping gear and clothing for hikers. See our "
             "returns policy and shipping rates, or browse the product pages.",
             [f"{SHOP}/help/returns", f"{SHOP}/help/shipping"]),
        page(f"{SHOP}/help/returns", "Returns and refunds",
             "You may return any item within 60 days of delivery. Damaged or faulty items are refunded "
             "in full, including shipping, once we receive them. Set the order to 'returned' in the "
             "order system when the customer confirms the return. Refunds take 5 to 7 working days.",
             [f"{SHOP}/"]),
        page(f"{SHOP}/help/shipping", "Shipping rates",
             "Standard shipping costs 6.90 EUR and is free on orders above 150 EUR. Express shipping "
             "costs 14.90 EUR. We ship to the EU, the United Kingdom, Canada and the United States.",
             [f"{SHOP}/"]),
    ]
    product_notes = {
        "BP-TENT-2": ("A freestanding two-person tent with two doors.", 2.1, "kg"),
        "BP-TENT-UL": ("Our lightest tent, pitched with trekking poles.", 0.98, "kg"),
        "BP-BAG-0": ("Down sleeping bag rated to 0 C comfort.", 1.15, "kg"),
        "BP-PACK-55": ("A 55 litre pack with an adjustable back system.", 1.6, "kg"),
        "BP-STOVE-CAN": ("A compact stove that screws onto gas canisters.", 0.085, "kg"),
        "BP-FILTER": ("Filters up to 1,500 litres of water.", 0.09, "kg"),
        "BP-LAMP-400": ("A 400 lumen headlamp with a red night mode.", 0.072, "kg"),
        "BP-LAMP-900": ("A 900 lumen rechargeable headlamp.", 0.11, "kg"),
        "BP-GPS": ("A handheld GPS with topographic maps and 16 hours of battery.", 0.23, "kg"),
        "BP-JKT-RAIN": ("A three-layer waterproof jacket with pit zips.", 0.39, "kg"),
        "BP-BOOT-W": ("A leather hiking boot with a waterproof lining.", 1.24, "kg"),
        "BP-SOLAR": ("A folding 21 watt solar charger with two USB ports.", 0.5, "kg"),
    }
    for sku, name, category, price in PRODUCTS:
        if sku not in product_notes:
            continue
        note, weight, unit = product_notes[sku]
        pages.append(page(
            f"{SHOP}/products/{sku.lower()}", f"{name} | Bluepeak",
            f"{name} ({sku}). {note} Category: {category}. Price: {price:.2f} EUR. "
            f"Weight: {weight} {unit}. Check the returns policy before buying.",
            [f"{SHOP}/help/returns"]))
    pages += [
        page(f"{NEWS}/digest/2026-15", "Weekly Market Digest: chips rally",
             "Semiconductor shares led the week. NVIDIA and AMD rose on strong data-centre orders, while "
             "Intel lagged. Banks open the earnings season next week; analysts watch net interest "
             "income. Oil slipped on higher inventories.", [f"{NEWS}/digest/2026-14"]),
        page(f"{NEWS}/digest/2026-14", "Weekly Market Digest: rates on hold",
             "Central banks held rates steady. Consumer staples such as Coca-Cola and PepsiCo "
             "outperformed. The yen weakened against the dollar, helping Japanese exporters like Toyota.",
             [f"{NEWS}/digest/2026-13"]),
        page(f"{NEWS}/digest/2026-13", "Weekly Market Digest: earnings preview",
             "Big tech reports later this month. Analysts expect cloud revenue at Microsoft and Alphabet "
             "to keep growing and watch Apple's services margin.", []),
        page(f"{NEWS}/explainers/share-classes", "Why some companies have two tickers",
             "Some companies list more than one share class. Alphabet trades as GOOGL (Class A, voting) "
             "and GOOG (Class C, no vote). Berkshire Hathaway trades as BRK-A and the far cheaper BRK-B. "
             "Always check which class a price refers to.", []),
        page(f"{NEWS}/explainers/eps", "What earnings per share tells you",
             "Earnings per share (EPS) is net income divided by shares outstanding. Companies report it "
             "each quarter next to the analysts' estimate; the difference is the surprise.", []),
        page(f"{NEWS}/explainers/pe-ratio", "Reading the P/E ratio",
             "The price-to-earnings ratio divides the share price by the last twelve months of EPS. A high "
             "P/E means investors pay more for each unit of profit, often because they expect growth.", []),
        page(f"{KITCHEN}/recipes/shakshuka", "Shakshuka for a crowd",
             "Serves 8.\nIngredients:\n- 3 tablespoons olive oil\n- 2 pounds tomatoes (canned is fine)\n"
             "- 1.5 cups chopped onion\n- 12 eggs\n- 8 ounces feta cheese\n- 2 teaspoons cumin\n"
             "Bake in the oven at 375 F for 10 minutes after adding the eggs.",
             [f"{KITCHEN}/guides/oven-temperatures"]),
        page(f"{KITCHEN}/recipes/banana-bread", "Banana bread",
             "Ingredients: 3 ripe bananas, 1/3 cup melted butter, 3/4 cup sugar, 1 egg, 1.5 cups flour, "
             "1 teaspoon baking soda. Bake at 350 F for 60 minutes in a 9 by 5 inch loaf pan.", []),
        page(f"{KITCHEN}/recipes/cold-brew", "Cold brew coffee",
             "Mix 1 cup of coarsely ground coffee with 4 cups of cold water. Steep for 16 hours, then "
             "strain. Keeps for a week in the fridge.", []),
        page(f"{KITCHEN}/guides/oven-temperatures", "Oven temperature guide",
             "Recipes from the United States give oven temperatures in Fahrenheit. 350 F is a moderate "
             "oven, 375 F moderately hot and 425 F hot. Fan ovens run about 20 degrees Celsius hotter.", []),
        page(f"{KITCHEN}/guides/measuring", "Cups, ounces and pounds",
             "A US cup is a volume measure (about 237 millilitres); an ounce can be a weight or a fluid "
             "volume. A pound is 16 ounces of weight. Convert carefully when shopping in metric.", []),
        page(f"{LEARN}/stats/linear-regression", "Linear regression in one page",
             "Simple linear regression fits y = slope * x + intercept by least squares. R squared says what "
             "share of the variance in y the line explains: 1 is a perfect fit, 0 none.", []),
        page(f"{LEARN}/stats/median-vs-mean", "Median or mean?",
             "The mean is pulled by outliers; the median is the middle value once sorted. For skewed "
             "data such as incomes or delivery times, report the median.", []),
        page(f"{LEARN}/stats/correlation", "Correlation is not causation",
             "Pearson correlation measures linear association between -1 and 1. Spearman correlation "
             "uses ranks and captures monotone relations.", []),
        page(f"{LEARN}/linear-algebra/eigenvalues", "Eigenvalues without tears",
             "An eigenvalue of a square matrix A is a number lambda with A v = lambda v for some non-zero "
             "vector v. The determinant is the product of the eigenvalues and the trace their sum.", []),
        page(f"{LEARN}/units/si-prefixes", "SI prefixes",
             "kilo means a thousand, mega a million, milli a thousandth and micro a millionth. A kibibyte "
             "is 1024 bytes, a kilobyte 1000.", []),
        page(f"{LEARN}/units/speed", "Speed units",
             "1 mile per hour is 1.609344 kilometres per hour; 1 knot is 1.852 kilometres per hour; "
             "1 metre per second is 3.6 kilometres per hour.", []),
    ]
    return pages


def main() -> None:
    """Write every data file next to this script."""
    outputs = {
        "finance.json": finance_data(),
        "shopdb.json": shop_data(),
        "mail.json": mail_data(),
        "calendar.json": calendar_data(),
        "web_pages.json": {"pages": web_pages()},
    }
    for name, data in outputs.items():
        text = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        (HERE / name).write_text(text, encoding="utf-8")
        print(f"wrote {name} ({len(text.encode()):,} bytes)")


if __name__ == "__main__":
    main()
