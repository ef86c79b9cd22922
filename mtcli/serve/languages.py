"""The languages the server knows and the directions it translates, in one place: /languages,
/frontend/settings, /spec and the checks of `source` and `target` all read them from a `Directions`
made of the models the server loaded (a direction shows everywhere once its model is loaded)."""

from __future__ import annotations

from dataclasses import dataclass

NAMES = {"en": "English", "es": "Spanish"}  # code -> name, as LibreTranslate lists them
AUTO = "auto"  # `source` that asks the server to tell the language from the text


def pair(direction: str) -> tuple[str, str]:
    """"en-es" -> ("en", "es")."""
    source, target = direction.split("-")
    return source, target


@dataclass(frozen=True)
class Directions:
    """The (source, target) pairs this server translates, in the order its models were given."""

    pairs: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, directions) -> Directions:
        """From model directions such as "en-es"."""
        return cls(tuple(pair(d) for d in directions))

    def targets(self, source: str) -> list[str]:
        return [t for s, t in self.pairs if s == source]

    def listed(self) -> list[dict]:
        """GET /languages: every language with the targets it translates into (none: no model from it)."""
        return [{"code": code, "name": name, "targets": self.targets(code)} for code, name in NAMES.items()]

    def refusal(self, source: str, target: str) -> str | None:
        """Why the direction cannot be translated (LibreTranslate's wording), or None when it can. The
        codes are checked as given, case and all, as LibreTranslate does. A source equal to the target
        is no translation: its text comes back as it came (as LibreTranslate's does). With `auto` the
        pair is checked per text once its language is told (`unavailable`)."""
        if source != AUTO and source not in NAMES:
            return f"{source} is not supported"
        if target not in NAMES:
            return f"{target} is not supported"
        if source in (AUTO, target):
            return None
        return self.unavailable(source, target)

    def unavailable(self, source: str, target: str) -> str | None:
        if source == target or (source, target) in self.pairs:
            return None
        return (f"{NAMES[target]} ({target}) is not available as a target language from "
                f"{NAMES[source]} ({source})")

    def source_for(self, target: str) -> str:
        """The language a text with nothing to tell (digits, a URL) is read as on its way to `target`."""
        return next((s for s, t in self.pairs if t == target), target)
