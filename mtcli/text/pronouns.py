"""A pronoun typed in capitals for weight that a table of acronyms (acronyms.WRITTEN) has as an acronym too: "Just
do IT.", "It's US against them.", "Esto es para TI."."""

from __future__ import annotations

import re

from mtcli import lazy_re

# A row of acronyms.WRITTEN that is also a pronoun of the source in capitals ("IT", "US", "WHO"; Spanish "TI") is the
# acronym only after what stands before a name, not a pronoun (a determiner, English "in": "the US", "I work in IT";
# Spanish "trabajo en TI", "el departamento de TI"), or before a noun it names ("US troops", "IT department"); else the word typed in capitals
# for weight ("Just do IT." had come out "Solo haz TI.", "It's US against them." "Son EE. UU. contra ellos.",
# "Esto es para TI." "This is for IT.")
PRONOUNS = {"en": frozenset({"IT", "US", "WHO"}), "es": frozenset({"TI"})}
_NAMED_BEFORE = {
    "en": lazy_re.compile(r"(?<![\w'’])(?:the|an?|in|our|your|their|its|his|her|my|this|that)\s+$", re.IGNORECASE),
    "es": lazy_re.compile(r"(?<!\w)(?:el|la|los|las|del|al|un|una|su|sus|mi|mis|tu|tus|nuestr[oa]s?|(?:trabaj\w*|"
                          r"experiencia|carrera|empleo|puesto|expert[oa]s?|especialista)\s+en|(?:departamento|equipo|"
                          r"área|sector|servicios?|soporte|responsable|director[a]?|jef[ea]|gestión|proyectos?|"
                          r"personal|técnic[oa]s?|presupuesto)\s+de)\s+$", re.IGNORECASE)}
_NAMED_AFTER = lazy_re.compile(r"\s+(?:department|team|support|staff|manager|director|services?|sector|industry|"
                               r"compan(?:y|ies)|professionals?|security|systems?|budget|government|president|army|"
                               r"military|troops|dollars?|citizens?|embassy|economy|markets?|elections?|officials?|"
                               r"border|navy|forces|laws?|courts?|visa|report|guidelines|experts?|chief)s?(?!\w)")


def stressed(text: str, start: int, end: int, source: str) -> bool:
    """text[start:end] is a pronoun of PRONOUNS with nothing before it that stands before a name and no noun after it
    that it names."""
    return text[start:end] in PRONOUNS[source] \
        and not _NAMED_BEFORE[source].search(text, max(0, start - 40), start) \
        and not (source == "en" and _NAMED_AFTER.match(text, end))
