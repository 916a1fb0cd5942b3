"""Normalised values in text: numbers, dates, times, label-bound facts and claims that must be absent."""

from __future__ import annotations

import pytest

from mcptrials.model import Fact, ValueCheckpoint
from mcptrials.scoring.answers import absent_violations, states
from mcptrials.scoring.claims import check_facts, text_holds


@pytest.mark.parametrize(("text", "expected", "found"), [
    ("Total: 1,486,500 EUR", 1486500, True),
    ("Total: 1486500", 1486500, True),
    ("Total: 1 486 500 €", 1486500, True),
    ("about 1.49 million euros", 1486500, True),
    ("about 1.5 million euros", 1486500, True),
    ("about 1.4 million euros", 1486500, False),
    ("3.150,00 GBP", 3150, False),          # a European thousands dot is not read (ambiguous with decimals)
    ("3,150.00 GBP", 3150, True),
    ("3150.0 GBP", 3150, True),
    ("roughly 42.16 km", 42.1648, True),
    ("roughly 42.2 km", 42.1648, True),
    ("roughly 42 km", 42.1648, False),       # a whole number does not state 42.16
    ("roughly 42.17 km", 42.1648, False),    # wrong rounding
    ("a ratio of 1,5", 1.5, True),           # decimal comma
    ("3,500 units", 3500, True),             # a comma before three digits groups thousands
    ("EPS $4.36", 4.36, True),
    ("EPS $4.36", "4.36", True),             # a numeric string is compared as a number
    ("EPS 4.360", 4.36, True),               # trailing zeros
    ("EPS 14.36", 4.36, False),              # no match inside a longer number
    ("-3.5 °C", -3.5, True),
    ("2026-04-13", 4, False),                # parts of a date are not numbers of their own sign
])
def test_numbers(text: str, expected: float, found: bool) -> None:
    assert states(text, expected) is found


def test_number_tolerance() -> None:
    assert states("about 42 km", 42.1648, tol=0.5)
    assert not states("about 41 km", 42.1648, tol=0.5)


@pytest.mark.parametrize(("text", "found"), [
    ("on 2026-04-13", True),
    ("on 13 April 2026", True),
    ("on Monday, April 13", True),
    ("on Apr 13th, 2026", True),
    ("on 13/04/2026", True),
    ("on 04/13/2026", True),
    ("on 13 April 2025", False),
    ("on 14 April 2026", False),
    ("on 2026-04-14", False),
])
def test_dates(text: str, found: bool) -> None:
    assert states(text, "2026-04-13") is found


@pytest.mark.parametrize(("text", "expected", "found"), [
    ("leaves at 09:00", "09:00", True),
    ("leaves at 9:00", "09:00", True),
    ("leaves at 9am", "09:00", True),
    ("leaves at 9 a.m.", "09:00", True),
    ("leaves at 9pm", "09:00", False),
    ("arrives 9:30 pm", "21:30", True),
    ("arrives 21:30", "21:30", True),
    ("arrives 21:35", "21:30", False),
    ("2026-04-13 at 07:05", "2026-04-13T07:05:00+08:00", True),
    ("2026-04-13 at 07:15", "2026-04-13T07:05:00+08:00", False),
])
def test_times(text: str, expected: str, found: bool) -> None:
    assert states(text, expected) is found


def test_text_values_are_case_accent_and_word_bound() -> None:
    assert states("Booked with Tokai PARTNERS", "tokai partners")
    assert states("Café Zürich", "cafe zurich")
    assert states("invoice INV-2291 is overdue", "inv-2291")
    assert not states("invoice INV-22910", "INV-2291")
    assert not states("Grace Okafor's team", "race")      # a value starts a word
    assert states("expect a rainy, foggy morning", "rain") and states("foggy", "fog")  # stems
    assert not states("Apple", "A") and not states("up 20%", "0%")


MODELS = [Fact(label="model A", value=12), Fact(label="model B", value=40)]


