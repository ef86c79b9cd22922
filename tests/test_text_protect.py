"""mtcli.text.protect: spans found, masked with placeholders, restored by order; one-span phrases."""

import pytest

from mtcli.text.tables import in_spanish
from mtcli.text.protect import (Masked, PLACEHOLDERS, all_kept, find_spans, mask, one_span_phrases, placed, remask, restore,
                                 unmasked)


def unknown(piece: str) -> bool:
    return any(ord(c) > 0x24F for c in piece)  # the fake vocabulary spells Latin letters only


def spans_of(text: str) -> list[str]:
    return [text[s:e] for s, e in find_spans(text, unknown)]


@pytest.mark.parametrize("text,expected", [
    ("I paid $25.50 for 3 books on 12/05/2023.", ["25.50", "3", "12/05/2023"]),
    ("The train leaves at 7:15, not 7:45.", ["7:15", "7:45"]),
    ("Mail ana.b@example.com or see https://x.org/a?b=1.", ["ana.b@example.com", "https://x.org/a?b=1"]),
    ("It is -5°C and 50% off, MP3 and COVID-19 on the 3rd.", ["-5°C", "50%", "MP3", "COVID-19", "3rd"]),
    ("I love you 🙂 and 👍🏽!", ["🙂", "👍🏽"]),
    ("Smiles 🙂 🙂 together", ["🙂 🙂"]),  # neighbours separated by spaces only are one span
    ("Visit www.example.com today", ["www.example.com"]),
    ("Z\u0338a\u0337l\u0334g\u0335o text", ["Z\u0338a\u0337l\u0334g\u0335o"]),  # marks NFC cannot compose: one word
    ("A " + "x" * 45 + " blob", ["x" * 45]),
    ("No spans here, Tom.", []),
])
def test_spans(text, expected):
    assert spans_of(text) == expected


def test_mask_and_restore_by_order_and_currency_becomes_a_word():
    text = "I paid $25.50 for 3 books on 12/05/2023."
    m = mask(text, find_spans(text, unknown), PLACEHOLDERS[0])
    assert m.text == "I paid 50 dollars for 50 books on 50."
    assert restore("Pagué 50 dólares por 50 libros el 50.", m) == "Pagué 25.50 dólares por 3 libros el 12/05/2023."
    assert restore("Pagué 50 dólares por libros el 50.", m) is None  # one lost
    assert restore("Pagué 50 50 dólares por 50 libros el 50.", m) is None  # one repeated
    assert restore("Pagué 500 dólares por 50 libros el 50.", m) is None  # changed
    two = remask(m, PLACEHOLDERS[1])
    assert two.text == "I paid 12 dollars for 50 books on 12."
    # distinct placeholders restore by identity even if the model reorders them
    assert restore("El 12, por 50 libros, pagué 12 dólares.", two) == "El 25.50, por 3 libros, pagué 12/05/2023 dólares."
    assert unmasked(m) == "I paid 25.50 dollars for 3 books on 12/05/2023."


def test_glued_spans_are_set_apart():
    m = mask("here.🙂New", [(5, 6)], ("50",))
    assert m.text == "here. 50New" or m.text == "here. 50 New"


def test_one_span_phrases_and_placing_a_lost_span():
    text = "I paid 25.50 dollars for 3 books on 12/05/2023."
    m = mask(text, find_spans(text, unknown), PLACEHOLDERS[0])
    phrases = one_span_phrases(m)
    assert [p.text for p in phrases] == ["I paid 50 dollars", "for 50 books", "on 50."]
    assert [p.spans for p in phrases] == [("25.50",), ("3",), ("12/05/2023",)]
    assert placed("por 50 libros", phrases[1]) == "por 3 libros"
    assert placed("por libros", phrases[1]) == "por libros 3"  # lost: at the end, never dropped
    # a price's currency word stays in its phrase (cut "get 50 | dollars, 50": "$100 dólares" came out), and the
    # comma after it too (a phrase opening ", él 50" came back "HAVE 50": phrases.py)
    text = "Winners get $100, $50 and $25 respectively."
    phrases = one_span_phrases(mask(text, find_spans(text, unknown), PLACEHOLDERS[0]))
    assert [p.text for p in phrases] == ["Winners get 50 dollars,", "50 dollars", "and 50 dollars respectively."]


