"""Glossaries (mtcli/text/glossary.py): the file's checks, where terms are found, and their targets put back
through the pipeline with fake models (the placeholder each source language gets, agreement around a term)."""

import os
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from mtcli import guards
from mtcli.errors import UserError
from mtcli.config import Options
from mtcli.confidence.links import Links
from mtcli.text import agreement, glossary, protect, swap
from mtcli.text.pipeline import translate_lines

from tests.text.fakes import answers, engine


def terms(text: str, direction: tuple[str, str] = ("en", "es")) -> glossary.Glossary:
    return glossary.parse(text.splitlines(), "g.tsv").towards(*direction)


def found(g: glossary.Glossary, text: str) -> list[tuple[str, str]]:
    return [(text[s:e], out) for s, e, out in g.find(text)]


@pytest.mark.parametrize("text, message", [
    ("invoice\tfactura\nbill", "g.tsv: line 2: 1 column, not 2"),
    ("invoice\tfactura\tx", "g.tsv: line 1: 3 columns, not 2"),
    ("# c\n\ninvoice\t ", "g.tsv: line 3: the target term is empty"),
    ("\tfactura", "g.tsv: line 1: the source term is empty"),
    ("Apple\tApple Inc.\napple\tmanzana\nApple\tApple", "g.tsv: line 3: 'Apple' again"),  # (not line 2)
    ("invoice\tfactura\n invoice\trecibo", "g.tsv: line 2: 'invoice' again, now as 'recibo'; line 1 gave 'factura'"),
    ("...\tpuntos", "g.tsv: line 1: the source term '...' has no letter"),
    ("x\t" + "y" * 201, "g.tsv: line 1: a term longer than 200"),
])
def test_malformed_lines_are_refused_naming_the_line(text, message):
    with pytest.raises(UserError, match="^" + message.replace("(", r"\(").replace(".", r"\.")):
        glossary.parse(text.splitlines(), "g.tsv")


def test_header_comments_blank_lines_and_an_identical_repeat_are_accepted():
    g = glossary.parse(["source\ttarget", "# a comment", "", "invoice\tfactura", "invoice \t factura"], "g.tsv")
    assert g.terms == (("invoice", "factura"),)
    with pytest.raises(UserError, match="line 2: 1 column"):  # (a header only as the first line)
        glossary.parse(["invoice\tfactura", "source target"], "g.tsv")


def test_files_unreadable_or_not_utf8_are_one_line_errors(tmp_path: Path):
    bad = tmp_path / "bad.tsv"
    bad.write_bytes("invoice\tfactura\n".encode() + b"bill\tcuenta\xff\n")
    with pytest.raises(UserError, match=r"bad\.tsv: byte offset \d+, line 2: invalid UTF-8"):
        glossary.read(bad)
    with pytest.raises(UserError, match="cannot read the glossary"):
        glossary.read(tmp_path / "missing.tsv")
    with pytest.raises(UserError, match="a directory"):
        glossary.read(tmp_path)
    utf16 = tmp_path / "utf16.tsv"
    utf16.write_bytes("\ufeffcanción\tsong\n".encode("utf-16-le"))
    assert glossary.read(utf16).terms == (("canción", "song"),)


def test_whole_words_case_insensitive_longest_first_across_spaces():
    g = terms("card\ttarjeta\ncredit card\ttarjeta de crédito\ndog\tcan\nC++\tC++ (lenguaje)")
    text = "My Credit  card, the dogma, a dog-sled, the DOG's card and C++11 or C++."
    assert found(g, text) == [("Credit  card", "tarjeta de crédito"), ("DOG", "CAN"), ("card", "tarjeta"),
                              ("C++", "C++ (lenguaje)")]