@pytest.mark.parametrize(("text", "both"), [
    ("model A: 12, model B: 40", True),
    ("12 for model A, 40 for model B", True),
    ("Model A scored 12 and model B scored 40.", True),
    ("| model A | 12 |\n| model B | 40 |", True),
    ("model A and model B scored 12 and 40 respectively", True),
    ("Model A, with 12, trails model B (40).", True),
    ("model A: 40, model B: 12", False),
    ("40 for model A, 12 for model B", False),
    ("Model A scored 40 and model B scored 12.", False),
    ("model A and model B scored 40 and 12 respectively", False),
    ("model A: 12", False),
])
def test_facts_bind_values_to_labels(text: str, both: bool) -> None:
    assert all(v.stated for v in check_facts(text, MODELS)) is both


def test_fact_labels_and_values_take_alternatives() -> None:
    eps = [Fact(label=["actual", "reported"], value=4.36), Fact(label=["expected", "estimate"], value=[4.15, "4.15"])]
    assert all(v.stated for v in check_facts("It reported EPS of $4.36, above the $4.15 analysts expected.", eps))
    assert not all(v.stated for v in check_facts("It reported EPS of $4.15, above the $4.36 analysts expected.", eps))
    verdicts = check_facts("EPS was 4.36.", eps)
    assert [v.stated for v in verdicts] == [False, False]
    assert "not mentioned" in verdicts[1].detail


def test_facts_on_dates_as_labels() -> None:
    forecast = [Fact(label="2026-04-14", value="rain"), Fact(label="2026-04-15", value="sunny")]
    assert all(v.stated for v in check_facts("Tue 14 April: rain. Wed 15 April: sunny.", forecast))
    assert not all(v.stated for v in check_facts("Tue 14 April: sunny. Wed 15 April: rain.", forecast))


def test_absent() -> None:
    assert absent_violations("Take the G1 at 07:00", ["G7", "09:00"]) == []
    assert absent_violations("Take the G7 at 09:00", ["G7", "09:00"]) == ["G7", "09:00"]
    assert absent_violations("a total of 1,240,000 EUR", [1240000]) == [1240000]


@pytest.mark.parametrize("expected", ["31:20", "2026-13-45", "2026-02-30T25:00", "99:99"])
def test_values_that_only_look_like_dates_or_times_are_text(expected: str) -> None:
    assert states(f"lap time {expected} here", expected)
    assert not states("nothing like it", expected)


def test_one_letter_scales_are_read_both_ways() -> None:
    assert states("a 150 m walk", 150)
    assert states("revenue of $79.8m", 79_765_300)
    assert states("a 5k run", 5000) and states("a 5k run", 5)


def test_signs_currency_and_scales_after_separators() -> None:
    assert states("EPS was -$2.29", -2.29) and not states("EPS was -$2.29", 2.29)
    assert states("a market cap of $3,612.4B", 3_612_400_000_000)
    assert states("a market cap of $3.61T", 3_612_400_000_000)
    assert states("up +0.36%", "+0.36") and not states("down 0.36%", "+0.36")


def test_label_mentions_merge_only_within_a_sentence() -> None:
    income = [Fact(label=["net income"], value=32397.1)]
    table = "| quarter | net income |\n|---|---|\n| 2025-Q4 | 32,397.1 |"
    assert all(v.stated for v in check_facts("Net income\nThe net income was 32,397.1 million.", income))
    assert all(v.stated for v in check_facts(table, income))  # the column header labels the cell
    assert not all(v.stated for v in check_facts("Net income\n\n32,397.1 was revenue", income))


def test_wrapped_prose_keeps_a_label_with_its_value() -> None:
    swap = [Fact(label="GOOGL", value=1.9), Fact(label="MSFT", value=5.17)]
    assert all(v.stated for v in check_facts("GOOGL beat by\n1.9% and MSFT beat by\n5.17%.", swap))
    assert all(v.stated for v in check_facts("Total:\n42,000 EUR", [Fact(label="total", value=42000)]))
    assert not all(v.stated for v in check_facts("- GOOGL\n- 5.17%\n- MSFT\n- 1.9%", swap))