@pytest.mark.parametrize("text,expected", [
    # typed, not written: kept whole (the model dropped or translated them: "example.org" -> "un ejemplo")
    ("Visit google.com or example.org/path for info.", ["google.com", "example.org/path"]),
    ("Open README.md and config.yaml, then run.sh.", ["README.md", "config.yaml", "run.sh"]),
    ("Edit ~/.bashrc and /usr/local/bin/run.sh please.", ["~/.bashrc", "/usr/local/bin/run.sh"]),
    (r"The file is at C:\Program Files\App\app.exe now.", [r"C:\Program Files\App\app.exe"]),
    ("Ask @tom_smith or @Mary about #python3 and #AI.", ["@tom_smith", "@Mary", "#python3", "#AI"]),
    ("Run `ls -la` and ``a`b`` in it.", ["`ls -la`", "``a`b``"]),
    ("Put <b class='x'> here and </b> there.", ["<b class='x'>", "</b>"]),
    ("We met at 5 p.m. yesterday and at 9am-5pm.", ["5 p.m.", "9am-5pm"]),
    ("We met at 5 p.m.", ["5 p.m"]),  # the sentence's stop stays the sentence's
    ("It costs 5$ or 10€.", ["5$", "10€"]),
    ("See http://en.wikipedia.org/wiki/Foo_(bar).", ["http://en.wikipedia.org/wiki/Foo_(bar)"]),
    ("(see https://x.com/docs)", ["https://x.com/docs"]),
    # ... but not words: and/or, e.g., U.S., a sentence typed without a space after its stop (km/h is 10's unit)
    ("Tea and/or coffee at 10 km/h, e.g. in the U.S. and Ph.D. work.Then home.", ["10 km/h"]),
])
def test_typed_things_are_spans(text, expected):
    assert spans_of(text) == expected


def test_a_currency_the_translation_lost_goes_back_on_its_number():
    text = "It costs £50 and $3."
    m = mask(text, find_spans(text, unknown), PLACEHOLDERS[0])
    assert m.text == "It costs 50 pounds and 50 dollars." and m.signs == ("£", "$")
    assert restore("Cuesta 50 libras y 50 dólares.", m) == "Cuesta 50 libras y 3 dólares."
    assert restore("Cuesta 50 lirbas y 50 dólares.", m) == "Cuesta £50 lirbas y 3 dólares."
    assert restore("CUESTA 50 LIBRAS Y 50 DÓLARES.", m) == "CUESTA 50 LIBRAS Y 3 DÓLARES."
    (first, second) = one_span_phrases(m)
    assert placed("Cuesta cincuenta", first) == "Cuesta cincuenta £50"  # lost, at the end, with its sign


def test_numbers_the_model_made_up_are_not_taken():
    m = mask("He is 6 tall.", find_spans("He is 6 tall.", unknown), PLACEHOLDERS[0])
    assert restore("Él mide 50 y 500.", m) is None  # a half-copied placeholder, a number of its own
    (phrase,) = one_span_phrases(m)
    assert placed("Él mide Bla0 alto.", phrase) == "Él mide Bla alto 6."  # (before the final stop)


def test_a_time_keeps_its_own_stop_once():
    text = "We met at 5 p.m. yesterday."
    m = mask(text, find_spans(text, unknown), PLACEHOLDERS[0])
    assert m.text == "We met at 50 yesterday."
    assert restore("Nos vimos a las 50.", m) == "Nos vimos a las 5 p.m."


# from the mutation run (issue 21): tests that kill mutants of mtcli.text.protect which survived it


def masked_text(text: str) -> str:
    return mask(text, find_spans(text, unknown), PLACEHOLDERS[0]).text


