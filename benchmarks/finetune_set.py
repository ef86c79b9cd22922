"""A synthetic domain for docs/finetune.md: the user interface of "Lumo", a made-up photo app, in English and
Spanish, written for mtcli (so in no Tatoeba file and not in the shipped models' training data: `main()`
checks that no sentence of it is in the corpus). Templates x nouns (gender and plural written out) x
containers give ~6,800 pairs; a seeded shuffle gives the user's 5,000 (their first 300: the small set) and
500 others as the held-out domain test. English first; es-en swaps the columns.

    python benchmarks/finetune_set.py     # the counts, and the check against the corpus
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "spa-eng" / "spa.txt"
TRAIN, TEST = 5000, 500


def _nouns(text: str) -> list[list[str]]:
    return [n.strip().split("/") for n in text.split(";")]


# English, English plural, Spanish, Spanish plural, gender
NOUNS = _nouns("""file/files/archivo/archivos/m; folder/folders/carpeta/carpetas/f; photo/photos/foto/fotos/f;
album/albums/álbum/álbumes/m; account/accounts/cuenta/cuentas/f; password/passwords/contraseña/contraseñas/f;
setting/settings/ajuste/ajustes/m; backup/backups/copia de seguridad/copias de seguridad/f; tag/tags/etiqueta/etiquetas/f;
device/devices/dispositivo/dispositivos/m; profile/profiles/perfil/perfiles/m;
notification/notifications/notificación/notificaciones/f; download/downloads/descarga/descargas/f;
comment/comments/comentario/comentarios/m; filter/filters/filtro/filtros/m; template/templates/plantilla/plantillas/f;
report/reports/informe/informes/m; project/projects/proyecto/proyectos/m; page/pages/página/páginas/f;
link/links/enlace/enlaces/m; library/libraries/biblioteca/bibliotecas/f; video/videos/vídeo/vídeos/m;
message/messages/mensaje/mensajes/m; playlist/playlists/lista de reproducción/listas de reproducción/f;
workspace/workspaces/espacio de trabajo/espacios de trabajo/m; image/images/imagen/imágenes/f;
document/documents/documento/documentos/m; contact/contacts/contacto/contactos/m; event/events/evento/eventos/m;
note/notes/nota/notas/f; calendar/calendars/calendario/calendarios/m; invitation/invitations/invitación/invitaciones/f;
subscription/subscriptions/suscripción/suscripciones/f; slideshow/slideshows/presentación/presentaciones/f;
screenshot/screenshots/captura de pantalla/capturas de pantalla/f; theme/themes/tema/temas/m;
user/users/usuario/usuarios/m; group/groups/grupo/grupos/m; layout/layouts/diseño/diseños/m; task/tasks/tarea/tareas/f""")

# where an item goes: English, Spanish, gender
CONTAINERS = [c.strip().split("/") for c in """folder/carpeta/f; album/álbum/m; library/biblioteca/f;
workspace/espacio de trabajo/m; project/proyecto/m; collection/colección/f; gallery/galería/f; group/grupo/m;
shared drive/unidad compartida/f; cloud/nube/f""".split(";")]

# {n}/{npl}: the item; {el} {El} {un} {este} {del} {al} {o} {os} {los}: words that agree with it
SINGLE = [
    ("Delete this {n}?", "¿Eliminar {este} {n}?"),
    ("The {n} was saved.", "{El} {n} se ha guardado."),
    ("Could not open the {n}.", "No se ha podido abrir {el} {n}."),
    ("Select a {n} to continue.", "Selecciona {un} {n} para continuar."),
    ("Your {n} has been updated.", "Tu {n} se ha actualizado."),
    ("Share the {n} with your team.", "Comparte {el} {n} con tu equipo."),
    ("No {npl} found.", "No se han encontrado {npl}."),
    ("Rename the {n}", "Cambiar el nombre {del} {n}"),
    ("Move the {n} to the trash.", "Mueve {el} {n} a la papelera."),
    ("Sync your {npl} across devices.", "Sincroniza tus {npl} entre dispositivos."),
    ("The {n} is too large to upload.", "{El} {n} es demasiado grande para subirl{o}."),
    ("Tap here to restore the {n}.", "Toca aquí para restaurar {el} {n}."),
    ("Lumo could not find your {n}.", "Lumo no ha podido encontrar tu {n}."),
    ("Create a new {n}", "Crear {un} {n} nuev{o}"),
    ("Are you sure you want to delete the {n}?", "¿Seguro que quieres eliminar {el} {n}?"),
    ("The {n} has been deleted.", "{El} {n} se ha eliminado."),
    ("Download the {n}", "Descargar {el} {n}"),
    ("Edit the {n}", "Editar {el} {n}"),
    ("Show all {npl}", "Mostrar tod{os} {los} {npl}"),
    ("Hide the {n}", "Ocultar {el} {n}"),
    ("The {n} is no longer available.", "{El} {n} ya no está disponible."),
    ("You have no {npl} yet.", "Todavía no tienes {npl}."),
    ("Sort {npl} by date", "Ordenar {npl} por fecha"),
    ("Search your {npl}", "Buscar en tus {npl}"),
    ("Your {npl} are being uploaded.", "Se están subiendo tus {npl}."),
    ("This {n} is shared with you.", "{Este} {n} se ha compartido contigo."),
    ("The {n} could not be copied.", "No se ha podido copiar {el} {n}."),
    ("Open the {n} in a new window", "Abrir {el} {n} en una ventana nueva"),
    ("Copy the link to the {n}", "Copiar el enlace {al} {n}"),
    ("Print the {n}", "Imprimir {el} {n}"),
    ("The {n} is locked.", "{El} {n} está bloquead{o}."),
    ("Pin the {n} to the top", "Fijar {el} {n} arriba"),
    ("Duplicate the {n}", "Duplicar {el} {n}"),
    ("Export the {n} as a PDF", "Exportar {el} {n} como PDF"),
    ("Your {n} is ready.", "Tu {n} está list{o}."),
    ("Archive old {npl}", "Archivar {npl} antigu{os}"),
    ("Loading the {n}...", "Cargando {el} {n}..."),
    ("Drag a {n} here", "Arrastra {un} {n} aquí"),
    ("Who can see this {n}?", "¿Quién puede ver {este} {n}?"),
    ("Add a description to the {n}", "Añade una descripción {al} {n}"),
]
COUNTED = [  # {count}: 2 to 12
    ("{count} {npl} selected", "{count} {npl} seleccionad{os}"),
    ("Delete {count} {npl}?", "¿Eliminar {count} {npl}?"),
    ("{count} new {npl}", "{count} {npl} nuev{os}"),
]
# {c}: the container; {a_c} {de_c} {en_c} {este_c} {Este_c}: words that agree with it
PLACED = [
    ("Move the {n} to the {c}.", "Mueve {el} {n} {a_c} {c}."),
    ("Add the {n} to the {c}", "Añadir {el} {n} {a_c} {c}"),
    ("Remove the {n} from the {c}", "Quitar {el} {n} {de_c} {c}"),
    ("The {n} was copied to the {c}.", "{El} {n} se ha copiado {a_c} {c}."),
    ("Could not move the {n} to the {c}.", "No se ha podido mover {el} {n} {a_c} {c}."),
    ("All {npl} in this {c} will be deleted.", "Se eliminarán tod{os} {los} {npl} de {este_c} {c}."),
    ("Show the {npl} in the {c}", "Mostrar {los} {npl} {de_c} {c}"),
    ("Upload {npl} to the {c}", "Subir {npl} {a_c} {c}"),
    ("Search for {npl} in the {c}", "Buscar {npl} {en_c} {c}"),
    ("This {c} has no {npl}.", "{Este_c} {c} no tiene {npl}."),
]


def agreeing(es: str, es_pl: str, fem: bool) -> dict[str, str]:
    """The Spanish words of the templates that agree with a noun of this gender."""
    return {"n": es, "npl": es_pl, "el": "la" if fem else "el", "El": "La" if fem else "El",
            "un": "una" if fem else "un", "este": "esta" if fem else "este", "Este": "Esta" if fem else "Este",
            "del": "de la" if fem else "del", "al": "a la" if fem else "al", "o": "a" if fem else "o",
            "os": "as" if fem else "os", "los": "las" if fem else "los"}


def _capital(s: str) -> str:
    return s[0].upper() + s[1:]


def pairs() -> list[tuple[str, str]]:
    """Every pair of the domain, in a fixed order."""
    out = []
    for en, en_pl, es, es_pl, g in NOUNS:
        words = agreeing(es, es_pl, g == "f")
        out += [(_capital(e.format(n=en, npl=en_pl)), s.format(**words)) for e, s in SINGLE]
        out += [(_capital(e.format(npl=en_pl, count=c)), s.format(**words, count=c))
                for e, s in COUNTED for c in range(2, 13)]
        for c_en, c_es, c_g in CONTAINERS:
            if c_en == en:
                continue
            fem = c_g == "f"
            place = {"c": c_es, "a_c": "a la" if fem else "al", "de_c": "de la" if fem else "del",
                     "en_c": "en la" if fem else "en el", "este_c": "esta" if fem else "este",
                     "Este_c": "Esta" if fem else "Este"}
            out += [(_capital(e.format(n=en, npl=en_pl, c=c_en)), s.format(**words, **place)) for e, s in PLACED]
    return out


def split(direction: str = "en-es") -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The user's 5,000 pairs and the 500 held-out test pairs, in the direction's order."""
    every = pairs()
    random.Random(0).shuffle(every)
    if direction == "es-en":
        every = [(b, a) for a, b in every]
    return every[:TRAIN], every[TRAIN:TRAIN + TEST]


def main() -> None:
    every = pairs()
    assert len(set(every)) == len(every), "a pair twice"
    print(f"{len(every):,} pairs: {TRAIN:,} to fine-tune on, {TEST} held out as the domain test")
    if CORPUS.is_file():
        corpus = {s for line in CORPUS.read_text(encoding="utf-8").splitlines() for s in line.split("\t")[:2]}
        found = [s for pair in every for s in pair if s in corpus]
        print(f"sentences also in {CORPUS}: {len(found)} {found[:5]}")
    if "--show" in sys.argv:
        for en, es in split()[0][:20]:
            print(f"{en}\t{es}")


if __name__ == "__main__":
    main()