def test_a_currency_sign_can_label_the_figure_after_it() -> None:
    price = [Fact(label=["$", "usd"], value=19.14), Fact(label=["¥", "jpy"], value=2953.71)]
    assert all(v.stated for v in check_facts("JPY 2953.71, or $19.14 in US dollars.", price))
    assert not all(v.stated for v in check_facts("¥19.14, or $2,953.71.", price))


@pytest.mark.parametrize(("text", "expected", "found"), [
    ("free 1:30-2:15pm", "13:30", True),
    ("free 1:30-2:15pm", "14:15", True),
    ("free 4-5pm", "16:00", True),
    ("free 11-1pm", "11:00", True),
    ("free 4-5pm", "04:00", False),
])
def test_time_ranges_share_their_am_pm(text: str, expected: str, found: bool) -> None:
    assert states(text, expected) is found


def test_table_columns_label_their_cells() -> None:
    eps = [Fact(label="microsoft", value=4.36), Fact(label="estimate", value=4.15)]
    table = "| Company | Actual EPS | Estimate |\n|---|---:|---|\n| Microsoft | 4.36 | 4.15 |\n| Apple | 2.1 | 2.0 |"
    assert all(v.stated for v in check_facts(table, eps))
    swapped = table.replace("| 4.36 | 4.15 |", "| 4.15 | 4.36 |")
    assert not all(v.stated for v in check_facts(swapped, eps))


def test_underscores_separate_words() -> None:
    assert states("relation owns_data_model_of", "owns")
    assert states("relation owns data model of", "owns_data_model_of")


def test_contains_items_may_list_alternatives_and_words_take_plurals() -> None:
    from mcptrials.model import ValueCheckpoint
    from mcptrials.scoring.claims import text_problems

    cp = ValueCheckpoint(id="a", contains=[["invite", "invitation"], "venue", "G3"])
    assert text_problems(cp, "Send the invitations and book the venue for G3.") == []
    assert text_problems(cp, "Send invites, book venues, take G3") == []
    assert [p.detail for p in text_problems(cp, "Send invites and book the venue for G31.")] == ["missing ['G3']"]
    assert [p.detail for p in text_problems(cp, "Send invites and book the revenue for G3.")] == ["missing ['venue']"]


def test_one_value_after_several_labels_binds_to_all() -> None:
    tie = [Fact(label="Beijing", value=58), Fact(label="Chengdu", value=58)]
    assert all(v.stated for v in check_facts("Beijing and Chengdu are tied at 58.", tie))
    assert not all(v.stated for v in check_facts("Beijing and Chengdu scored 40.", MODELS + tie))
    assert not check_facts("model A and model B scored 40", MODELS)[0].stated  # A's value is 12


def test_a_label_after_its_value_is_not_taken_by_a_later_value() -> None:
    mae = [Fact(label="median absolute error", value=4.1), Fact(label="classic rule", value=6.8)]
    assert all(v.stated for v in check_facts("4.1 min (median absolute error), better than the classic rule's "
                                             "6.8 min", mae))


HIGH_LOW = [Fact(label=["high", "max", "warmest"], value=23.5, tol=0.5, unit="c"),
            Fact(label=["low", "min", "coldest"], value=18.9, tol=0.5, unit="c")]


