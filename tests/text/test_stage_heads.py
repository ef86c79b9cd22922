"""The heads stages (heads.py): a chat's or a mail's head and a label stay out of the model."""

from mtcli.text.pipeline import translate_lines

from tests.text.fakes import engine, upper


def test_a_chat_or_mail_head_stays_out_of_the_model():
    """Found trying chat logs and mail: "[10:32] John: hello there" lost "John:", "Re:" and "P.S." went. A time
    stamp and the speaker after it, a reply's or a postscript's mark are kept at the start (and listed as kept);
    a range is not taken for a stamp."""
    seen = []
    out = translate_lines(["[10:32] Tom: hello there.", "10:32 PM - Tom: I am fine.", "Re: The meeting.",
                           "P.S. Bring the keys.", "PS: call me.", "Sunday: rest.", "12:00 - 13:00 lunch."],
                          engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert [r.text for r in out] == ["[10:32] Tom: HELLO THERE.", "10:32 PM - Tom: I AM FINE.", "Re: THE MEETING.",
                                     "P.S. BRING THE KEYS.", "PS: CALL ME.", "Domingo: REST.", "12:00 - 13:00 LUNCH."]
    assert out[0].kept == ["[10:32] Tom:"] and out[2].kept == ["Re:"]
    assert "Hello there." in seen


def test_a_label_before_a_colon_stays_out_of_the_model_and_a_heading_word_is_translated():
    """Found trying dialogue, notes and mail: with its label the model garbled every such sentence ("Tom: Where
    are you?" -> "¿Dónde estás las dos?", "Note: the door is open." -> "No hay la puerta de la puerta abierta.").
    A heading word is HEADINGS' (a number word after it too), cased as it came; any other label before a capital
    is kept (and listed as kept), not a greeting's; the text after it keeps its lowercase start and gets no stop
    it had not (a value as often as a sentence); a mail's names and addresses are kept whole, a reply's mark too.
    A sentence's opening is no label: a greeting, "Yes", two words in capitals, From/To before prose."""
    seen, spanish = [], {"The door is open.": "La puerta está abierta."}
    out = translate_lines(["Tom: Where are you?", "Note: the door is open.", "STEP 1: BOIL IT.", "Price: $5",
                           "Sunday: rest.", "Star Wars: A New Hope", "Chapter Two: Go.", "Important Note: Go.",
                           "Agenda: budget and rent.", "To: Mary Jones <mary@x.org>", "I know: it is late.",
                           "Subject: Re: hello", "Hello Tom: Are you in?", "From: Monday, we open.",
                           "WE KNOW: IT IS LATE.", "To Do: Call."],
                          engine(lambda ls: seen.extend(ls) or [[(spanish.get(t, t), -1.0)] for t in ls]))
    assert [r.text for r in out] == ["Tom: Where are you?", "Nota: la puerta está abierta.", "PASO 1: BOIL IT.",
                                     "Precio: $5", "Domingo: rest.", "Star Wars: A New Hope", "Capítulo dos: Go.",
                                     "Important Note: Go.", "Orden del día: budget and rent.",
                                     "Para: Mary Jones <mary@x.org>", "I know: it is late.", "Asunto: Re: Hello",
                                     "Hello Tom: Are you in?", "From: Monday, we open.", "WE KNOW: IT IS LATE.",
                                     "To Do: Call."]
    # ("Important Note": a heading of two words would take reordering; "I": no label)
    assert seen == ["Where are you?", "The door is open.", "Boil it.", "Rest.", "A New Hope.", "Go.",
                    "Budget and rent.", "I know.", "It is late.", "Hello.", "Hello Tom: Are you in?",
                    "From: Monday, we open.", "We know: it is late.", "To Do: Call."]  # (no labels: sentences)
    assert out[0].kept == ["Tom:"] and out[1].kept == [] and out[5].kept == ["Star Wars:"]
    assert out[9].kept == ["Mary Jones <mary@x.org>"]
