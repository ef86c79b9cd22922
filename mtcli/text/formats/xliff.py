"""XLIFF 1.2 and 2.0: each unit's source a text (translate="no" skipped), its translation written to the
target (made after the source when missing) and marked for review: state="needs-review-translation" (1.2),
the segment's state="translated" (2.0: translated, not yet reviewed). Inline tags wrapping text (<g>, <mrk>,
<pc>) are items around their words, the others (<x/>, <bx/>, <ex/>, <ph>, <bpt>/<ept>, <sc/>/<ec/>) items
kept as they are (mixed.py). A unit with a target already is left unless Settings.overwrite."""

from __future__ import annotations

import copy

from mtcli.errors import UserError
from mtcli.text.formats import mixed, package
from mtcli.text.formats.units import Settings, Units

V12 = "urn:oasis:names:tc:xliff:document:1.2"
V20 = "urn:oasis:names:tc:xliff:document:2.0"
PAIRED = {f"{{{V12}}}g", f"{{{V12}}}mrk", f"{{{V20}}}pc", f"{{{V20}}}mrk"}


def _paired(element) -> bool:
    return element.tag in PAIRED


def read(data: bytes, name: str, settings: Settings):
    root = package.parse_xml(data, name)
    ns = root.tag[1:].split("}")[0] if root.tag.startswith("{") else ""
    if ns not in (V12, V20) or root.tag.split("}")[-1] != "xliff":
        raise UserError(f"{name}: not XLIFF 1.2 or 2.0 (root element {root.tag.split('}')[-1]!r}"
                        f"{f' in {ns}' if ns else ', no namespace'})")
    units = Units("".join(root.itertext()))
    if ns == V12:
        pairs = [(u, u.find(f"{{{V12}}}source")) for u in root.iter(f"{{{V12}}}trans-unit")
                 if u.get("translate", "yes") != "no"]
    else:
        pairs = [(s, s.find(f"{{{V20}}}source")) for u in root.iter(f"{{{V20}}}unit") if u.get("translate", "yes") != "no"
                 for s in u.iter(f"{{{V20}}}segment")]
    for number, (holder, source) in enumerate(pairs, 1):
        if source is None:
            continue
        target = holder.find(f"{{{ns}}}target")
        if target is not None and "".join(target.itertext()).strip() and not settings.overwrite:
            continue
        inline: list = []
        text = mixed.read(source, units, _paired, inline)
        units.add(text, lambda tokens, h=holder, s=source, t=target, i=inline: _put(ns, h, s, t, i, tokens), number)

    def write(language: str) -> bytes:
        """The file with its target language named where it names none."""
        if ns == V12:
            for f in root.iter(f"{{{V12}}}file"):
                f.set("target-language", f.get("target-language") or language)
        else:
            root.set("trgLang", root.get("trgLang") or language)
        return package.write_xml(root)

    return units, write


def _put(ns: str, holder, source, target, inline: list, tokens) -> None:
    """The translation into the target, with copies of the source's inline tags (the source stays)."""
    copies = [copy.deepcopy(e) for e in inline]
    if target is None:
        target = source.makeelement(f"{{{ns}}}target", {})
        target.tail = source.tail
        source.addnext(target)
    mixed.write(target, tokens, copies, _paired)
    if ns == V12:
        target.set("state", "needs-review-translation")
    else:
        holder.set("state", "translated")
