"""Hypothesis strategies for every span kind of kinds.KINDS (and ICU messages, icu.py's): each draws a piece of text
that holds one span of the kind, and what of it the translation must hold exactly once (the span itself, or the
span written anew in the target language: a date, a title). tests/text/test_nothing_lost.py runs them through the
pipeline; a kind without a strategy here fails there."""

from hypothesis import strategies as st

from mtcli.text.tables import rewritten

# ordinary words (no number word, month, weekday, title or hex word that would make a span of its own)
EN_WORDS = ("the house is near river we saw green car my friend sent letter to her this morning please open "
            "window they like small garden our teacher reads book with old map after lunch she found key in "
            "kitchen you can check page before school").split()
ES_WORDS = ("la casa está cerca del río vimos coche verde mi amigo envió carta a ella esta mañana por favor abre "
            "ventana les gusta jardín pequeño nuestro maestro lee libro con mapa viejo después almuerzo encontró "
            "llave en cocina puedes revisar página antes escuela").split()
# words of an HTML comment or a processing instruction: none of them is a word of the prose around it
HIDDEN_WORDS = "draft hidden secret internal reviewer obsolete pending todo fixme legacy".split()

_ident = st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
_Ident = st.builds(str.capitalize, _ident)
_hex = st.text("0123456789abcdefABCDEF", min_size=1, max_size=4)
_small = st.integers(0, 999).map(str)
_digits = st.integers(1, 99_999).map(str)


def _same(s: st.SearchStrategy[str], language: str = "en") -> st.SearchStrategy[tuple[str, str]]:
    """A span that comes back as it came (or written anew, as the pipeline writes it in the target language)."""
    return s.map(lambda span: (span, rewritten(span, language)))


@st.composite
def _ipv6(draw) -> str:
    groups = draw(st.lists(_hex, min_size=1, max_size=8))
    if len(groups) == 8 and draw(st.booleans()):
        address = ":".join(groups)
    else:  # one run of zero groups written "::", at any place (both ends included)
        cut = draw(st.integers(0, min(len(groups), 7)))
        address = ":".join(groups[:cut]) + "::" + ":".join(groups[cut:7])
    if draw(st.booleans()):
        address = f"[{address}]" + draw(st.sampled_from(["", ":80", ":8080", ":443"]))
    return address


_TLD = st.sampled_from(["com", "org", "net", "io", "es", "dev"])
_domain = st.builds(lambda a, b: f"{a}.{b}", _ident, _TLD)
_URL = st.builds(lambda scheme, host, path, q: f"{scheme}{host}{path}{q}", st.sampled_from(["https://", "http://", "www."]),
                 _domain, st.sampled_from(["", "/", "/a/b", "/wiki/Foo_(bar)", "/x.html"]),
                 st.sampled_from(["", "?q=1", "?a=b&c=d", "#top"]))
_EMAIL = st.builds(lambda user, host: f"{user}@{host}", st.from_regex(r"[a-z][a-z0-9._+-]{0,8}[a-z0-9]", fullmatch=True),
                   _domain)
_CODE = st.builds(lambda c: f"`{c}`", st.sampled_from(["ls -la", "git status", "x = 1", "print(x)", "npm i", "cd .."]))
_TAG = st.sampled_from(["<b>", "</i>", "<br/>", '<img src="a.png">', "<span class=\"x\">", "[^1]", "[^note]"])
_HANDLE = st.builds(lambda mark, name: mark + name, st.sampled_from("@#"), _ident)
_PATH = st.sampled_from(["/usr/bin/env", "~/.bashrc", "./run.sh", "../lib/x.py", "/etc/hosts", "C:\\Windows\\x.ini",
                         "/var/log/syslog", "~/notes/a_b-c.txt"])
_FILE = st.builds(lambda name, ext: f"{name}.{ext}", _ident, st.sampled_from(["pdf", "md", "txt", "py", "csv", "yaml"]))
_TIME = st.builds(lambda h, m, ap: f"{h}{m}{ap}", st.integers(1, 12).map(str), st.sampled_from(["", ":15", ":30", ":45"]),
                  st.sampled_from([" p.m.", " a.m.", "pm", " am"]))
_MONEY = st.builds(lambda n, f: f.format(n), _digits, st.sampled_from(["{} €", "USD {}", "{} USD", "{} EUR", "{}£",
                                                                                 "US${}", "C$ {}", "-{} €", "-${}", "-€{}"]))
