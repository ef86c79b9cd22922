"""A label before a colon at a sentence's start ("Note: ", "Step 2: ", "Tom: ", "HAMLET: ").

Given the model with its sentence, it garbled both ("Tom: Where are you?" -> "¿Dónde estás las dos?"); alone,
a heading word came out as nonsense ("Warning" -> "Prender la guerra", "Note" -> "Bueno", "Teacher" -> "Tu
profesor", "Deadline" -> "Fecha muere", "Monday: Meeting" as a vocative -> "El lunes se encuentro"). So a heading
word comes from HEADINGS, a number word after it from NUMBERS ("Chapter One" -> "Capítulo uno"), a date in
Spanish ("May 5: " -> "5 de mayo: "); a speaker's or a title's name before a capital is kept as it came, and
From/To/Cc/Bcc keep the names and addresses after them. A sentence's opening ("Yes: ", "WE KNOW: ") is no label:
it goes to the model with its sentence.
"""

from __future__ import annotations

import re

from mtcli.text.dates import DATE, WEEKDAYS
from mtcli.text.tables import in_spanish
from mtcli import lazy_re

LABEL = lazy_re.compile(r"(?P<word>[A-Z][a-z'-]+|[A-Z]{2,})(?: (?P<second>[A-Z][a-z'-]+|[A-Z]{2,}))?"
                        r"(?: \d{1,3}[a-z]?)?:[ \t]+(?=\S)")
HEADINGS = {
    # notes, documents, forms
    "note": "nota", "notes": "notas", "error": "error", "warning": "advertencia", "caution": "precaución",
    "tip": "consejo", "tips": "consejos", "hint": "pista", "question": "pregunta", "answer": "respuesta",
    "example": "ejemplo", "examples": "ejemplos", "important": "importante", "urgent": "urgente",
    "reminder": "recordatorio", "remember": "recuerda", "update": "actualización", "summary": "resumen",
    "abstract": "resumen", "introduction": "introducción", "conclusion": "conclusión", "notice": "aviso",
    "attention": "atención", "step": "paso", "ingredients": "ingredientes", "method": "preparación",
    "directions": "instrucciones", "instructions": "instrucciones", "problem": "problema", "solution": "solución",
    "date": "fecha", "time": "hora", "price": "precio", "total": "total", "subject": "asunto", "from": "de",
    "to": "para", "cc": "cc", "bcc": "cco", "agenda": "orden del día", "sent": "enviado", "name": "nombre", "age": "edad", "address": "dirección", "phone": "teléfono",
    "email": "correo", "owner": "propietario", "deadline": "fecha límite", "result": "resultado",
    "results": "resultados", "reason": "motivo", "status": "estado", "source": "fuente", "definition": "definición",
    "description": "descripción", "title": "título", "author": "autor", "exercise": "ejercicio",
    "chapter": "capítulo", "lesson": "lección", "part": "parte", "section": "sección", "page": "página",
    "task": "tarea", "goal": "objetivo", "location": "lugar", "translation": "traducción", "comment": "comentario",
    "weight": "peso", "height": "altura", "day": "día", "week": "semana", "month": "mes", "year": "año",
    "fact": "dato", "closed": "cerrado", "open": "abierto", "score": "puntuación", "path": "ruta",
    "verse": "versículo", "disclaimer": "aviso legal", "recipe": "receta", "specs": "especificaciones",
    "kitchen": "cocina", "morning": "mañana", "afternoon": "tarde", "evening": "noche",
    # days, meals
    **WEEKDAYS, "yesterday": "ayer", "today": "hoy", "tomorrow": "mañana",
    "tonight": "esta noche", "breakfast": "desayuno", "lunch": "almuerzo", "dinner": "cena",
    # speakers named by their role
    "mother": "madre", "father": "padre", "mom": "mamá", "dad": "papá", "teacher": "profesor",
    "student": "estudiante", "doctor": "médico", "nurse": "enfermera", "customer": "cliente", "boss": "jefe",
    "waiter": "camarero", "police": "policía", "interviewer": "entrevistador", "narrator": "narrador",
}
ADDRESSES = {"from", "to", "cc", "bcc"}  # headings of a mail's names and addresses: kept as they are
# a word or two before a colon that open a sentence, not label one: "Hello Tom: Are you in?", "Yes: The door is
# open.", "Where: Room 4?" (kept, they stayed English; with their sentence the model translated them)
NOT_LABELS = frozenset("hello hi hey thanks yes no ok okay why where what when how who please so well now then also "
                       "but and because we i you he she they it this that there".split())
_CAPITAL_FIRST = lazy_re.compile(r"[\"'(¿¡«]*[A-Z]")
_NAME_LIKE = lazy_re.compile(r"(?:[A-Z][\w.'-]*|\S*@\S*|<\S*>|and|&)(?:,? (?:[A-Z][\w.'-]*|\S*@\S*|<\S*>|and|&))*,?")
NUMBERS = {"one": "uno", "two": "dos", "three": "tres", "four": "cuatro", "five": "cinco", "six": "seis",
           "seven": "siete", "eight": "ocho", "nine": "nueve", "ten": "diez"}


def is_label(label: re.Match, text: str) -> bool:
    """Whether a LABEL match at the start of text labels what follows: a heading word, a date, or a speaker's or a
    title's name (one word, or two not in capitals: "WE KNOW: IT IS LATE." is a sentence) before a capital;
    From/To/Cc before a name or an address."""
    word, rest = label["word"].lower(), text[label.end() :]
    if word in ADDRESSES:
        return not label["second"] and addresses(label, text)
    if heading(label):
        return True
    return (word not in NOT_LABELS and not (label["second"] and label.group().isupper())
            and bool(_CAPITAL_FIRST.match(rest)) and any(c.isalpha() for c in rest))


def addresses(label: re.Match, text: str) -> bool:
    """A mail's From/To/Cc/Bcc before names and addresses only ("To: Mary Jones <mary@x.org>", not "From: Monday,
    the office opens at 8.")."""
    return label["word"].lower() in ADDRESSES and bool(_NAME_LIKE.fullmatch(text[label.end() :].strip()))


def heading(label: re.Match) -> str | None:
    """A LABEL match in Spanish, colon and spaces as they came, cased like the label; None if it is not a
    heading word (with no second word but a number word: "Important Note" would take reordering)."""
    name = label.group().rstrip()[:-1]
    if DATE.fullmatch(name):  # a calendar's line, "May 5: Dentist" -> "5 de mayo: ..."
        return in_spanish(name) + label.group()[len(name) :]
    word, second = label["word"], label["second"]
    spanish = HEADINGS.get(word.lower())
    if spanish is None or (second and second.lower() not in NUMBERS):
        return None
    out = spanish + (" " + NUMBERS[second.lower()] if second else "")
    out = out.upper() if word.isupper() else out[:1].upper() + out[1:]
    return out + label.group()[label.end("second" if second else "word") - label.start() :]