def test_a_capitalised_term_matches_as_written_or_shouted_only():
    g = terms("Apple\tApple Inc.\napple\tmanzana\nAPI\tAPI (interfaz)")
    assert found(g, "Apple sells apples, APPLE too, with an API, not an Api.") == [
        ("Apple", "Apple Inc."), ("apples", "manzanas"), ("APPLE", "APPLE INC."), ("API", "API (interfaz)")]


@pytest.mark.parametrize("line, direction, text, want", [
    ("invoice\tfactura", ("en", "es"), "two invoices", "facturas"),
    ("box\tcaja", ("en", "es"), "the boxes", "cajas"),
    ("city\tciudad", ("en", "es"), "two cities", "ciudades"),
    ("song\tcanción", ("en", "es"), "songs", "canciones"),
    ("point of sale\tpunto de venta", ("en", "es"), "points of sale", "puntos de venta"),
    ("hard disk\tdisco duro", ("en", "es"), "hard disks", "discos duros"),
    ("autobús\tbus", ("es", "en"), "dos autobuses", "buses"),
    ("lápiz\tpencil", ("es", "en"), "los lápices", "pencils"),
    ("tarjeta de crédito\tcredit card", ("es", "en"), "tarjetas de crédito", "credit cards"),
    ("mouse\tratón\nmice\tratones", ("en", "es"), "three mice", "ratones"),
])
def test_plurals_match_and_come_out_plural(line, direction, text, want):
    assert [out for _, out in found(terms(line, direction), text)] == [want]


def test_a_line_of_its_own_wins_over_a_derived_plural():
    g = terms("new\tnuevo\nnews\tnoticias")  # ("news" is no plural of "new")
    assert found(g, "the news") == [("news", "noticias")]


def _translated(lines, table, glossary_text, direction=("en", "es"), seen=None):
    options = Options(glossary=glossary.parse(glossary_text.splitlines(), "g.tsv")).text_for(direction[0])
    return [r.text for r in translate_lines(lines, engine(answers(table, seen)), options)]


def test_a_sentence_whose_own_translation_holds_the_target_keeps_it_untouched():
    seen = []
    out = _translated(["The invoice is here."], {"The invoice is here.": "La factura ya está aquí."},
                      "invoice\tfactura", seen=seen)
    assert seen == ["The invoice is here."] and out == ["La factura ya está aquí."]
    # (a determiner the model wrote itself is its own: "la mano" is not made "el mano")
    assert _translated(["The hand hurts."], {"The hand hurts.": "La mano duele."}, "hand\tmano") == ["La mano duele."]


def test_an_english_term_goes_to_the_model_as_a_number_and_comes_back_as_the_target():
    seen = []
    out = _translated(["I sent the invoice to Tom.", "The invoices are here."],
                      {"I sent the invoice to Tom.": "Envié el recibo a Tom.", "I sent the 50 to Tom.": "Envié el 50 a Tom.",
                       "The 50 are here.": "Los 50 están aquí."}, "invoice\tfactura", seen=seen)
    assert seen[:2] == ["I sent the invoice to Tom.", "The invoices are here."]  # (first as they came)
    assert seen[2] == "I sent the 50 to Tom." and "The 50 are here." in seen
    assert out == ["Envié la factura a Tom.", "Las facturas están aquí."]  # (the determiners made to agree)


def test_a_spanish_term_goes_as_a_name_the_sentence_lacks_and_gets_its_article():
    seen = []
    out = _translated(["El piso de Tom es grande.", "Tengo un piso."],
                      {"El Mary de Tom es grande.": "Tom's Mary is big.", "Tengo un Tom.": "I have Tom."},
                      "piso\tapartment", ("es", "en"), seen)
    assert {"El Mary de Tom es grande.", "Tengo un Tom."} <= set(seen) and not any("50" in x for x in seen[:4])
    assert out == ["Tom's apartment is big.", "I have an apartment."]