def test_all_kept_wants_each_span_once_in_order_wherever_it_is():
    text = "I have 5 cats and 5 dogs at 7:15."
    m = mask(text, find_spans(text, unknown), PLACEHOLDERS[0])
    assert m.spans == ("5", "5", "7:15")
    assert all_kept("5 gatos y 5 perros a las 7:15.", m)  # the first span at the very start
    assert not all_kept("Tengo 5 gatos y perros a las 7:15.", m)  # one "5" lost
    assert not all_kept("A las 7:15 tengo 5 gatos y 5 perros.", m)  # out of order
    # each whole: not inside a longer number (a made-up "59" for "5"; "5'11\"" -> "511")
    assert not all_kept("Cuesta 59.", Masked("x", ("5",), ("50",)))
    assert not all_kept("Mide 511.", Masked("x", ("5", "11"), ("50",)))
    assert all_kept("Mide 5 pies y 11.", Masked("x", ("5", "11"), ("50",)))


def test_a_word_as_long_as_the_limit_is_kept_and_the_limit_is_the_callers():
    assert spans_of("A " + "x" * 40 + " blob") == ["x" * 40]
    text = "A " + "x" * 35 + " blob"
    assert [text[s:e] for s, e in find_spans(text, unknown, 30)] == ["x" * 35]  # a model of shorter sentences


def test_spans_apart_by_operators_only_are_one():
    assert spans_of("So 9 - 5 = 4 and 5*3 here.") == ["9 - 5 = 4", "5*3"]


def test_a_name_with_a_hyphen_before_its_dot_is_kept():
    # (the quick pre-check skipped these: "Open backup-.txt now" went to the model whole)
    assert spans_of("Open backup-.txt or old-.md now.") == ["backup-.txt", "old-.md"]


def test_placeholders_are_set_apart_exactly():
    assert masked_text("5 cost $") == "50 cost $"  # a sign at the end is not the first span's
    assert masked_text("I have (5 apples), ¿5? and x=5") == "I have (50 apples), ¿50? and x= 50"
    assert masked_text("Press X<br> now") == "Press X 50 now"
    assert masked_text("here.🙂New") == "here. 50 New"
    # glued to "_": "50_x" was never taken for a placeholder, and "50" came out in the translation
    m = mask("Press <b>_x now", find_spans("Press <b>_x now", unknown), PLACEHOLDERS[0])
    assert m.text == "Press 50 _x now" and restore("PULSA 50 _X AHORA.", m) == "PULSA <b> _X AHORA."


def test_each_phrase_keeps_its_currency_and_a_lost_span_goes_to_its_edge():
    text = "It costs £50 and $3."
    (first, second) = one_span_phrases(mask(text, find_spans(text, unknown), PLACEHOLDERS[0]))
    assert placed("y tres", second) == "y tres $3"
    text = "I paid 25.50 dollars for 3 books on 12/05/2023."
    phrases = one_span_phrases(mask(text, find_spans(text, unknown), PLACEHOLDERS[0]))
    assert placed("por 50 libros 50", phrases[1]) == "por libros 3"  # repeated: no placeholder left behind
    (phrase,) = one_span_phrases(mask("25 people came.", find_spans("25 people came.", unknown), PLACEHOLDERS[0]))
    assert placed("Vinieron personas.", phrase) == "25 Vinieron personas."  # it opened the phrase: at the start


def test_currency_signs_go_back_on_their_own_spans():
    def masked(text):
        return mask(text, find_spans(text, unknown), PLACEHOLDERS[0])

    assert restore("50 lirbas y 50 dólares.", masked("It costs £50 and $3.")) == "£50 lirbas y 3 dólares."
    assert restore("Cuesta 50 l-ciles o 50 d-ciles.", masked("It costs £5 or $5.")) == "Cuesta £5 l-ciles o $5 d-ciles."
    two = remask(masked("It costs £5 and $3."), PLACEHOLDERS[1])  # 12 pounds, 50 dollars
    assert restore("Cuesta 50 d-ciles y 12 l-ciles.", two) == "Cuesta $3 d-ciles y £5 l-ciles."  # reordered
    assert restore("Cuesta $50.", masked("It costs $3.")) == "Cuesta $3."  # the sign already there: not twice


def test_a_time_gives_up_a_doubled_stop_only_right_after_it():
    text = "At 5 p.m. today run `5 p.m..` now."
    m = mask(text, find_spans(text, unknown), PLACEHOLDERS[0])
    assert m.spans == ("5 p.m.", "`5 p.m..`")
    # (the stop was taken off the code span too: `5 p.m.`)
    assert restore("A las 50. Ejecuta 50 ahora.", m) == "A las 5 p.m. Ejecuta `5 p.m..` ahora."