_UNIT = st.builds(lambda n, u: u.format(n), _digits, st.sampled_from(["{} km", "{} kg", "{} MB", "{} °C", "{} min", "{} ml",
                                                                      "{} GHz", "{} km/h", "-{} °C", "{} mg/kg"]))
_FEET = st.builds(lambda f, i: f"{f}'{i}\"", st.integers(4, 7), st.integers(0, 11)) | st.integers(10, 99).map(lambda n: f'{n}"')
_MONTHS = ["January", "March", "June", "July", "October", "December"]
_DATE = st.builds(lambda m, d, y: f"{m} {d}, {y}", st.sampled_from(_MONTHS), st.integers(1, 28), st.integers(1900, 2099)) \
    | st.builds(lambda d, m, y: f"{d} {m} {y}", st.integers(1, 28), st.sampled_from(_MONTHS), st.integers(1900, 2099))
_NAMES = ["Brown", "Smith", "Garcia", "O'Neil", "Smith-Jones", "Lee", "López"]
_MONTH = st.sampled_from(["January", "February", "July", "September", "October", "November", "December"])  # (alone
# anywhere: the other months are a month only after a word that leads to one)
_TITLED = st.builds(lambda t, n: f"{t} {n}", st.sampled_from(["Mr.", "Mrs.", "Dr.", "Ms", "Prof."]), st.sampled_from(_NAMES))
_ES_MONTHS = ["enero", "marzo", "junio", "julio", "octubre", "diciembre"]
_FECHA = st.builds(lambda d, m, y: f"{d} de {m} de {y}", st.integers(1, 28), st.sampled_from(_ES_MONTHS),
                   st.integers(1900, 2099))
_TITULO = st.builds(lambda t, n: f"{t} {n}", st.sampled_from(["Sr.", "Sra.", "Dra.", "Srta."]), st.sampled_from(_NAMES))
_EN_ORDINAL = st.integers(1, 999).map(lambda n: f"{n}{'th' if n % 100 in (11, 12, 13) else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}")
_NUMERO = st.builds(lambda a, b, f: f.format(a, b), st.integers(1, 999), st.integers(0, 999),
                    st.sampled_from(["{}.{:03d}", "{},5", "{}.{:03d},25", "{},75", "{}.{:03d}.000"]))
_NUMBER_SIGN = st.builds("No. {}".format, st.integers(1, 999))
_SIGNO = st.builds(lambda sign, n: f"{sign}{n}", st.sampled_from(["n.º ", "nº ", "núm. ", "n.º"]), st.integers(1, 999))
_ORDINAL = st.builds(lambda n, mark: f"{n}{mark}", st.integers(1, 99), st.sampled_from([".º", ".ª", "º", ".er"]))
_NUMBER = st.sampled_from(["{}", "{}.50", "{}%", "{},000", "COVID-{}", "MP{}", "-{}", "{}-{}", "12/05/{}", "{}rd"]).flatmap(
    lambda f: _digits.map(lambda n: f.format(n, n)))
_EMOTICON = st.sampled_from([":-)", ":)", ";)", ":D", ":P", ":(", "^_^", "-_-", "xD", "<3", ":'("])
_ROMAN = st.builds(lambda w, r: (f"{w} {r}", r), st.sampled_from(["Chapter", "Part", "Louis", "Henry"]),
                   st.sampled_from(["II", "III", "IV", "VI", "IX", "XI", "XIV", "XX", "XL"]))
_BRACES = st.builds(lambda f, n: f(n), st.sampled_from([lambda n: "{{ %s }}" % n, lambda n: "{{%s}}" % n,
                                                      lambda n: "{%% if %s %%}" % n, lambda n: "{{{%s}}}" % n,
                                                      lambda n: "<%%= %s %%>" % n]), _ident)
_INTERPOLATION = st.builds(lambda f, n: f.format(n), st.sampled_from(["${{{}}}", "#{{{}}}", "$({})", "%{{{}}}", "{{${}}}",
                                                                     "$t(a.{})", "${}"]), _ident)
_BRACE = st.builds(lambda f, n: f.format(n), st.sampled_from(["{{{}}}", "{{0}}", "{{}}", "{{{}:.2f}}", "{{user.{}}}"]),
                   _ident)
_PRINTF = st.sampled_from(["%s", "%d", "%1$s", "%2$d", "%(name)s", "%(count)d", "%-5.2f", "%%", "%@", "%ld", "%.2f", "%1", "%L2",
                           "%APPNAME%"])