def test_sentences_without_terms_are_untouched_and_a_term_alone_needs_no_model():
    seen = []
    out = _translated(["The cat sleeps.", "Invoice", "INVOICES!"], {"The cat sleeps.": "El gato duerme."},
                      "invoice\tfactura", seen=seen)
    assert seen == ["The cat sleeps."]
    assert out == ["El gato duerme.", "Factura", "FACTURAS!"]


def test_a_term_beside_a_number_is_one_span():
    seen = []
    out = _translated(["Invoice 5 is late."], {"50 is late.": "50 llega tarde."}, "invoice\tfactura", seen=seen)
    assert seen[:2] == ["Invoice 5 is late.", "50 is late."] and out == ["Factura 5 llega tarde."]


def test_a_term_inside_a_kept_span_keeps_the_rest_of_the_span():
    """att6: with `euros<TAB>dólares`, the kept amount "20 euros" gave way to the term whole, and the number was a
    word the model could drop, unwarned ("The price is 20 euros." -> "El precio tiene dólares."); the rest of the
    span stays kept, one span with the term. A span the term covers is the term's alone ("Windows 11")."""
    g = terms("euros\tdólares\nmin\tminutos\nWindows 11\tWindows 11")
    assert glossary.with_terms("It is 20 euros.", [(6, 14)], g) == [(6, 14)]
    assert glossary.with_terms("Wait 5-10 min now.", [(5, 13)], g) == [(5, 13)]
    assert glossary.with_terms("I use Windows 11 now.", [(14, 16)], g) == [(6, 16)]
    out = _translated(["The price is 20 euros.", "I paid 800 euros for it."],
                      {"The price is 50.": "El precio tiene 50.", "I paid 50 for it.": "Pagué 50 por eso."}, "euros\tdólares")
    assert out == ["El precio tiene 20 dólares.", "Pagué 800 dólares por eso."]


def test_translations_the_agreement_makes_alike_are_one_of_the_n_best():
    """att6: `--nbest 4 -g invoice<TAB>factura "I PAID THE INVOICES."` listed "PAGUÉ LAS FACTURAS." three times: the
    model's "los 50", "las 50" and "unos 50" all agree with the term alike; the best score of each is kept."""
    options = Options(glossary=glossary.parse(["invoice\tfactura"], "g.tsv")).text_for("en")
    table = {"I paid the 50.": ["Pagué los 50.", "Pagué las 50.", "Pagué 50 ya.", "Pagué el 50."]}
    (r,) = translate_lines(["I paid the invoices."], engine(answers(table)), options)
    assert r.nbest == [("Pagué las facturas.", -1.0), ("Pagué facturas ya.", -3.0)]


def test_the_determiners_before_a_term_agree_and_stressed_a_keeps_el():
    g = terms("water\tagua\ncity\tciudad\nproblem\tproblema")
    assert agreement.agreeing("Los nuevos ciudad y el agua y la problema", [("ciudad", ""), ("agua", ""),
                                                                          ("problema", "")], g) \
        == "La nueva ciudad y el agua y el problema"


def test_feminine_nouns_the_endings_miss_take_a_feminine_determiner_and_their_neighbours_do_not():
    g = terms("mother\tmadre\nhand\tmano\nfather\tpadre\nnight\tnoche")
    assert agreement.agreeing("El madre y los manos", [("madre", ""), ("manos", "")], g) == "La madre y las manos"
    assert agreement.agreeing("La padre y una noche", [("padre", ""), ("noche", "")], g) == "El padre y una noche"