def test_a_lost_span_goes_before_the_final_stop_and_after_an_opening_mark():
    """Bug fixed: a number the model lost came after the sentence's end ("Tengo gatos. 3")."""
    m = mask("I have 3 cats.", find_spans("I have 3 cats.", unknown), PLACEHOLDERS[0])
    (phrase,) = one_span_phrases(m)
    assert placed("Tengo gatos.", phrase) == "Tengo gatos 3."
    assert placed("¿Tengo gatos?!", phrase) == "¿Tengo gatos 3?!"
    assert placed("Tengo gatos", phrase) == "Tengo gatos 3"
    m = mask("3 cats came?", find_spans("3 cats came?", unknown), PLACEHOLDERS[0])
    (phrase,) = one_span_phrases(m)
    assert placed("¿Vinieron gatos?", phrase) == "¿3 Vinieron gatos?"


@pytest.mark.parametrize("text,spans", [
    # found by an attack on real text: each was lost or garbled by the model
    ("It costs 20 € per night.", ["20 €"]),  # (was "20 dólares")
    ("The ticket costs USD 5 or 5 EUR at the door.", ["USD 5", "5 EUR"]),  # (codes dropped)
    # the attack of 2026-12-02b: "US$10" came out "o10 dólares", "Ctrl+S" "Ctrl" (each kind's variants)
    ("It costs US$10, C$ 5, A$3.50, R$20 or NZ$1,000.", ["US$10", "C$ 5", "A$3.50", "R$20", "NZ$1,000"]),
    ("Press Ctrl+S, ctrl+shift+z, Cmd+Q or Alt+F4 now; Shift+Tab goes back.",
     ["Ctrl+S", "ctrl+shift+z", "Cmd+Q", "Alt+F4", "Shift+Tab"]),
    ("Add 2+2 or C++ or Ctrl + S.", ["2+2"]),  # (no modifier glued to its key: none)
    ("I will be there at 5...or maybe 6.", ["5", "6"]),  # the words after a number are the sentence's
    ("We sold 300,and then more.", ["300"]),
    ("Use v1.2.3-beta or file2.txt at 3.5km.", ["v1.2.3-beta", "file2.txt", "3.5km"]),  # (not those)
    ("Thanks :-) see you later ;) <3 :P", [":-)", ";) <3 :P"]),  # emoticons
    ("at 3:30 or http://x.org/a", ["3:30", "http://x.org/a"]),  # (not emoticons)
    ("The flip (╯°□°)╯︵ ┻━┻ is famous.", ["(╯°□°)╯︵ ┻━┻"]),  # a symbol between kept pieces joins them
    ("Read Chapter IV before World War II or Louis XIV.", ["IV", "II", "XIV"]),  # Roman numerals after a name
    ("I have a CD. I LOVE TO MIX. Then I left.", []),  # ... not these
    # false positives a second attack found: a version, quoted numbers, two prices, a shouted verb, code
    ("Build 5.4.RELEASE is ready.", ["5.4.RELEASE"]),
    ('Press "1" for English and \'2\' for Spanish.', ["1", "2"]),
    ("It costs $5 / $10 per person.", ["5", "10"]),
    ("Never MIX bleach. Call DC.", []),
    ('print("hi"); (%): done', []),
    # a unit's symbol apart from its number (the model dropped "km" and "MB", made "kg" "kara"), a range
    ("It is 10 km away, 20 MB, 3 kg and 180 °C.", ["10 km", "20 MB", "3 kg", "180 °C"]),
    ("Wait 5-10 min, then 5 m/s, IT IS 10 KM.", ["5-10 min", "5 m/s", "10 KM"]),
    ("Read pages 10–20.", ["10–20"]),
    ("Open 10 am-2 pm, 10 am–2 pm and 9:00–17:00; at 5 am-ish.", ["10 am-2 pm", "10 am–2 pm", "9:00–17:00", "5"]),
    # a date with its month's name (the model dropped the month: "in May 2020" -> "en 2020")
    ("On May 5, 2025, 12 March 1990, the 3rd of July, June 2020 and Sept. 9.",
     ["May 5, 2025", "12 March 1990", "3rd of July", "June 2020", "Sept. 9"]),
    ("May I go? March 12:30 is late; WE MARCH 10 MILES; I called April 3 times; May 2 of us.",
     ["12:30", "10", "3", "2"]),  # (not these: a month and a number only where they read as a date)
    ("On May 5 at 10, since June 3. May 5: dentist. The festival runs May 5–7. December 25 and January 1.",
     ["May 5", "10", "June 3", "May 5", "May 5–7", "December 25", "January 1"]),
    ("Only 1 in 5 people, 5 A and 2 Mi came; the 5 W's.", ["1", "5", "5", "2", "5"]),  # (no units there)
])
def test_amounts_emoticons_numerals_and_symbols_are_kept_whole(text, spans):
    like_the_shipped_vocabulary = lambda piece: unknown(piece) or piece in "()[]"  # noqa: E731 (no brackets)
    assert [text[s:e] for s, e in find_spans(text, like_the_shipped_vocabulary)] == spans


