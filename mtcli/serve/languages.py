"""The languages the server knows and the directions it translates, in one place: /languages,
/frontend/settings, /spec and the checks of `source` and `target` all read them from here, so that a
direction added here (with its model) shows everywhere at once."""

from __future__ import annotations

NAMES = {"en": "English", "es": "Spanish"}  # code -> name, as LibreTranslate lists them
DIRECTIONS = (("en", "es"),)  # (source, target) pairs this server translates
AUTO = "auto"  # `source` that asks the server to tell the language from the text
DETECTED = "en"  # what `auto` and /detect answer while the server translates from one language only


def targets(source: str) -> list[str]:
    return [t for s, t in DIRECTIONS if s == source]


def listed() -> list[dict]:
    """GET /languages: every language with the targets it translates into."""
    return [{"code": code, "name": name, "targets": targets(code)} for code, name in NAMES.items()]


def refusal(source: str, target: str) -> str | None:
    """Why the direction cannot be translated (LibreTranslate's wording), or None when it can. The
    codes are checked as given, case and all, as LibreTranslate does."""
    if source != AUTO and source not in NAMES:
        return f"{source} is not supported"
    if target not in NAMES:
        return f"{target} is not supported"
    source = DETECTED if source == AUTO else source
    if (source, target) not in DIRECTIONS:
        return (f"{NAMES[target]} ({target}) is not available as a target language from "
                f"{NAMES[source]} ({source})")
    return None