def test_the_determiners_before_a_shouted_term_agree_in_capitals():
    """A term found in ALL CAPS comes out in ALL CAPS, and what stands before it agrees with it as in lowercase
    (att6: "PAY THE INVOICE NOW." had come out "PAGA EL FACTURA AHORA."); a target the glossary writes with a
    capital (a name: "Apple Inc.") is left as before, shouted or not."""
    g = terms("invoice\tfactura\nUser\tUsuario")
    assert agreement.agreeing("PAGA EL FACTURA AHORA.", [("FACTURA", "")], g) == "PAGA LA FACTURA AHORA."
    assert agreement.agreeing("PAGUÉ LOS FACTURAS DEL NUEVO FACTURA.", [("FACTURAS", ""), ("FACTURA", "")], g) \
        == "PAGUÉ LAS FACTURAS DE LA NUEVA FACTURA."
    assert agreement.agreeing("El factura", [("factura", "")], g) == "La factura"
    assert agreement.agreeing("VEO LOS USUARIO Y EL USUARIOS.", [("USUARIO", ""), ("USUARIOS", "")], g) \
        == "VEO LOS USUARIO Y EL USUARIOS."
    out = _translated(["PAY THE INVOICE NOW.", "I PAID THE INVOICES."],
                      {"Pay the 50 now.": "Paga el 50 ahora.", "I paid the 50.": "Pagué los 50."}, "invoice\tfactura")
    assert out == ["PAGA LA FACTURA AHORA.", "PAGUÉ LAS FACTURAS."]


@pytest.mark.parametrize("article", ["el", "la", "los", "un", "una", "mi", "este", "del", "al"])
@pytest.mark.parametrize("target", ["el michi", "la casa azul", "mi gato", "unos libros"])
def test_a_term_with_its_own_determiner_gets_no_second_one(article, target):
    """A target that opens with its determiner ("the cat" -> "el michi") loses the one the model wrote before
    it ("El el michi y el el michi duermen."), whichever it was; a contraction keeps its preposition, the term
    stays as given, and one opening the sentence is capitalised."""
    g = terms(f"the thing\t{target}")
    keep = {"del": "de ", "al": "a "}.get(article, "")
    assert agreement.agreeing(f"Veo {article} {target} y {article} {target}.", [(target, "")], g) \
        == f"Veo {keep}{target} y {keep}{target}."
    assert agreement.agreeing(f"{article.capitalize()} {target} duerme.", [(target, "")], g) \
        == f"{keep.capitalize()}{target if keep else target[0].upper() + target[1:]} duerme."
    en = terms("el gato\tthe kitty").towards("es", "en")
    for before in ("the", "The", "a", "an"):
        assert agreement.agreeing(f"I saw {before} the kitty.", [("the kitty", "")], en) == "I saw the kitty."
    assert agreement.agreeing("El gato de la casa", [("gato", "")], terms("cat\tgato")) == "El gato de la casa"