@pytest.mark.parametrize(("text", "both"), [
    ("Xiamen on Saturday: rain, between 18.9 and 23.5 °C.", True),
    ("Xiamen: 18.9-23.5 °C, 85% chance of rain.", True),
    ("Xiamen: from 66 °F to 74.3 °F.", True),
    ("Xiamen: 23.5 to 18.9 °C.", False),  # the ends reversed
    ("Xiamen: between 18.9 and 25 °C.", False),
    ("Xiamen: high 18.9 °C, low 23.5 °C.", False),  # labelled the wrong way round
    ("Xiamen: a high of 23.5 °C and a low of 18.9 °C.", True),
])
def test_a_range_states_its_low_and_its_high(text: str, both: bool) -> None:
    assert all(v.stated for v in check_facts(text, HIGH_LOW)) is both
    check = ValueCheckpoint(id="answer", source="final_message", facts=HIGH_LOW)
    assert text_holds(check, text) is both  # the early exits agree with the full reading


def test_a_label_of_a_quantity_takes_the_value_in_that_quantity() -> None:
    facts = [Fact(label=["zion"], value=30.4, tol=0.5, unit="c"), Fact(label=["bryce"], value=21.0, tol=0.5, unit="c"),
             Fact(label=["full"], value=0)]
    row = "| Park | Campground | Friday high |\n|---|---|---|\n"
    right = row + "| Zion | Willow: full, 0 free sites | 30.4°C |\n| Bryce | Canyon: 6 free sites | 21.0°C |"
    swapped = row + "| Zion | Willow: full, 0 free sites | 21.0°C |\n| Bryce | Canyon: 6 free sites | 30.4°C |"
    assert all(v.stated for v in check_facts(right, facts))
    verdicts = check_facts(swapped, facts)
    assert not verdicts[0].stated and not verdicts[1].stated


@pytest.mark.parametrize(("text", "expected", "found"), [
    ("mean error of 8.7% at a fourteen-day horizon", 14, True),
    ("a twenty-one-day trip", 21, True),
    ("a ninety-minute lead time", 90, True),
    ("a ten-minute walk", 100, False),
    ("a fourteen-day horizon", 4, False),
    ("a two-thirds majority", 2, False),     # a fraction stays words
    ("a one-off payment", 1, False),         # "one-off", "one-way": no count
])
def test_a_number_in_words_joined_to_its_noun_is_read(text: str, expected: float, found: bool) -> None:
    assert states(text, expected) is found


def test_a_span_of_days_is_no_time_said_in_words() -> None:
    # "tent" holds a number word, so the text goes through the words-to-digits pass; "5 to 7 days" stays a span
    reply = "Sorry about the bent tent poles: refunds take 5 to 7 working days."
    assert states(reply, 5) and states(reply, 7) and not states(reply, "06:55")
    assert states("We meet at ten to seven in the evening.", "18:50")
    assert states("Leaves at quarter past 7 am.", "07:15")


_PHONE = [["+1 676-808-2587", "676-808-2587"]]
_RATE = "The current rate is 0.42 EUR per kilometre. "
_TOP3 = [["Tara Petrov", "petrov"], ["Lena Varga", "varga"], ["Ines Moreau", "moreau"]]
_RANKS = "1. Tara Petrov - 4,313.00\n2. Lena Varga - 4,049.00\n3. Ines Moreau - 3,724.00\n\n"