@pytest.mark.parametrize("span,spanish", [
    ("May 5, 2025", "5 de mayo de 2025"), ("12 March 1990", "12 de marzo de 1990"), ("3rd of July", "3 de julio"),
    ("June 2020", "junio de 2020"), ("Sept. 9", "9 de septiembre"), ("MAY 5", "5 DE MAYO"),
    ("5 May 2025 10:00", "5 de mayo de 2025 10:00"), ("10:00", "10:00"), ("5 km", "5 km"),
    ("June 10–12, 2025", "10–12 de junio de 2025"), ("MAY 5TH", "5 DE MAYO"), ('`git log --since="May 5"`', '`git log --since="May 5"`'),
])
def test_a_date_is_put_back_as_spanish_writes_it(span, spanish):
    assert in_spanish(span) == spanish


@pytest.mark.parametrize("text,spans,spanish", [
    ("I met Dr. Smith and Mr. Brown.", ["Dr. Smith", "Mr. Brown"], ["Dr. Smith", "Sr. Brown"]),
    ("Mr Brown and Mrs. Mary Jones came; Ms. Lee's too.", ["Mr Brown", "Mrs. Mary Jones", "Ms. Lee"],
     ["Sr Brown", "Sra. Mary Jones", "Sra. Lee"]),  # (its stop as the English had it: "Dr Pepper")
    ("Dr. Álvarez, Mr. John O'Neil, Mrs. Smith-Jones and Mr. Brown--the teacher--came Monday.",
     ["Dr. Álvarez", "Mr. John O'Neil", "Mrs. Smith-Jones", "Mr. Brown"],
     ["Dr. Álvarez", "Sr. John O'Neil", "Sra. Smith-Jones", "Sr. Brown"]),
    ("Thank you, Dr. I will call. Ask the DR. He knows. We live on Maple Dr. The house is blue. Yes, Mr. President. "
     "I saw Dr. Smith Monday.", ["Dr. Smith"], ["Dr. Smith"]),  # (a new sentence, an office, a day: no name)
    ("I use MS Word in DR Congo; she has MS. Doctors help. Open Dr Smith.pdf now.", ["Smith.pdf"], ["Smith.pdf"]),
    ("MRS. JONES IS HERE, MR. O'BRIEN TOO.", ["MRS. JONES", "MR. O'BRIEN"], ["SRA. JONES", "SR. O'BRIEN"]),
    ("Ask Prof. Evans at 5.", ["Prof. Evans", "5"], ["Prof. Evans", "5"]),
    ("The mr. brown case; Mr. and Mrs. Smith; MrBrown; Dr. who; `Mr. X`", ["Mrs. Smith", "`Mr. X`"],
     ["Sra. Smith", "`Mr. X`"]),  # (a title before a capital only, code as it is)
])
def test_a_title_before_a_name_is_kept_with_it_and_put_back_as_spanish_abbreviates_it(text, spans, spanish):
    """The model translated or dropped a name after a title ("I met Mr. Brown yesterday." -> "Ayer me encontré
    marrón.", "Mrs. Jones" -> "Jesús"): title and name are one span, the title put back in Spanish."""
    found = [text[s:e] for s, e in find_spans(text, unknown)]
    assert found == spans and [in_spanish(span) for span in found] == spanish
