"""The distiller's answer rules, each with cases on both sides: what an answer may leave out, what it must say."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone

from mcptrials.generate.answercheck import answer_checkpoint
from mcptrials.generate.conclusions import (
    baseline_words,
    correlation_words,
    direction_words,
    limit_words,
    proportion_words,
    ranked_words,
    superlative,
    weather_words,
    which_field,
    yes_no,
)
from mcptrials.generate.values import quoted_spans
from mcptrials.model import ValueCheckpoint
from mcptrials.scoring.claims import check_facts, text_problems
from mcptrials.scoring.conclusions import check_conclusion


def _judge(check: ValueCheckpoint, text: str) -> bool:
    return not text_problems(check, text)


def test_an_aside_in_parentheses_is_not_demanded_but_the_answer_is() -> None:
    results = ['{"from": "GBP", "to": "EUR", "rate": 1.179374, "amount": 150, "converted": 176.91}']
    check = answer_checkpoint("At today's rate (1 GBP = 1.179374 EUR) your 150 GBP is worth 176.91 EUR.",
                              "I have 150 pounds sterling. How many euros is that today?", "", results, 2026)
    assert check is not None
    assert _judge(check, "150 GBP is 176.91 EUR.")
    assert not _judge(check, "150 GBP is 167.91 EUR.")


def test_a_weekday_beside_a_date_is_not_demanded_unless_the_day_is_asked() -> None:
    results = ['{"zone": "Europe/Berlin", "datetime": "2026-04-13T03:00:00+02:00", "day_of_week": "Monday"}']
    answer = "Local time in Berlin: 03:00 on Monday 13 April 2026."
    plain = answer_checkpoint(answer, "What is the local time in Berlin?", "", results, 2026,
                              today=date(2026, 4, 12))
    assert plain is not None and _judge(plain, "Berlin: 03:00 (2026-04-13).")
    asked = answer_checkpoint(answer, "What day of the week is it in Berlin, and what time?", "", results, 2026,
                              today=date(2026, 4, 12))
    assert asked is not None and not _judge(asked, "Berlin: 03:00 (2026-04-13).")


def test_values_assigned_to_the_goals_unknowns_are_bound_to_them() -> None:
    results = ['{"solution": [1.0, -2.0, -2.0]}']
    check = answer_checkpoint("The solution is x = 1, y = -2, z = -2.",
                              "Solve for x, y, z: 3x + 2y - z = 1, 2x - 2y + 4z = -2, -x + 0.5y - z = 0.", "",
                              results, 2026)
    assert check is not None
    assert all(f.stated for f in check_facts("x = 1, y = -2 and z = -2", check.facts))
    assert not all(f.stated for f in check_facts("x = -2, y = 1, z = -2", check.facts))


def test_a_word_label_is_not_an_unknown() -> None:
    results = ['{"timestamp": 1776042000}']
    check = answer_checkpoint("Unix timestamp: 1776042000.", "I need the current Unix timestamp.", "", results, 2026)
    assert check is not None and _judge(check, "unix 1,776,042,000")


def test_a_conversion_the_goal_asks_for_must_be_in_the_unit_asked() -> None:
    results = ['{"value": 33.336, "unit": "km/h"}']
    check = answer_checkpoint("18 knots is 33.336 km/h.", "The ferry cruises at 18 knots. What is that in km/h?",
                              "", results, 2026)
    assert check is not None
    assert _judge(check, "That is 33.336 km/h.")
    assert not _judge(check, "18 knots is about 28.97 km/h.")


def test_a_measurement_may_be_rounded_to_whole_units_in_any_unit() -> None:
    results = ['{"mode": "driving", "distance_km": 311.3, "duration_min": 215}']
    check = answer_checkpoint("The drive is 311.3 km (about 3 h 35 min).",
                              "How far is the drive from San Francisco to Yosemite?", "", results, 2026)
    assert check is not None
    assert _judge(check, "It is 311 km by road.")
    assert _judge(check, "It is 193.4 miles by road.")
    assert not _judge(check, "It is 350 km by road.")


def test_items_listed_by_title_must_all_be_there() -> None:
    results = [json.dumps({"tasks": [{"title": "Pay Ledgerly invoice INV-2291", "due": "2026-04-13"},
                                     {"title": "Review NDA draft for Helio Analytics", "due": "2026-04-17"},
                                     {"title": "Renew parking permit", "due": None}]})]
    answer = ('Two tasks are due this week: "Pay Ledgerly invoice INV-2291" (due today) and '
              '"Review NDA draft for Helio Analytics" (due Friday).')
    check = answer_checkpoint(answer, "Which of my tasks are due this week?", "", results, 2026)
    assert check is not None
    assert _judge(check, "Due this week: Pay Ledgerly invoice INV-2291 and the Helio Analytics NDA review.")
    assert not _judge(check, "Only one: Pay Ledgerly invoice INV-2291.")


def test_a_yes_no_question_keeps_the_explorers_answer() -> None:
    cp = yes_no("We want to camp this Friday. Is there space at a campground we can reserve?",
                "Unfortunately no: Willow Campground is full on both nights.")
    assert cp is not None and cp.holds is False and not cp.required
    assert not check_conclusion(cp, "Yes, Willow Campground has space for both nights.").passed
    assert check_conclusion(cp, "No, Willow is fully booked.").passed
    assert check_conclusion(cp, "Willow Campground: 0 free sites on Friday and Saturday.").passed


def test_a_superlative_question_keeps_the_explorers_pick() -> None:
    results = ['{"cities": [{"city": "Beijing", "aqi": 58}, {"city": "Mumbai", "aqi": 85}, '
               '{"city": "Cairo", "aqi": 150}]}']
    cp = superlative("Compare the air quality in Beijing, Mumbai and Cairo. Which is worst?",
                     "Beijing 58, Mumbai 85 and Cairo 150. Cairo is the worst.", results,
                     [json.loads(results[0])], 2026)
    assert cp is not None and cp.holds == ["Cairo"]
    assert check_conclusion(cp, "Cairo has the worst air (AQI 150).").passed
    assert not check_conclusion(cp, "Beijing 58, Mumbai 85, Cairo 150. Mumbai is the worst.").passed


_TRAINS = {"stations": {"IFP": "Beijing Chaoyang", "VAB": "Harbin West"},
           "trains": [{"train_no": "G901", "from_station": "IFP", "duration": "4h 27m",
                       "stops": [{"station": "Shenyang North"}, {"station": "Changchun West"}]},
                      {"train_no": "G905", "from_station": "IFP", "duration": "4h 35m", "stops": []},
                      {"train_no": "G903", "from_station": "IFP", "duration": "4h 36m", "stops": []}]}


def test_the_superlative_a_request_names_is_checked_against_the_other_records_of_the_results() -> None:
    results = [json.dumps(_TRAINS)]
    cp = superlative("I'm taking the fastest train from Beijing to Harbin on Saturday. When does it arrive?",
                     "The fastest train on Saturday is G901, leaving Beijing Chaoyang at 06:40, via Shenyang North.",
                     results, [_TRAINS], 2026)
    assert cp is not None and cp.holds == ["G901"] and cp.options == ["G901", "G905", "G903"]
    assert check_conclusion(cp, "G901 (4h 27m), G905 (4h 35m), G903 (4h 36m): G901 is the quickest.").passed
    assert check_conclusion(cp, "The fastest is G901; it stops at Shenyang North on the way.").passed
    assert not check_conclusion(cp, "G901 takes 4h 27m and G905 4h 35m. The fastest is G905.").passed


def test_a_superlative_may_pick_a_title_quoted_whole_and_a_hedge_between_two_fails() -> None:
    papers = {"papers": [{"paper_id": "2503.08812", "title": "Interline Itineraries at Hub Stations", "year": 2025},
                         {"paper_id": "2409.09902", "title": "Dynamic Pricing in High-Speed Rail", "year": 2024},
                         {"paper_id": "2203.08815", "title": "Timetable Robustness under Delays", "year": 2022}]}
    cp = superlative("On the paper index, what's the newest paper about high-speed rail?",
                     'The newest one is "Interline Itineraries at Hub Stations" (2025, 2503.08812).',
                     [json.dumps(papers)], [papers], 2026)
    assert cp is not None and cp.holds == ["Interline Itineraries at Hub Stations"]
    assert check_conclusion(cp, "Interline Itineraries at Hub Stations (2025) is the latest of the three.").passed
    assert check_conclusion(cp, "The newest is Interline Itineraries at Hub Stations; Dynamic Pricing in "
                                "High-Speed Rail came a year earlier.").passed
    assert not check_conclusion(cp, 'The newest is probably "Interline Itineraries at Hub Stations". It could '
                                    'also be "Dynamic Pricing in High-Speed Rail": either is the latest.').passed
    assert not check_conclusion(cp, "The newest is Dynamic Pricing in High-Speed Rail (2024).").passed


def test_a_superlative_the_request_does_not_ask_for_is_no_conclusion() -> None:
    results = [json.dumps(_TRAINS)]
    assert superlative("When does the train G901 arrive in Harbin? Get the latest timetable.",
                       "G901 is the fastest and arrives at 11:07.", results, [_TRAINS], 2026) is None
    assert superlative("Book me the fastest train to Harbin.", "I booked a train to Harbin for you.",
                       results, [_TRAINS], 2026) is None


def test_a_how_big_question_asks_for_the_size_field_and_a_correction_of_it_withdraws_it() -> None:
    results = ['{"path": "exports/week.ics", "type": "file", "size": 2705, "lines": 124}']
    check = answer_checkpoint("Exported 15 events to exports/week.ics; the file is 2,705 bytes (about 2.6 KB).",
                              "Export my events to exports/week.ics and tell me how big the file is.", "", results,
                              2026, fallback=False)
    assert check is not None
    assert _judge(check, "Done: exports/week.ics holds 15 events, 2,705 bytes in 124 lines.")
    assert _judge(check, "The export is 2.64 KiB.")
    assert not _judge(check, "The export exports/week.ics is 2,750 bytes.")
    assert not _judge(check, "The file is 2,705 bytes.\n\nCorrection: 2,705 is the character count - the actual "
                             "file size is 124 bytes.")


def test_a_sample_size_beside_a_statistic_is_still_not_demanded() -> None:
    results = ['{"mean": 41.07, "size": 13}']
    check = answer_checkpoint("The mean of the 13 lap times is 41.07 s.", "What's the mean lap time?", "", results,
                              2026, fallback=False)
    assert check is not None
    assert _judge(check, "Mean lap time: 41.07 s.")
    assert not _judge(check, "Mean lap time: 47.01 s.")


def test_a_which_question_rejects_an_item_the_selection_left_out() -> None:
    results = [json.dumps({"files": [{"path": "notes/kickoff.md", "size": 410}, {"path": "notes/budget.md", "size": 95},
                                     {"path": "notes/travel.md", "size": 230}, {"path": "notes/old.md", "size": 12}]})]
    answer = "Two of your notes are longer than 200 bytes: notes/kickoff.md and notes/travel.md."
    check = answer_checkpoint(answer, "Which of my notes are longer than 200 bytes?", "", results, 2026)
    assert check is not None
    assert _judge(check, "notes/travel.md and notes/kickoff.md are over 200 bytes.")
    assert not _judge(check, "notes/kickoff.md, notes/travel.md and notes/budget.md are over 200 bytes.")


def test_a_day_of_next_week_may_be_given_by_its_weekday() -> None:
    results = ['{"days": [{"date": "2026-04-20", "fare": 559.5}, {"date": "2026-04-21", "fare": 590.5}]}']
    answer = "Cheapest fare: 559.5 CNY on 2026-04-20 and 590.5 CNY on 2026-04-21."
    check = answer_checkpoint(answer, "What's the cheapest fare each day, Monday and Tuesday next week?", "",
                              results, 2026, today=date(2026, 4, 13))
    assert check is not None
    assert _judge(check, "Monday: 559.5 CNY; Tuesday: 590.5 CNY.")
    assert not _judge(check, "Monday: 559.5 CNY; Wednesday: 590.5 CNY.")


def test_two_figures_of_one_quantity_read_in_prose_are_bound_to_what_leads_up_to_them() -> None:
    results = ['{"id": "2501.00001", "text": "Results. Over 400 instances the new solver needed a median of 12.5 '
               'minutes per instance, while the greedy baseline needed 19.0 minutes per instance."}']
    check = answer_checkpoint("In the paper's results the new solver needed a median of 12.5 minutes, against "
                              "19.0 minutes for the greedy baseline.",
                              "Read the solver paper's results: how long did the new solver take per instance "
                              "against the greedy baseline?", "", results, 2026)
    assert check is not None
    assert _judge(check, "Median time per instance: 12.5 min for the new solver, 19.0 min for the greedy baseline.")
    assert _judge(check, "The new solver took a median 12.5 minutes per instance. The greedy baseline took 19.0.")
    assert not _judge(check, "The new solver needed a median of 19.0 minutes, against 12.5 minutes for the greedy "
                             "baseline.")


def test_a_correlation_may_not_be_called_what_its_value_rules_out() -> None:
    moderate = correlation_words("The 1-year correlation of KO and PEP returns is 0.42, a moderate positive one.",
                                 [{"symbols": ["KO", "PEP"], "correlation": 0.42, "observations": 250}])
    assert moderate is not None
    assert not check_conclusion(moderate, "At 0.42 they move almost in lockstep - a very strong correlation.").passed
    assert not check_conclusion(moderate, "They are negatively correlated (0.42).").passed
    for fine in ("0.42: weak-to-moderate, far from moving in lockstep.", "0.42 - not a strong correlation.",
                 "Correlation: 0.42."):
        assert check_conclusion(moderate, fine).passed, fine
    strong = correlation_words("Correlation 0.81: strongly correlated.", [{"corr": 0.81}])
    assert strong is not None
    assert not check_conclusion(strong, "0.81, so they barely move together.").passed
    assert check_conclusion(strong, "They move closely together (r = 0.81).").passed
    assert correlation_words("The correlation is 0.81.", [{"correlation": 0.81}, {"correlation": -0.3}]) is not None
    assert correlation_words("Correlations: 0.81 and -0.3.", [{"correlation": 0.81}, {"correlation": -0.3}]) is None


def test_signed_figures_rule_out_the_other_direction_and_a_universal_claim_over_mixed_signs() -> None:
    quote = [{"symbol": "XYZ", "price": 20.5, "previous_close": 20.8, "change": -0.3, "change_pct": -1.44}]
    [down] = direction_words("XYZ closed at 20.5, down 1.44% on the day.", quote)
    assert not check_conclusion(down, "XYZ is rallying: 20.5, up sharply and at a new high.").passed
    assert check_conclusion(down, "XYZ slipped 1.44% to 20.5; it did not rally.").passed
    assert direction_words("XYZ closed at 20.5.", quote) == []  # the answer states no change: nothing to rule out
    earnings = [{"symbol": s, "surprise_pct": v} for s, v in (("AAA", 3.1), ("BBB", -2.4), ("CCC", 0.8))]
    [mixed] = direction_words("Surprises: AAA +3.1%, BBB -2.4% (a miss), CCC +0.8%.", earnings)
    assert not check_conclusion(mixed, "All three beat: AAA 3.1%, BBB -2.4%, CCC 0.8%.").passed
    assert check_conclusion(mixed, "Two of three beat (AAA 3.1%, CCC 0.8%); BBB missed at -2.4%.").passed
    assert check_conclusion(mixed, "Not all three beat: BBB missed (-2.4%).").passed


def test_a_small_move_may_not_be_called_a_small_move_the_other_way() -> None:
    quote = [{"symbol": "XYZ", "price": 148.05, "change": -0.1, "change_pct": -0.07}]
    [down] = direction_words("XYZ closed at 148.05, -0.07% on the day: essentially flat.", quote)
    assert not check_conclusion(down, "XYZ: 148.05 (-0.07%), a quiet day with the stock closing marginally "
                                      "higher.").passed
    assert not check_conclusion(down, "148.05, -0.07%: it finished the month slightly higher.").passed
    assert check_conclusion(down, "XYZ closed at 148.05 (-0.07%), slightly lower on a quiet day.").passed
    history = [{"symbol": "XYZ", "first_close": 2872.95, "last_close": 2953.71, "change_pct": 2.81}]
    [up] = direction_words("From 2,872.95 to 2,953.71: up 2.81%.", history)
    assert not check_conclusion(up, "2,872.95 to 2,953.71, a 2.81% change: the shares edged down.").passed
    assert check_conclusion(up, "2,872.95 -> 2,953.71 (+2.81%): the shares edged up.").passed


def test_an_r_squared_may_not_be_called_what_its_value_rules_out() -> None:
    fit = [{"slope": 9.95, "intercept": 19.6, "r_squared": 0.992}]
    good = correlation_words("Slope 9.95, R squared 0.992: spend predicts sales very well.", fit)
    assert good is not None
    assert not check_conclusion(good, "Slope 9.95, R squared 0.992. Spend is only a weak predictor of sales.").passed
    assert check_conclusion(good, "Slope 9.95 and R squared 0.992: a tight fit, spend is a strong predictor.").passed
    poor = correlation_words("R squared is 0.14.", [{"r_squared": 0.14}])
    assert poor is not None
    assert not check_conclusion(poor, "R squared 0.14: spend is a strong predictor of sales.").passed
    assert check_conclusion(poor, "R squared 0.14: spend explains little of sales.").passed


def test_a_yes_or_no_led_by_so_is_the_answer_to_the_question() -> None:
    cp = yes_no("Will I need an umbrella in London tomorrow?", "No umbrella needed: 0% chance of rain tomorrow.")
    assert cp is not None and cp.holds is False
    assert not check_conclusion(cp, "0% chance of rain, 0.0 mm.\n\n**So yes, I'd take an umbrella tomorrow.**").passed
    assert check_conclusion(cp, "0% chance of rain.\n\nSo no, you can leave it at home.").passed
    assert check_conclusion(cp, "Tomorrow is dry (0%). So you won't need one.").passed


def test_a_citation_entry_must_give_the_sources_title_authors_and_year() -> None:
    results = ['{"id": "2302.01234", "title": "Sparse Kernels for Tide Gauges", "authors": ["Mara Ode", '
               '"Ken Sato"], "year": 2023, "venue": "JGR"}']
    answer = ("@article{ode2023sparse,\n  title = {Sparse Kernels for Tide Gauges},\n"
              "  author = {Mara Ode and Ken Sato},\n  journal = {JGR},\n  year = {2023}\n}")
    check = answer_checkpoint(answer, "Get the BibTeX entry of the tide gauge paper.", "", results, 2026)
    assert check is not None
    assert _judge(check, "@inproceedings{ode23,\n  title = {Sparse Kernels for Tide Gauges},\n"
                         "  author = {Ode, Mara and Sato, Ken},\n  booktitle = {Journal of Geophysical Research},\n"
                         "  year = 2023\n}")
    assert not _judge(check, answer.replace("2023}", "2022}"))
    assert not _judge(check, answer.replace("Mara Ode and Ken Sato", "Ken Sato and Lu Wei").replace("ode2023", "sato"))
    assert not _judge(check, answer.replace("Sparse Kernels for Tide Gauges", "Dense Kernels for Tide Gauges"))


def test_a_figure_asked_for_by_its_field_name_is_demanded_exactly() -> None:
    results = ['{"code": "yell", "name": "Yellowstone National Park", "area_acres": 2219791, "visitors": 4501382}']
    named = answer_checkpoint("Yellowstone covers 2,219,791 acres.", "Get Yellowstone's details and report "
                              "area_acres.", "", results, 2026)
    assert named is not None
    assert _judge(named, "area_acres: 2219791 acres (about 8,983 km²).")
    assert not _judge(named, "Yellowstone covers about 2.2 million acres.")
    loose = answer_checkpoint("Yellowstone covers 2,219,791 acres.", "How big is Yellowstone in acres?", "",
                              results, 2026)
    assert loose is not None and _judge(loose, "Yellowstone covers about 2.2 million acres.")


def test_each_listed_items_figure_is_demanded_and_bound_to_the_item() -> None:
    results = ['{"name": "Alder Reservoir", "text": "Storage stood at 71.5% of capacity."}',
               '{"name": "Birch Reservoir", "text": "Storage stood at 43.2% of capacity."}',
               '{"name": "Cedar Reservoir", "text": "Storage stood at 88.9% of capacity."}']
    answer = ("Here is each reservoir:\n- Alder Reservoir: storage at 71.5% of capacity.\n"
              "- Birch Reservoir: storage at 43.2% of capacity.\n- Cedar Reservoir: storage at 88.9% of capacity.")
    check = answer_checkpoint(answer, "Read the three reservoir reports.", "", results, 2026)
    assert check is not None
    assert _judge(check, "| Reservoir | Storage |\n|---|---|\n| Alder | 71.5% |\n| Birch | 43.2% |\n| Cedar | 88.9% |")
    assert not _judge(check, "Alder 71.5%, Birch 43.2%.")  # an item left out
    assert not _judge(check, answer.replace("43.2", "88.8").replace("88.9", "43.2").replace("88.8", "88.9"))


def test_items_named_by_their_day_are_left_to_the_day_rules() -> None:
    results = ['{"date": "2026-05-04", "cheapest": 88.5}', '{"date": "2026-05-05", "cheapest": 91.0}']
    check = answer_checkpoint("Cheapest fare per day:\n- Monday 4 May: 88.5 EUR\n- Tuesday 5 May: 91.0 EUR",
                              "Report the cheapest fare on 2026-05-04 and 2026-05-05.", "", results, 2026,
                              today=date(2026, 5, 1))
    assert check is not None and _judge(check, "Mon 4 May: 88.5 EUR; Tue 5 May: 91.0 EUR.")


def test_a_season_read_from_a_source_must_name_its_months() -> None:
    results = ['{"title": "Hurricane", "section": "Season", "text": "In the North Atlantic, hurricanes occur '
               'mostly from June to November, peaking in September."}']
    answer = "The Atlantic hurricane season runs from June to November (peak in September)."
    check = answer_checkpoint(answer, "Read the 'Season' section of the 'Hurricane' article.", "", results, 2026)
    assert check is not None
    assert _judge(check, "Hurricane season: Jun-Nov in the North Atlantic.")
    assert not _judge(check, "Hurricane season runs from May to October.")
    dated = answer_checkpoint("The next hurricane briefing is on 3 June at 10:00.", "When is the season briefing?",
                              "", ['{"briefing": "2026-06-03T10:00", "note": "June briefing"}'], 2026)
    assert dated is None or all(not isinstance(c, list) or "June" not in c for c in dated.contains)


def test_a_title_split_into_names_is_named_by_any_of_its_parts() -> None:
    results = [json.dumps({"additions": [
        {"id": "2106.01147", "title": "Sparse Routing for Efficient Attention in Long Documents"},
        {"id": "2209.12780", "title": "Predicting Geyser Eruption Intervals from Seismic Tremor"}]})]
    answer = ("Two papers were added: Sparse Routing for Efficient Attention in Long Documents and "
              "Predicting Geyser Eruption Intervals from Seismic Tremor.")
    check = answer_checkpoint(answer, "Which papers were added to the mirror?", "", results, 2026)
    assert check is not None
    assert _judge(check, "The sparse routing attention paper and Predicting Geyser Eruption Intervals.")
    assert not _judge(check, "Only Predicting Geyser Eruption Intervals from Seismic Tremor.")
    assert not _judge(check, "The sparse routing paper and the geyser tremor study.")  # a part, not a word of it


def test_an_apostrophe_is_no_quote() -> None:
    spans = quoted_spans("The mirror's record of \"Sparse Routing in Long Documents\" and Leo's 'Trail Bottle'.")
    assert [s.value for s in spans] == ["Sparse Routing in Long Documents", "Trail Bottle"]


def test_a_which_question_answered_in_passing_keeps_only_the_one_picked() -> None:
    results = ['{"url": "https://news.example/digest/15", "text": "Chips rally: Intel lagged while NVIDIA and AMD '
               'rose on strong data-centre orders."}']
    answer = "In the weekly digest (issue 15), Intel lagged while NVIDIA and AMD rose on data-centre orders."
    check = answer_checkpoint(answer, "Open the chips rally digest: which chipmaker lagged?", "", results, 2026)
    assert check is not None
    assert _judge(check, "The laggard was Intel.")
    assert not _judge(check, "NVIDIA lagged.")


def test_which_station_of_a_city_the_goal_gave_is_a_detail_unless_asked() -> None:
    results = [json.dumps({"trains": [{"train_no": "G74", "from": "Guangzhou South", "to": "Changsha South",
                                       "depart": "08:14", "arrive": "10:49"}]})]
    answer = "The first train is G74, leaving Guangzhou South at 08:14 and arriving at 10:49."
    plain = answer_checkpoint(answer, "The first G train from Guangzhou to Changsha tomorrow: when does it leave "
                                      "and arrive?", "", results, 2026)
    assert plain is not None
    assert _judge(plain, "G74 leaves at 08:14 and gets in at 10:49.")
    assert not _judge(plain, "G74 leaves at 08:41 and gets in at 10:49.")
    asked = answer_checkpoint(answer, "The first G train from Guangzhou to Changsha: from which station does it "
                                      "leave, and when?", "", results, 2026)
    assert asked is not None and not _judge(asked, "G74 leaves at 08:14 and gets in at 10:49.")


def test_the_present_time_is_where_counting_starts_not_the_answer() -> None:
    results = ['{"bookings": [{"train_no": "G3", "date": "2026-04-15", "depart": "07:35"}]}',
               '{"timezone": "Asia/Shanghai", "datetime": "2026-04-13T09:00:00+08:00"}', '{"hours": 46.5833}']
    answer = "Your train G3 leaves at 07:35 on 15 April; it is 09:00 now, so that is 46.58 hours from now."
    now = datetime(2026, 4, 13, 9, 0, tzinfo=timezone(timedelta(hours=8)))
    check = answer_checkpoint(answer, "List bookings, read the current time and compute the hours until the "
                                      "train leaves.", "", results, 2026, today=now.date(), now=now)
    assert check is not None
    assert _judge(check, "G3 leaves at 07:35 on Wednesday, in about 46.58 hours.")
    assert not _judge(check, "G3 leaves at 07:35 on Wednesday, in about 22.58 hours.")


def test_the_wording_the_agent_wrote_itself_need_not_be_quoted_back() -> None:
    results = [json.dumps({"entities": [{"name": "Leo Park", "entityType": "customer",
                                         "observations": ["Lives in Toronto", "Has placed 5 orders"]}]}),
               json.dumps({"rows": [{"name": "Leo Park", "city": "Toronto", "orders": 5}]})]
    answer = ('Leo Park lives in Toronto and has placed 5 orders. He is in memory with the observations '
              '"Lives in Toronto" and "Has placed 5 orders".')
    goal = "Query Leo Park's city and order count; create an entity with those observations."
    own = answer_checkpoint(answer, goal, "", results, 2026, fallback=False,
                            written=("Lives in Toronto", "Has placed 5 orders"))
    assert own is not None
    assert _judge(own, "Leo Park is in memory: city Toronto, 5 orders placed.")
    assert not _judge(own, "Leo Park is in memory: city Montreal, 5 orders placed.")
    read = answer_checkpoint(answer, goal, "", results, 2026, fallback=False)
    assert read is not None and not _judge(read, "Leo Park is in memory: city Toronto, 5 orders placed.")


def test_a_citation_count_may_be_said_as_cited() -> None:
    results = ['{"id": "2406.02266", "citation_count": 103, "reference_count": 41}']
    answer = "The paper has a citation count of 103 and a reference count of 41."
    check = answer_checkpoint(answer, "What are the paper's citation count and reference count?", "", results, 2026)
    assert check is not None
    assert _judge(check, "It has been cited 103 times and lists 41 references.")
    assert not _judge(check, "It has been cited 41 times and lists 103 references.")


def test_figures_given_in_a_scale_may_be_given_in_another() -> None:
    results = ['{"symbol": "KO", "unit": "USD millions", "years": [{"fiscal_year": "FY2025", "free_cash_flow": 9959.2},'
               ' {"fiscal_year": "FY2024", "free_cash_flow": 8829.8}]}']
    answer = "KO free cash flow, USD millions: FY2025 9,959.2; FY2024 8,829.8."
    check = answer_checkpoint(answer, "Report KO's free cash flow per year.", "", results, 2026)
    assert check is not None
    assert _judge(check, "Free cash flow: FY2025 $9.96 billion, FY2024 $8.83 billion.")
    assert _judge(check, "Free cash flow (USD bn): FY2025 9.96, FY2024 8.83.")
    assert not _judge(check, "Free cash flow: FY2025 $9.16 billion, FY2024 $8.83 billion.")
    assert not _judge(check, "Free cash flow: FY2025 $8.83 billion, FY2024 $9.96 billion.")


def test_a_figure_a_result_states_as_written_is_not_read_as_a_rounding_of_another() -> None:
    results = ['{"symbol": "GOOGL", "earnings": [{"quarter": "2025-Q4", "surprise_pct": 1.9}, '
               '{"quarter": "2025-Q3", "surprise_pct": 1.95}]}']
    check = answer_checkpoint("GOOGL's latest surprise was +1.9%.", "What was GOOGL's latest EPS surprise?", "",
                              results, 2026)
    assert check is not None
    assert _judge(check, "Latest surprise: 1.90%.")
    assert not _judge(check, "Latest surprise: 1.95%.")


def test_a_figure_may_be_labelled_by_the_symbol_of_the_result_it_comes_from() -> None:
    results = ['{"symbol": "AAPL", "currency": "USD", "earnings": [{"quarter": "2025-Q4", "surprise_pct": -5.2}]}',
               '{"symbol": "MSFT", "currency": "USD", "earnings": [{"quarter": "2025-Q4", "surprise_pct": 5.17}]}']
    answer = "Latest EPS surprises: Apple -5.2%, Microsoft +5.17%."
    check = answer_checkpoint(answer, "Get the latest EPS surprise of Apple and Microsoft.", "", results, 2026)
    assert check is not None
    assert _judge(check, "| Ticker | Surprise |\n|---|---|\n| AAPL | -5.20% |\n| MSFT | 5.17% |")
    assert not _judge(check, "| Ticker | Surprise |\n|---|---|\n| AAPL | 5.17% |\n| MSFT | -5.20% |")
    assert not _judge(check, "Apple +5.17%, Microsoft -5.2%.")


def test_a_ratio_written_with_a_slash_labels_its_figure() -> None:
    results = ['{"symbol": "MSFT", "price": 469.96, "trailing_pe": 33.57}']
    check = answer_checkpoint("Microsoft: last price $469.96, trailing P/E 33.57.",
                              "Get me Microsoft's price and trailing P/E.", "", results, 2026)
    assert check is not None
    assert _judge(check, "MSFT: price $469.96; P/E: 33.57.")
    assert not _judge(check, "MSFT: price $33.57; P/E: 469.96.")


def test_the_other_end_of_a_range_is_not_asked_but_the_end_asked_stays_bound() -> None:
    results = ['{"date": "2026-01-16", "high": -1.1, "low": -10.3}']
    answer = "Friday's low is -10.3°C, with a high of only -1.1°C."
    low = answer_checkpoint(answer, "Report the low for Chicago on 2026-01-16.", "How cold will it get?", results, 2026)
    assert low is not None
    assert _judge(low, "It bottoms out at about -10.3 °C.") and _judge(low, "Low: -10.3 °C.")
    assert not _judge(low, "Low: -1.1 °C. High: -10.3 °C.") and not _judge(low, "The low is -1.1 °C.")
    both = answer_checkpoint(answer, "Report the high and the low for Chicago on 2026-01-16.", "", results, 2026)
    assert both is not None and not _judge(both, "It bottoms out at about -10.3 °C.")


def test_a_date_that_opens_a_period_may_be_given_by_its_month() -> None:
    results = ['{"symbol": "AMZN", "interval": "1wk", "low": {"date": "2021-04-13", "value": 107.93}}']
    check = answer_checkpoint("The lowest was $107.93, in the week of 13 April 2021.",
                              "Get AMZN's 5y weekly history and report the low.", "", results, 2026)
    assert check is not None
    assert _judge(check, "The low was $107.93 in April 2021.") and _judge(check, "$107.93 on 2021-04-13")
    assert not _judge(check, "The low was $107.93 in May 2021.")
    exact = answer_checkpoint("The lowest was $107.93, on 13 April 2021.",
                              "Get AMZN's 5y daily history and report the low.", "", results, 2026)
    assert exact is not None and not _judge(exact, "The low was $107.93 in April 2021.")


def test_a_date_a_figure_holds_as_of_is_not_asked_unless_when_is() -> None:
    results = ['{"id": "2106.01147", "citation_count": 79, "mirrored_on": "2025-12-09"}']
    answer = "The mirror's record shows 79 citations, as of when it was mirrored on 2025-12-09."
    count = answer_checkpoint(answer, "Get the mirror record of the sparse routing paper.",
                              "What citation count does the mirror have?", results, 2026)
    assert count is not None and _judge(count, "Mirror citation count: 79.") and not _judge(count, "Citations: 97.")
    when = answer_checkpoint(answer, "Get the mirror record of the sparse routing paper.",
                             "How many citations, and as of when?", results, 2026)
    assert when is not None and not _judge(when, "Mirror citation count: 79.")


def test_fractional_hours_may_be_given_in_hours_and_minutes() -> None:
    results = ['{"now": "2026-04-13T09:00:00+08:00"}', '{"train": "G3", "depart": "2026-04-15T07:35:00+08:00"}',
               '{"hours": 46.5833}']
    check = answer_checkpoint("G3 leaves in 46 hours 35 minutes, about 46.58 hours from now.",
                              "Compute the hours until the 2026-04-15 departure.", "", results, 2026)
    assert check is not None
    assert _judge(check, "G3: 46 hours and 35 minutes from now.") and _judge(check, "G3: about 46.58 hours.")
    assert not _judge(check, "G3: 46 hours and 53 minutes from now.") and not _judge(check, "G3: about 47 hours.")


def test_only_the_latest_periods_figure_is_asked_when_the_request_asks_for_the_latest() -> None:
    results = ['{"symbol": "GOOGL", "statements": [{"fiscal_year": "FY2025", "net_income": 97338.1}, '
               '{"fiscal_year": "FY2024", "net_income": 86425.1}, {"fiscal_year": "FY2023", "net_income": 81933.8}]}']
    answer = "Net income: FY2025 97,338.1; FY2024 86,425.1; FY2023 81,933.8 (USD millions)."
    latest = answer_checkpoint(answer, "Report net income for the latest fiscal year.", "", results, 2026)
    assert latest is not None
    assert _judge(latest, "Net income for FY2025: $97,338.1 million.")
    assert not _judge(latest, "Net income for FY2025: $86,425.1 million.")
    every = answer_checkpoint(answer, "Report net income for each fiscal year.", "", results, 2026)
    assert every is not None and not _judge(every, "Net income for FY2025: $97,338.1 million.")


def test_a_request_about_rain_does_not_ask_for_the_temperature_and_none_may_be_said_in_words() -> None:
    results = ['{"date": "2026-05-21", "high": 21.3, "low": 11.2, "precip_chance": 0, "precip_mm": 0}']
    answer = "Tomorrow London is dry, with a 0% chance of rain and a high of 21.3°C."
    rain = answer_checkpoint(answer, "Report the chance of rain in London tomorrow.", "Will I need an umbrella?",
                             results, 2026)
    assert rain is not None
    assert _judge(rain, "No umbrella needed: no rain at all tomorrow.") and _judge(rain, "0% chance of rain.")
    assert not _judge(rain, "There's a 40% chance of rain.")
    weather = answer_checkpoint(answer, "Get the London forecast for tomorrow.", "What's the weather tomorrow?",
                                results, 2026)
    assert weather is not None and not _judge(weather, "No rain at all tomorrow.")


def test_a_confirmations_asides_are_not_demanded_where_the_write_is_checked() -> None:
    results = ['{"id": 16, "name": "Trail Bottle 1L", "sku": "BP-BOTTLE-1L", "price": 19.0}']
    answer = "Done: order 1161 with 2 x Trail Bottle 1L (product 16, BP-BOTTLE-1L) at 19.00 EUR each."
    goal = "Insert an order (id 1161) of two Trail Bottle 1L (product 16, 19.0 EUR)."
    assert answer_checkpoint(answer, goal, "", results, 2026, fallback=False) is None
    alone = answer_checkpoint(answer, goal, "", results, 2026)  # nothing else checks the task: the aside it is
    assert alone is not None and not _judge(alone, "Done: order 1161, 2 x Trail Bottle 1L.")


def test_a_unit_the_data_is_given_in_is_no_unit_the_goal_asks_for() -> None:
    """"190 ms" in the goal says what the data is measured in: the answer may give the spread in seconds."""
    results = ['{"stdev": 41.069048}']
    goal = "My API response times were 212, 187, 240, 199, 305, 228 and 190 ms. Give me the sample standard deviation."
    check = answer_checkpoint("The sample standard deviation is 41.07 ms.", goal, "", results, 2026)
    assert check is not None
    assert _judge(check, "The standard deviation is about 0.0411 seconds.")
    assert _judge(check, "The standard deviation is 41.07 ms.")
    assert not _judge(check, "The standard deviation is about 0.0511 seconds.")
    assert not _judge(check, "The standard deviation is 45.2 ms.")


def test_a_conversion_asked_for_may_be_rounded_to_whole_units() -> None:
    results = ['{"value": 68.0389, "unit": "kg"}']
    check = answer_checkpoint("150 pounds is 68.04 kilograms (about 68 kg).",
                              "I weigh 150 pounds. What's that in kilograms?", "", results, 2026)
    assert check is not None
    assert _judge(check, "150 pounds is about sixty-eight kilograms.")
    assert not _judge(check, "150 pounds is about 75 kilograms.")
    assert not _judge(check, "150 pounds is about 150 kilograms.")


def test_the_low_may_be_said_as_how_far_it_gets_down() -> None:
    results = ['{"city": "Chicago", "daily": [{"date": "2026-01-16", "temp_max_c": -1.1, "temp_min_c": -10.3}]}']
    check = answer_checkpoint("Chicago's low is forecast at -10.3°C, with a high of only -1.1°C.",
                              "Get the Chicago forecast covering 2026-01-16 and report the low.", "", results, 2026)
    assert check is not None
    assert _judge(check, "It'll get down to about 13.5 °F tomorrow night in Chicago.")
    assert _judge(check, "The temperature drops to -10.3 °C overnight.")
    assert not _judge(check, "It'll get down to about 30 °F tomorrow night in Chicago.")
    assert not _judge(check, "The temperature drops to -1.1 °C overnight.")


def test_actual_and_estimated_figures_given_respectively_beside_a_report_date() -> None:
    results = ['{"symbol": "MSFT", "earnings": [{"quarter": "2025-Q4", "reported": "2026-01-24", '
               '"actual_eps": 4.36, "estimated_eps": 4.15, "surprise_pct": 5.17}]}']
    check = answer_checkpoint("In 2025-Q4 (reported 24 January 2026) Microsoft's actual EPS was $4.36 against an "
                              "expected $4.15, a positive surprise of 5.17%.",
                              "Report the latest quarter's actual EPS, estimated EPS and surprise.", "", results, 2026)
    assert check is not None
    right = ("Actual and expected EPS for Q4 2025 (reported 24 January 2026) were $4.36 and $4.15 respectively, "
             "a surprise of 5.17%.")
    assert _judge(check, right)
    assert _judge(check, "In Q4 2025 it reported EPS of $4.36, while analysts expected $4.15, a surprise of 5.17%.")
    assert not _judge(check, right.replace("$4.36 and $4.15", "$4.15 and $4.36"))
    assert not _judge(check, "In Q4 2025 it reported EPS of $4.15, while analysts expected $4.36, a surprise of 5.17%.")


def test_a_company_may_be_named_by_the_first_word_of_its_name_instead_of_its_symbol() -> None:
    results = [json.dumps({"symbol": s, "name": n, "employees": e}) for s, n, e in
               (("NVDA", "NVIDIA Corporation", 36000), ("AMD", "Advanced Micro Devices, Inc.", 28000),
                ("INTC", "Intel Corporation", 108000))]
    answer = "NVIDIA (NVDA): 36,000 employees. AMD: 28,000 employees. Intel (INTC): 108,000 employees."
    check = answer_checkpoint(answer, "Get ticker info for NVDA, AMD and INTC and report employees for each.", "",
                              results, 2026)
    assert check is not None
    table = "| Company | Employees |\n|---|---|\n| NVIDIA | {} |\n| AMD | {} |\n| Intel | {} |"
    assert _judge(check, table.format("36,000", "28,000", "108,000"))
    assert not _judge(check, table.format("108,000", "28,000", "36,000"))


def test_a_fiscal_year_may_be_given_by_its_year() -> None:
    results = [json.dumps({"symbol": "KO", "cash_flow": [{"period": "FY2025", "free_cash_flow": 9959.2},
                                                         {"period": "FY2024", "free_cash_flow": 8829.8}]})]
    check = answer_checkpoint("KO free cash flow, USD millions: FY2025 9,959.2; FY2024 8,829.8.",
                              "Get the yearly cash-flow statement of KO and report the free cash flow per year.", "",
                              results, 2026)
    assert check is not None
    assert _judge(check, "Free cash flow: 2025: $9.96 billion; 2024: $8.83 billion.")
    assert not _judge(check, "Free cash flow: 2025: $9.96 billion; 2024: $9.31 billion.")
    assert not _judge(check, "Free cash flow: FY2023: $9,959.2 million; FY2022: $8,829.8 million.")


def test_a_download_path_is_a_detail_unless_the_goal_asks_where() -> None:
    results = ['{"id": "2503.08812", "path": "papers/2503.08812.txt"}', '{"text": "a seat on 64% of journeys"}']
    answer = ("I downloaded 2503.08812 to papers/2503.08812.txt; interline itineraries offered a seat on 64% of "
              "journeys.")
    free = answer_checkpoint(answer, "Find 2503.08812, download it, then read its results.", "", results, 2026)
    assert free is not None
    assert _judge(free, "Interline itineraries found a seat sixty-four percent of the time.")
    assert not _judge(free, "Interline itineraries found a seat 38% of the time.")
    where = answer_checkpoint(answer, "Download 2503.08812 and tell me where the file was saved.", "", results, 2026)
    assert where is not None and not _judge(where, "Downloaded; a seat on 64% of journeys.")


def test_figures_in_the_unit_asked_are_asked_and_may_be_whole_roundings() -> None:
    """"Convert 2 lb to g and 8 oz to g": "907 g" and "227 g" round the results; each stays bound to its item."""
    results = [json.dumps({"value": v, "from_unit": u, "to_unit": "g", "category": "mass", "result": r})
               for v, u, r in ((2.0, "lb", 907.185), (8.0, "oz", 226.796))]
    check = answer_checkpoint("Shakshuka in metric: tomatoes 2 lb = 907 g; feta 8 oz = 227 g.",
                              "Fetch the recipe, then convert 2 lb to g and 8 oz to g.", "", results, 2026)
    assert check is not None
    assert _judge(check, "Tomatoes: 907 g. Feta: 227 g.")
    assert _judge(check, "Tomatoes 907.185 g, feta 226.796 g.")
    assert not _judge(check, "Tomatoes: 227 g. Feta: 907 g.")
    assert not _judge(check, "Tomatoes: 907 g. Feta: 237 g.")


def test_figures_in_units_asked_beside_figures_bound_to_items() -> None:
    """Grams bound to their ingredients, a volume and a temperature in the units asked: read in any order."""
    results = [json.dumps({"value": v, "from_unit": u, "to_unit": t, "result": r})
               for v, u, t, r in ((2.0, "lb", "g", 907.185), (8.0, "oz", "g", 226.796), (1.5, "cup", "ml", 354.882),
                                  (375.0, "F", "C", 190.556))]
    check = answer_checkpoint("Shakshuka in metric: tomatoes 2 lb = 907 g; feta 8 oz = 227 g; onion 1.5 cups = 355 ml; "
                              "oven 375 °F = 190.6 °C (about 190 °C).",
                              "Fetch the recipe, then convert 2 lb to g, 1.5 cup to ml, 8 oz to g and 375 F to C.", "",
                              results, 2026)
    assert check is not None
    assert _judge(check, "Tomatoes 907.185 g, feta 226.796 g, onion 354.882 ml, oven 190.556 °C.")
    assert _judge(check, "Tomatoes: 907 g. Feta: 227 g. Onion: 355 ml. Oven: 191 °C.")
    assert not _judge(check, "Tomatoes: 227 g. Feta: 907 g. Onion: 355 ml. Oven: 191 °C.")
    assert not _judge(check, "Tomatoes: 907 g. Feta: 227 g. Onion: 237 ml. Oven: 191 °C.")

def test_a_share_a_result_gives_may_not_be_called_the_other_side_of_half() -> None:
    paper = [{"id": "2412.00001", "text": "Nine of fifteen reviewers preferred the new layout; 2 of 9 sites failed."}]
    [most] = proportion_words("Nine of fifteen reviewers preferred the new layout.", paper)
    assert not check_conclusion(most, "9 of 15 reviewers preferred it, so only a minority of the reviewers did.").passed
    assert not check_conclusion(most, "Nine of fifteen reviewers liked it: fewer than half of the reviewers.").passed
    for fine in ("9 of 15 reviewers preferred it: a majority of the reviewers.", "Nine of fifteen reviewers did.",
                 "Yes, nine of fifteen reviewers preferred it; a minority of sites failed.",
                 "9 of 15 reviewers: not a minority of reviewers at all."):
        assert check_conclusion(most, fine).passed, fine
    [few] = proportion_words("2 of 9 sites failed.", paper)
    assert not check_conclusion(few, "2 of 9 sites failed: most sites had trouble.").passed
    assert check_conclusion(few, "Two of nine sites failed, a minority of the sites.").passed
    assert proportion_words("Three of five reviewers agreed.", paper) == []  # no result gives that share
    assert proportion_words("Nine of fifteen reviewers preferred it, a minority of reviewers.", paper) == []


def test_a_forecast_reported_as_rain_may_not_be_called_dry_and_a_dry_one_not_wet() -> None:
    days = [{"days": [{"date": "2026-04-18", "condition": "light rain", "high_c": 23.5, "low_c": 18.9,
                       "precip_chance": 85},
                      {"date": "2026-04-19", "condition": "sunny", "high_c": 26.2, "low_c": 19.4, "precip_chance": 5}]}]
    wet = weather_words("Saturday: light rain, 23.5 / 18.9 °C, 85% chance of rain.", days)
    assert wet is not None
    assert not check_conclusion(wet, "Saturday: light rain, high 23.5, low 18.9. It should stay dry.").passed
    assert not check_conclusion(wet, "23.5 °C and 18.9 °C, 85% - no need for an umbrella, a dry day.").passed
    for fine in ("Saturday: light rain, 23.5 / 18.9 °C. Bring an umbrella.", "High 23.5, low 18.9, rain likely.",
                 "Yes: light rain (85%), 23.5 / 18.9 °C; it will not be a dry day."):
        assert check_conclusion(wet, fine).passed, fine
    dry = weather_words("Sunday: sunny, 26.2 / 19.4 °C.", days)
    assert dry is not None
    assert not check_conclusion(dry, "Sunday: sunny, 26.2 / 19.4, but it will rain in the evening.").passed
    assert check_conclusion(dry, "Sunday is sunny (26.2 / 19.4 °C); no rain expected.").passed
    # both days reported: the conditions differ, so neither word is ruled out
    assert weather_words("Sat light rain 23.5/18.9; Sun sunny 26.2/19.4.", days) is None


def test_a_limit_the_goal_sets_may_not_be_misread_for_the_figures_reported() -> None:
    found = [{"results": [{"name": "Lotus Pharmacy", "distance_m": 7420, "open_now": True}]}]
    goal = "I need a pharmacy open now within 8 km of the hotel."
    inside = limit_words(goal, "Yes: Lotus Pharmacy is open and 7,420 m away.", found)
    assert inside is not None
    assert not check_conclusion(inside, "Lotus Pharmacy is 7,420 m away, beyond the 8 km you asked for.").passed
    assert not check_conclusion(inside, "Lotus Pharmacy (7.42 km): sadly that's outside your range.").passed
    for fine in ("Yes: Lotus Pharmacy, 7,420 m away, within 8 km.", "Lotus Pharmacy: open, 7.42 km away.",
                 "Lotus Pharmacy is 7,420 m away, not beyond 8 km."):
        assert check_conclusion(inside, fine).passed, fine
    far = [{"results": [{"name": "Lotus Pharmacy", "distance_m": 9100, "open_now": True}]}]
    outside = limit_words(goal, "The only open one, Lotus Pharmacy, is 9,100 m away.", far)
    assert outside is not None
    assert not check_conclusion(outside, "Lotus Pharmacy is 9,100 m away, within 8 km.").passed
    assert check_conclusion(outside, "Lotus Pharmacy is 9,100 m away, so not within 8 km.").passed
    assert limit_words("Find an open pharmacy near the hotel.", "Lotus Pharmacy, 7,420 m.", found) is None
    # a walk of 4.0 km and a café 2.6 km away (2,634 m in the results): the limit rules out nothing
    mixed = [{"route": {"distance_km": 4.0}}, {"results": [{"name": "Paper Crane", "distance_m": 2634}]}]
    assert limit_words("Is there a café within 3 km of the tower?", "Walk: 4.0 km. Paper Crane is 2.6 km from the "
                                                                   "tower, under 3 km.", mixed) is None


def test_a_superlative_of_figures_the_answer_lists_must_pick_the_record_they_rank_first() -> None:
    tickers = [{"tickers": [
        {"symbol": "AAA", "name": "Alder Corporation", "employees": 52000, "market_cap": 912000000000},
        {"symbol": "BBB", "name": "Birch Inc.", "employees": 8000, "market_cap": 61500000000},
        {"symbol": "CCC", "name": "Cedar Ltd", "employees": 23000, "market_cap": 143800000000}]}]
    answer = ("Alder (AAA): $912 billion, 52,000 staff. Birch (BBB): $61.5 billion, 8,000 staff. "
              "Cedar (CCC): $143.8 billion, 23,000 staff.")
    checks = ranked_words(answer, tickers)
    assert checks

    def passes(text: str) -> bool:
        return all(check_conclusion(c, text).passed for c in checks)

    assert not passes(f"{answer} Cedar is the smallest of the three by market cap.")
    assert not passes(f"{answer} CCC has the lowest market cap.")
    for fine in (answer, f"{answer} Birch has the smallest market cap and Alder the largest market cap.",
                 f"{answer} Cedar does not have the lowest market cap; Birch does."):
        assert passes(fine), fine
    assert ranked_words("Alder (AAA) has 52,000 staff.", tickers) == []  # one figure: nothing ranked


def test_a_which_question_on_a_field_picks_the_records_that_hold_its_value() -> None:
    centers = [{"visitor_centers": [{"name": "Pine Flat Visitor Center", "season": "May-Sep", "hours": "09:00-17:00"},
                                    {"name": "River Bend Visitor Center", "season": "year-round",
                                     "hours": "08:30-16:30"}]}]
    goal = "Which visitor centers in the park are open all year?"
    [which] = which_field(goal, "Only River Bend Visitor Center is open year-round; Pine Flat is seasonal "
                                "(May-Sep).", centers)
    assert which.holds == ["River Bend Visitor Center"]
    assert not check_conclusion(which, "River Bend (year-round) and Pine Flat (May-Sep): both are open all "
                                       "year.").passed
    assert not check_conclusion(which, "Pine Flat Visitor Center is open year-round.").passed
    for fine in ("River Bend Visitor Center stays open all year.", "River Bend: year round. Pine Flat: May-Sep.",
                 "Just River Bend; Pine Flat is not open all year."):
        assert check_conclusion(which, fine).passed, fine
    assert which_field("Which visitor centers are there?", "River Bend and Pine Flat.", centers) == []


def test_a_study_that_beat_its_baseline_by_the_figures_stated_may_not_be_said_to_trail_it() -> None:
    paper = [{"id": "2501.00002", "section": "results",
              "text": "The mean forecast error was 3.2 hours, against 4.5 hours for the operational model."}]
    [beat] = baseline_words("Mean error 3.2 hours, against 4.5 hours for the operational model.", paper)
    assert not check_conclusion(beat, "Its error was 3.2 hours vs 4.5 hours, so it trailed the operational "
                                      "model.").passed
    assert not check_conclusion(beat, "3.2 h against 4.5 h: not more accurate than the operational one.").passed
    for fine in ("3.2 hours against 4.5 hours: better than the operational model.", "Error: 3.2 h (baseline 4.5 h).",
                 "The operational model's 4.5 hours trails the new 3.2 hours."):
        assert check_conclusion(beat, fine).passed, fine
    scores = [{"text": "Our parser reached an accuracy of 71.5%, compared with 78.0% for the rule-based baseline."}]
    [worse] = baseline_words("Accuracy 71.5% vs 78.0% for the baseline.", scores)
    assert not check_conclusion(worse, "71.5% against 78.0%: it outperformed the baseline.").passed
    assert check_conclusion(worse, "71.5% against 78.0%: it fell short of the baseline.").passed
    assert baseline_words("Mean error 3.2 hours.", paper) == []  # one figure stated: nothing compared


def test_a_quoted_item_of_a_listed_file_is_what_the_list_holds() -> None:
    results = ['{"path": "notes", "entries": [{"path": "notes/calls.md"}, {"path": "notes/todo.md"}]}',
               json.dumps({"path": "notes/todo.md",
                           "content": "# Todo\n\n- Prepare board pack\n- Book offsite venue\n"})]
    goal = "List the notes folder and read notes/todo.md. Do not change anything."
    check = answer_checkpoint('Your notes folder has calls.md and todo.md. The first item on your todo list is '
                              '"Prepare board pack".', goal, "", results, 2026)
    assert check is not None
    assert _judge(check, "notes/ holds calls.md and todo.md; first todo item: Prepare board pack.")
    assert not _judge(check, 'The notes folder has calls.md and todo.md; the first item is "Book offsite venue".')


def test_a_quoted_subject_line_is_no_list_item_and_may_be_left_out() -> None:
    results = [json.dumps({"id": "m003", "subject": "Can we find 45 minutes this week?",
                           "body": "Hey Alex,\nI'd like 45 minutes with you to go over the hiring plan.\nSam"})]
    check = answer_checkpoint('Sam wrote "Can we find 45 minutes this week?": he wants 45 minutes for the hiring plan.',
                              "Read Sam's message about meeting this week.", "", results, 2026)
    assert check is not None and _judge(check, "Sam wants 45 minutes with you to go over the hiring plan.")


def test_a_weekday_a_message_gives_in_words_is_content() -> None:
    results = [json.dumps({"id": "m003", "from": "Sam Rivera", "subject": "Can we find 45 minutes this week?",
                           "body": "Hey Alex, I'd like 45 minutes with you on Wednesday afternoon to go over the "
                                   "hiring plan. Sam"})]
    goal = "Find Sam Rivera's message about meeting this week and read it."
    check = answer_checkpoint("Sam Rivera wants 45 minutes on Wednesday afternoon to go over the hiring plan.", goal,
                              "", results, 2026, today=date(2026, 4, 13))
    assert check is not None
    assert _judge(check, "Sam would like 45 minutes with you on Wednesday afternoon (hiring plan).")
    assert not _judge(check, "Sam wants 45 minutes on Thursday afternoon to go over the hiring plan.")
    assert not _judge(check, "Sam wants 45 minutes on Wednesday or maybe Thursday afternoon for the hiring plan.")


def test_a_weekday_only_a_date_field_names_is_not_demanded() -> None:
    results = ['{"title": "Budget sync", "date": "2026-04-15", "weekday": "Wednesday", "start": "11:00"}']
    check = answer_checkpoint("The budget sync is on Wednesday at 11:00.", "When is the budget sync?", "", results,
                              2026, today=date(2026, 4, 13))
    assert check is not None and _judge(check, "The budget sync is on 15 April at 11:00.")


GRAPH = json.dumps({"entities": [{"name": "Dana Whitfield", "entityType": "person"},
                                 {"name": "Tomas Kral", "entityType": "person"}],
                    "relations": [{"from": "Dana Whitfield", "to": "Project Atlas", "relationType": "leads"},
                                  {"from": "Tomas Kral", "to": "Project Atlas", "relationType": "works_on"}]})


def test_names_are_bound_to_the_roles_their_records_give_them() -> None:
    check = answer_checkpoint("For Project Atlas, Dana Whitfield leads it and Tomas Kral works on it.",
                              "Search the memory graph for 'Atlas' and report its related people.", "", [GRAPH], 2026)
    assert check is not None
    assert _judge(check, "Involved: Dana Whitfield (leads it) and Tomas Kral (works on it).")
    assert not _judge(check, "Project Atlas is led by Tomas Kral; Dana Whitfield works on it.")
    assert not _judge(check, "Tomas Kral leads Project Atlas and Dana Whitfield works on it.")


def test_names_without_their_roles_in_the_answer_are_not_bound() -> None:
    check = answer_checkpoint("Project Atlas involves Dana Whitfield and Tomas Kral.",
                              "Search the memory graph for 'Atlas' and report its related people.", "", [GRAPH], 2026)
    assert check is not None and not check.facts
    assert _judge(check, "Tomas Kral and Dana Whitfield are on Project Atlas.")


EVENTS = json.dumps({"events": [
    {"id": "evt-001", "title": "Team standup", "start": "2026-04-13T09:30", "location": "Room Fjord"},
    {"id": "evt-011", "title": "Budget sync", "start": "2026-04-13T11:00", "location": "Video call"},
    {"id": "evt-012", "title": "Customer call: Bluepeak", "start": "2026-04-13T15:00", "location": "Video call"}]})


def test_records_an_answer_names_by_their_titles_must_all_be_named() -> None:
    check = answer_checkpoint("Today: team standup, budget sync with Maya and the customer call with Bluepeak.",
                              "Look at today's calendar and report what needs attention today.", "", [EVENTS], 2026,
                              today=date(2026, 4, 13))
    assert check is not None
    assert _judge(check, "You have the standup, the Budget Sync (Maya) and a call with Bluepeak.")
    assert not _judge(check, "Today: team standup, 1:1 with Sam and the customer call with Bluepeak.")


STOPS = json.dumps({"train": "G1371", "stops": [
    {"station": "Shanghai Hongqiao", "arrive": None, "depart": "06:20"},
    {"station": "Changsha South", "arrive": "10:14", "depart": "10:18"},
    {"station": "Kunming South", "arrive": "14:30", "depart": None}]})
STOPS_ANSWER = ("On Friday 17 April G1371 leaves Shanghai Hongqiao at 06:20, stops at Changsha South (10:14-10:18) "
                "and arrives at Kunming South at 14:30.")


def test_records_named_beside_the_one_figure_asked_are_context_not_a_list() -> None:
    check = answer_checkpoint(STOPS_ANSWER, "When does train G1371 reach Kunming South on 2026-04-17?", "", [STOPS],
                              2026)
    assert check is not None
    assert _judge(check, "G1371 stops at Changsha South (10:14-10:18) and reaches Kunming South at 14:30.")
    assert not _judge(check, "G1371 stops at Changsha South (10:14-10:18) and reaches Kunming South at 10:14.")


def test_records_named_where_the_request_lists_them_must_all_be_named() -> None:
    for asked in ("List the stops of train G1371 on 2026-04-17.", "Get the stops of train G1371 on 2026-04-17."):
        check = answer_checkpoint(STOPS_ANSWER, asked, "", [STOPS], 2026)
        assert check is not None
        assert _judge(check, "G1371: Shanghai Hongqiao 06:20, Changsha South 10:14-10:18, Kunming South 14:30.")
        assert not _judge(check, "G1371: Changsha South 10:14-10:18, Kunming South 14:30.")


def test_one_record_named_by_its_title_is_no_list() -> None:
    check = answer_checkpoint("Your next meeting is the budget sync at 11:00.",
                              "What is my next meeting today?", "", [EVENTS], 2026, today=date(2026, 4, 13))
    assert check is not None and _judge(check, "Next up: Budget meeting at 11:00.")


def test_a_record_named_in_a_sentence_of_its_own_is_a_contrast_not_a_list() -> None:
    centers = json.dumps({"visitor_centers": [
        {"name": "Apgar Visitor Center", "season": "year-round"},
        {"name": "Logan Pass Visitor Center", "season": "May-Oct"}]})
    check = answer_checkpoint("Only the Apgar Visitor Center is open year-round. The Logan Pass Visitor Center is "
                              "seasonal.", "List the visitor centers of Glacier and report the year-round ones.", "",
                              [centers], 2026)
    assert check is not None and _judge(check, "Apgar Visitor Center stays open all year.")


def test_a_list_read_back_after_the_trace_wrote_to_it_is_no_list_the_answer_owes() -> None:
    tasks = json.dumps({"tasks": [{"id": 1, "text": "Review NDA draft for Helio Analytics"},
                                  {"id": 2, "text": "Renew parking permit"},
                                  {"id": 3, "text": "Pay Ledgerly INV-2291 (3715.03 EUR)"}]})
    answer = "Added the task; open tasks: Review NDA draft for Helio Analytics, Renew parking permit and the new one."
    goal = "Add a task 'Pay Ledgerly INV-2291 (<EUR> EUR)' to tasks.md and list open tasks."
    wrote = answer_checkpoint(answer, goal, "", [tasks], 2026, written=("Pay Ledgerly INV-2291 (3715.03 EUR)",))
    read = answer_checkpoint(answer, goal, "", [tasks], 2026)
    assert wrote is not None and read is not None
    listed = "Review NDA draft for Helio Analytics"
    assert any(isinstance(c, list) and c[0] == listed for c in read.contains)
    assert not any(isinstance(c, list) and c[0] == listed for c in wrote.contains)


def test_a_name_that_only_bounds_a_superlative_is_not_demanded_but_the_reported_one_is() -> None:
    summary = json.dumps({"title": "Mercury (planet)", "summary": "Mercury is the smallest planet in the Solar System "
                          "and the closest to the Sun.", "links": ["Solar System", "Sun"]})
    check = answer_checkpoint("Mercury (planet): the smallest planet in the Solar System and the closest to the Sun.",
                              "Get the summary of Mercury (planet).", "", [summary], 2026)
    assert check is not None
    assert _judge(check, "Mercury is the smallest planet and the nearest one to the Sun.")
    assert not _judge(check, "Mercury is the smallest planet and the nearest one to Earth.")