def test_the_injected_benchmark_counts_a_term_only_as_whole_words():
    """benchmarks/glossary_injected.py's term accuracy: a target inside a longer word (a plural, a compound, a
    hyphenated one) is not the term; any case and any spaces between its words are."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "glossary_injected", Path(__file__).parents[2] / "benchmarks" / "glossary_injected.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.holds("El Gato duerme.", "gato") and bench.holds("¿Tu tarjeta  de\tcrédito?", "tarjeta de crédito")
    assert bench.holds("«gato»", "gato") and bench.holds("the cat's toy", "cat")
    assert not bench.holds("Los gatos duermen.", "gato")
    assert not bench.holds("Un gatito.", "gato") and not bench.holds("Un minigato.", "gato")
    assert not bench.holds("Un gato-robot.", "gato") and not bench.holds("the house-cat", "cat")
    assert not bench.holds("tarjeta de créditos", "tarjeta de crédito")
    assert not bench.holds("tarjetas de crédito", "tarjeta de crédito")


def test_the_models_own_translation_with_a_term_in_another_case_is_kept_with_the_glossarys_case():
    seen = []
    out = _translated(["We live on the earth.", "Earth is round."],
                      {"We live on the earth.": "Vivimos en la Tierra.", "Earth is round.": "Tierra es redonda."},
                      "earth\ttierra", seen=seen)
    assert seen == ["We live on the earth.", "Earth is round."]  # (no placeholder tried)
    assert out == ["Vivimos en la tierra.", "Tierra es redonda."]
    assert glossary.as_given("la Tierrasanta y la TIERRA", ["tierra"]) == "la Tierrasanta y la tierra"


def test_a_named_pipe_with_no_writer_is_refused_after_a_bounded_wait(tmp_path: Path, monkeypatch):
    """-g FIFO waited forever in silence (read_bytes on a pipe nobody opened to write); a pipe that is
    written (-g <(...)) is read."""
    monkeypatch.setattr(guards, "FIFO_WAIT", 0.5)
    os.mkfifo(tmp_path / "terms")
    started = time.monotonic()
    with pytest.raises(UserError, match="no program opened to write"):
        glossary.read(tmp_path / "terms")
    assert time.monotonic() - started < 10
    monkeypatch.setattr(guards, "FIFO_WAIT", 30.0)
    threading.Thread(target=lambda: (tmp_path / "terms").write_text("invoice\tfactura\n"), daemon=True).start()
    assert glossary.read(tmp_path / "terms").terms == (("invoice", "factura"),)
def _links(table: dict[tuple[str, str], tuple[list[int], list[int]]], asked: list | None = None):
    """An aligner answering each (source, translation) pair from a table of (each target word's source word, each
    source word's target word); None for a pair it lacks."""
    def align(pairs):
        if asked is not None:
            asked.extend(pairs)
        return [Links(*table[p]) if p in table else None for p in pairs]
    return align


def _swapping(lines, table, links, glossary_text, direction=("en", "es"), seen=None):
    options = Options(glossary=glossary.parse(glossary_text.splitlines(), "g.tsv")).text_for(direction[0])
    aligned = replace(engine(answers(table, seen)), align=links)
    return [r.text for r in translate_lines(lines, aligned, options)]


def test_the_target_replaces_the_words_linked_to_the_term_in_the_models_own_translation():
    seen, asked = [], []
    # I(0) paid(1) the(2) invoice(3) yesterday.(4) -> Pagué(0) el(1) recibo(2) ayer.(3): "el" linked to "invoice"
    # too, yet the determiner stays the sentence's and agrees with the target
    links = _links({("I paid the invoice yesterday.", "Pagué el recibo ayer."): ([1, 3, 3, 4], [0, 0, 1, 2, 3])},
                   asked)
    out = _swapping(["I paid the invoice yesterday."], {"I paid the invoice yesterday.": "Pagué el recibo ayer."},
                    links, "invoice\tfactura", seen=seen)
    assert out == ["Pagué la factura ayer."]
    assert seen == ["I paid the invoice yesterday."]  # (no placeholder decoded)
    assert asked == [("I paid the invoice yesterday.", "Pagué el recibo ayer.")]


def test_a_swapped_term_keeps_the_words_punctuation_opens_with_a_capital_and_gets_no_article_added():
    table = {"¿Dónde está mi piso?": "Where is my flat?", "El dinero no es todo.": "Money isn't everything."}
    links = _links({("¿Dónde está mi piso?", "Where is my flat?"): ([0, 1, 2, 3], [0, 1, 2, 3]),
                    ("El dinero no es todo.", "Money isn't everything."): ([1, 2, 4], [0, 0, 1, 1, 2])})
    # (the model left out the article of "El dinero": as placeholders, "The cash" would have come out)
    assert _swapping(list(table), table, links, "piso\tapartment\ndinero\tcash", ("es", "en")) == \
        ["Where is my apartment?", "Cash isn't everything."]
    en = _links({("Car is fast.", "Coche es rápido."): ([0, 1, 2], [0, 1, 2])})
    assert _swapping(["Car is fast."], {"Car is fast.": "Coche es rápido."}, en, "car\tautomóvil") == \
        ["Automóvil es rápido."]


def test_a_swapped_target_ending_in_a_stop_takes_the_sentences_stop_as_its_own():
    """"U.S." -> "EE. UU." at a sentence's end had come out "Él vive en los EE. UU.." (att6): the replaced word's stop
    and the target's; a target without a stop keeps the word's, and one whose stop ends a question keeps its "?"."""
    table = {"He lives in the U.S.": "Él vive en los Estados Unidos.", "Is he in the U.S.?": "¿Está en Estados Unidos?",
             "He works for Acme.": "Él trabaja para Acme."}
    links = _links(dict(zip(table.items(), [([0, 1, 2, 3, 4, 4], [0, 1, 2, 3, 5]), ([0, 2, 4, 4], [0, 0, 1, 1, 3]),
                                             ([0, 1, 2, 3], [0, 1, 2, 3])])))
    assert _swapping(list(table), table, links, "U.S.\tEE. UU.\nAcme\tAcme S.A.") == \
        ["Él vive en los EE. UU.", "¿Está en EE. UU.?", "Él trabaja para Acme S.A."]


def test_a_swapped_term_takes_the_models_other_words_for_it_beside_the_linked_one():
    """"Estados" linked to "the" (whose own word is "los"), "Unidos" to "U.S.": swapping "Unidos" alone made "los
    Estados EE. UU." (finding V); a word beside the term that is a source word's own ("y": "and") stays."""
    source, said = "I love the U.S. and Canada.", "Me encantan los Estados Unidos y Canadá."
    links = _links({(source, said): ([0, 1, 2, 2, 3, 4, 5], [0, 1, 2, 4, 5, 6])})
    assert _swapping([source], {source: said}, links, "U.S.\tEE. UU.") == ["Me encantan los EE. UU. y Canadá."]
    # (a lowercase word beside it is another word's: "muy" of "very", linked to it, beside "perro")
    source, said = "The dog is very big.", "El perro muy es grande."
    links = _links({(source, said): ([0, 1, 3, 2, 4], [0, 1, 3, 4, 4])})  # (the own word of "very": "grande")
    assert _swapping([source], {source: said}, links, "dog\tcan") == ["El can muy es grande."]


def test_unclear_links_leave_the_sentence_to_the_placeholders():
    table = {"My big dog barks.": "Mi perro grande ladra.", "My big 50 barks.": "Mi gran 50 ladra."}
    # "dog" linked to "perro" and "ladra.", words apart; then no link at all (the aligner could not read the pair)
    apart = _links({("My big dog barks.", "Mi perro grande ladra."): ([0, 2, 1, 2], [0, 2, 1, 3])})
    for links in (apart, _links({})):
        seen = []
        assert _swapping(["My big dog barks."], table, links, "dog\tcan", seen=seen) == ["Mi gran can ladra."]
        assert seen[1] == "My big 50 barks."


def test_two_terms_swapped_at_once_and_a_number_beside_them_masked_as_without_a_glossary():
    seen, asked = "The car costs 50 dollars at the shop.", "El coche cuesta 50 dólares en la tienda."
    links = _links({(seen, asked): ([0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3, 4, 5, 6, 7])})
    out = _swapping(["The car costs 5 dollars at the shop."], {seen: asked}, links, "car\tautomóvil\nshop\tferretería")
    assert out == ["El automóvil cuesta 5 dólares en la ferretería."]


def test_swap_placed_finds_each_term_whole_and_swapped_refuses_overlaps():
    masked = protect.Masked("the 50 of the 50", ("perro", "mapa"), ("50",), sources=("dog", "map"))
    assert swap.placed("the dogma of the dog's map", replace(masked, sources=("dog", "map"))) == \
        [(17, 20, "perro"), (23, 26, "mapa")]
    assert swap.placed("the dogma", masked) is None
    links = Links([0, 0], [0, 1])  # both source words' link is the first target word
    assert swap.swapped("big dog", "perrazo x", [(0, 3, "gran"), (4, 7, "perro")], links) is None
