"""A synthetic domain for docs/finetune.md: the user interface of "Lumo", a made-up photo app, in English and
Spanish (written for mtcli). Templates x nouns (gender and plural written out) give ~500 pairs; a seeded
sample of 300 is the user's pairs (benchmarks/sets/finetune-ui.tsv), another 100 the domain test
(finetune-ui-test.tsv). Both are English TAB Spanish: for es-en swap the columns (--swap).

    python benchmarks/finetune_set.py            # writes the two files
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

SETS = Path(__file__).resolve().parent / "sets"

# English, English plural, Spanish, Spanish plural, feminine
NOUNS = [n.strip().split("/") for n in """file/files/archivo/archivos/m; folder/folders/carpeta/carpetas/f;
photo/photos/foto/fotos/f; album/albums/álbum/álbumes/m; account/accounts/cuenta/cuentas/f;
password/passwords/contraseña/contraseñas/f; setting/settings/ajuste/ajustes/m;
backup/backups/copia de seguridad/copias de seguridad/f; tag/tags/etiqueta/etiquetas/f;
device/devices/dispositivo/dispositivos/m; profile/profiles/perfil/perfiles/m;
notification/notifications/notificación/notificaciones/f; download/downloads/descarga/descargas/f;
comment/comments/comentario/comentarios/m; filter/filters/filtro/filtros/m; template/templates/plantilla/plantillas/f;
report/reports/informe/informes/m; project/projects/proyecto/proyectos/m; page/pages/página/páginas/f;
link/links/enlace/enlaces/m; library/libraries/biblioteca/bibliotecas/f; video/videos/vídeo/vídeos/m;
message/messages/mensaje/mensajes/m; playlist/playlists/lista de reproducción/listas de reproducción/f;
workspace/workspaces/espacio de trabajo/espacios de trabajo/m""".split(";")]


def spanish(template: str, es: str, es_pl: str, fem: bool, count: int) -> str:
    words = {"el": "la" if fem else "el", "El": "La" if fem else "El", "un": "una" if fem else "un",
             "este": "esta" if fem else "este", "del": "de la" if fem else "del", "o": "a" if fem else "o",
             "os": "as" if fem else "os", "n": es, "npl": es_pl, "count": count}
    return template.format(**words)


TEMPLATES = [
    ("Delete this {n}?", "¿Eliminar {este} {n}?"),
    ("The {n} was saved.", "{El} {n} se ha guardado."),
    ("Could not open the {n}.", "No se ha podido abrir {el} {n}."),
    ("Select a {n} to continue.", "Selecciona {un} {n} para continuar."),
    ("Your {n} has been updated.", "Tu {n} se ha actualizado."),
    ("Share the {n} with your team.", "Comparte {el} {n} con tu equipo."),
    ("No {npl} found.", "No se han encontrado {npl}."),
    ("Rename the {n}", "Cambiar el nombre {del} {n}"),
    ("Move the {n} to the trash.", "Mueve {el} {n} a la papelera."),
    ("{count} {npl} selected", "{count} {npl} seleccionad{os}"),
    ("Sync your {npl} across devices.", "Sincroniza tus {npl} entre dispositivos."),
    ("The {n} is too large to upload.", "{El} {n} es demasiado grande para subirl{o}."),
    ("Tap here to restore the {n}.", "Toca aquí para restaurar {el} {n}."),
    ("Lumo could not find your {n}.", "Lumo no ha podido encontrar tu {n}."),
]


def pairs() -> list[tuple[str, str]]:
    out = []
    for en_t, es_t in TEMPLATES:
        counts = range(2, 10) if "{count}" in en_t else [0]
        for en, en_pl, es, es_pl, g in NOUNS:
            for c in counts:
                english = en_t.format(n=en, npl=en_pl, count=c)
                out.append((english[0].upper() + english[1:], spanish(es_t, es, es_pl, g == "f", c)))
    return out


def main() -> None:
    every = pairs()
    random.Random(0).shuffle(every)
    swap = "--swap" in sys.argv
    for name, part in (("finetune-ui.tsv", every[:300]), ("finetune-ui-test.tsv", every[300:400])):
        rows = [(b, a) if swap else (a, b) for a, b in part]
        (SETS / name.replace(".tsv", "-es-en.tsv" if swap else ".tsv")).write_text(
            "".join(f"{a}\t{b}\n" for a, b in rows), encoding="utf-8")
    print(f"{len(every)} pairs; 300 + 100 written to {SETS}")


if __name__ == "__main__":
    main()