@pytest.mark.parametrize(("spec", "text", "claimed"), [
    # a value denied as the one asked for, another given in its place; another figure denied
    ({"contains": [253.62]}, "$253.62 is not the figure you want - the close that day was\n**$251.72**.", False),
    ({"contains": [253.62]}, "It closed at $253.62; the open, $251.72, is not the figure you asked for.", True),
    ({"contains": [253.62]}, "It closed at $253.62. $251.72 isn't the right figure: that was the open.", True),
    # a correction concluded after a ";"; one that restates the right value there; a ";" with no conclusion
    ({"facts": [{"label": ["litres"], "value": 13.6383, "tol": 0.5}]},
     "It is 13.6383 litres. Correction: 13.64 is the US figure; imperial ones are smaller, so about 11.36 litres.",
     False),
    ({"facts": [{"label": ["litres"], "value": 13.6383, "tol": 0.5}]},
     "It is 13.6383 litres. Correction: I misread the unit first; so it is 13.6383 litres, US ones 11.36 litres.",
     True),
    ({"facts": [{"label": ["litres"], "value": 13.6383, "tol": 0.5}]},
     "It is 13.6383 litres. Correction: I misread the unit first; 3 US gallons are 11.36 litres.", True),
    # an approximate range with one end at the value; a range of other figures; a low that ends a range
    ({"contains": [2330.85]}, "CHF 2,330.85, so roughly CHF 2,330-2,680 depending on the rate.", False),
    ({"contains": [2330.85]}, "CHF 2,330.85, so somewhere between roughly CHF 2,330 and CHF 2,680.", False),
    ({"contains": [2330.85]}, "CHF 2,330.85, between the 2,300 and 2,400 you expected.", True),
    ({"contains": [2330.85]}, "CHF 2,330.85 (roughly CHF 2,330).", True),
    ({"facts": [{"label": ["low"], "value": 12}]}, "The low is 12 C, so somewhere between about 12 and 18 C.", True),
    # the same figure corrected to another unit of its quantity; restated in the same unit, or with none
    ({"contains": [0.42]}, _RATE + "Correction: the rate is quoted per mile, so it is 0.42 EUR per mile.", False),
    ({"contains": [0.42]}, _RATE + "Correction: I first opened the archived page; it is 0.42 EUR per km.", True),
    ({"contains": [0.42]}, _RATE + "Correction: the old rate was 0.42 EUR too.", True),
    # a code offered beside another of its shape; beside something else; both asked for
    ({"contains": _PHONE}, "Call +1 676-808-2587 or +1 400-978-2052; one of those is the main desk.", False),
    ({"contains": _PHONE}, "Call +1 400-978-2052, or +1 676-808-2587.", False),
    ({"contains": ["INV-2291"]}, "The unpaid invoice is INV-2291 or INV-2294.", False),
    ({"contains": _PHONE}, "Call +1 676-808-2587 or write through the park's website.", True),
    ({"contains": [*_PHONE, "+1 400-978-2052"]}, "Call +1 676-808-2587 or +1 400-978-2052: both are staffed.", True),
    # a correction that drops a named item; one that keeps it; another item of the same surname dropped
    ({"contains": _TOP3}, _RANKS + "Correction: Ines Moreau's total includes a returned order, so she drops out.",
     False),
    ({"contains": _TOP3}, _RANKS + "Correction: Ines Moreau is removed from the list; Ben Petrov is third.", False),
    ({"contains": _TOP3}, _RANKS + "Correction: Ines Moreau's total already excludes it, so she stays third.", True),
    ({"contains": _TOP3}, _RANKS + "Correction: Ines Moreau stays third, and Ben Petrov drops out.", True),
])
def test_hedges_and_corrections_the_words_do_not_name(spec: dict[str, object], text: str, claimed: bool) -> None:
    from mcptrials.scoring.claims import text_problems
    cp = ValueCheckpoint.model_validate({"id": "a", "kind": "value_produced", "source": "final_message", **spec})
    problems = text_problems(cp, text)
    assert (problems == []) is claimed, problems
    assert all(p.code == "ambiguous_claim" for p in problems)


def test_units_named_after_a_number() -> None:
    from mcptrials.scoring.units import units_named_after
    norm = "0.42 eur per kilometre, or 0.68 eur per mile. 12 people"
    assert units_named_after(norm, len("0.42")) == {"km"}
    assert units_named_after(norm, norm.index("0.68") + 4) == {"mi"}
    assert units_named_after(norm, len(norm)) == set()


def test_a_bolded_value_on_the_next_line_goes_on_the_sentence() -> None:
    from mcptrials.scoring.answers import sentence_bounds
    assert len(sentence_bounds("the close that day was\n**$251.72**.")) == 1
    assert len(sentence_bounds("results\n- **total:** 42")) == 2