_ENTITY = st.sampled_from(["&nbsp;", "&amp;", "&copy;", "&#39;", "&#x27;", "&mdash;", "&hellip;", "&amp;lt;"])
_KEYS = st.builds(lambda m, k: f"{m}+{k}", st.sampled_from(["Ctrl", "Alt", "Shift", "Cmd", "Ctrl+Shift"]),
                  st.sampled_from(["S", "F4", "Tab", "Z", "Enter"]))
_ESCAPE = st.sampled_from(["\\n", "\\t", "\\\\", "\\u00e9", "\\r"])
_COLON = st.builds(lambda n: ":" + n, _ident)
_ICU = st.builds(lambda name, kind, one, other: f"{{{name}, {kind}, one {{# {one}}} other {{# {other}}}}}",
                 st.sampled_from(["count", "n", "num"]), st.sampled_from(["plural", "selectordinal"]),
                 st.sampled_from(["item", "file", "message"]), st.sampled_from(["items", "files", "messages"]))

# kind -> (source language, strategy of (piece, what the translation holds of it))
SPANS = {
    "ipv6 address": ("en", _same(_ipv6())), "url": ("en", _same(_URL)), "email": ("en", _same(_EMAIL)),
    "code": ("en", _same(_CODE)), "tag": ("en", _same(_TAG)), "keys": ("en", _same(_KEYS)),
    "ampersand name": ("en", _same(st.sampled_from(["AT&T", "H&M", "R&D", "P&G", "B&Q", "Q&A"]))),
    "apostrophe name": ("en", _same(st.sampled_from(["O'Brien", "D'Angelo", "O'Neill", "D'Souza", "O'Connor"]))),
    "handle": ("en", _same(_HANDLE)),
    "path": ("en", _same(_PATH)), "file or domain": ("en", _same(_FILE | _domain)), "time": ("en", _same(_TIME)),
    "money": ("en", _same(_MONEY)), "quantity": ("en", _same(_UNIT)), "feet and inches": ("en", _same(_FEET)),
    "ratio": ("en", _same(st.sampled_from(["3 :1", "2 : 1", "16 : 9", "1.5 :1"]))),
    "date": ("en", _same(_DATE)), "title and name": ("en", _same(_TITLED)),
    "month": ("en", _same(_MONTH)), "mes": ("es", _same(st.sampled_from(_ES_MONTHS), "es")),
    "fecha": ("es", _same(_FECHA, "es")), "título y nombre": ("es", _same(_TITULO, "es")),
    "ordinal": ("es", _same(_ORDINAL, "es")), "ordinal (en)": ("en", _same(_EN_ORDINAL)),
    "número": ("es", _same(_NUMERO, "es")), "number sign": ("en", _same(_NUMBER_SIGN)),
    "signo de número": ("es", _same(_SIGNO, "es")), "number": ("en", _same(_NUMBER)), "emoticon": ("en", _same(_EMOTICON)),
    "roman numeral": ("en", _ROMAN), "template braces": ("en", _same(_BRACES)),
    "template interpolation": ("en", _same(_INTERPOLATION)), "template brace": ("en", _same(_BRACE)),
    "printf placeholder": ("en", _same(_PRINTF)), "html entity": ("en", _same(_ENTITY)),
    "escape": ("en", _same(_ESCAPE)), "colon name": ("en", _same(_COLON)),
    "icu message": ("en", _same(_ICU)),  # (not a row: icu.py reads them; its structure kept, its words translated)
}
# a kind found only in a line that is a template (kinds.COLON_NAME): two of them at least
AT_LEAST_TWO = {"colon name"}


@st.composite
def lines(draw, kind: str, most: int = 3) -> tuple[str, list[tuple[str, str]]]:
    """A sentence of ordinary words with 1..most spans of the kind among them (a word at least between two),
    and each span's (piece, what comes back)."""
    language, spans = SPANS[kind]
    words = EN_WORDS if language == "en" else ES_WORDS
    n = draw(st.integers(2 if kind in AT_LEAST_TWO else 1, most))
    pieces = [draw(spans) for _ in range(n)]
    runs = [draw(st.lists(st.sampled_from(words), min_size=1 if 0 < k < n else 0, max_size=4)) for k in range(n + 1)]
    if not any(runs):
        runs[-1] = [draw(st.sampled_from(words))]
    first = " ".join(runs[0])  # (capitalised; a span that opens the sentence as it is)
    parts = [first[:1].upper() + first[1:]] + [p for (piece, _), run in zip(pieces, runs[1:])
                                                for p in (piece, " ".join(run))]
    return " ".join(p for p in parts if p) + draw(st.sampled_from([".", "!", "?", ""])), pieces
