"""Zip packages (.docx, .odt) and XML read safely: a damaged or encrypted file, a zip bomb, an XML entity
bomb or a DTD is refused in one line naming the file and the problem; nothing a document names (an external
entity, a DTD, a linked file) is ever fetched. Members not rewritten are copied byte for byte."""

from __future__ import annotations

import io
import os
import zipfile

from mtcli.errors import UserError

MAX_UNPACKED = 512 << 20  # bytes of all members unpacked: a document's images, not a bomb's
MAX_RATIO = 200  # a member unpacked this many times larger than packed (and over 1 MB) is a bomb's
MAX_MEMBERS = 20_000
OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # an encrypted Office file (or an old .doc) is an OLE compound file


def open_zip(data: bytes, name: str) -> zipfile.ZipFile:
    if data.startswith(OLE):
        raise UserError(f"{name}: an encrypted document (or a Word 97-2003 one): give an unencrypted .docx/.odt")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, NotImplementedError) as e:  # (a zip version)
        raise UserError(f"{name}: not a readable zip package (damaged or truncated?): {e}") from None
    if len(infos) > MAX_MEMBERS:
        raise UserError(f"{name}: {len(infos):,} members in the package; at most {MAX_MEMBERS:,}")
    if any(i.flag_bits & 1 for i in infos):
        raise UserError(f"{name}: an encrypted package: give an unencrypted document")
    total = sum(i.file_size for i in infos)
    bomb = next((i for i in infos if i.file_size > 1 << 20 and i.file_size > MAX_RATIO * i.compress_size), None)
    if total > MAX_UNPACKED or bomb:
        raise UserError(f"{name}: unpacks to {total:,} bytes ({bomb.filename if bomb else 'all members'}): "
                        f"a zip bomb, or a document over {MAX_UNPACKED >> 20} MB")
    return zf


def read_member(zf: zipfile.ZipFile, member: str, name: str) -> bytes:
    try:
        with zf.open(member) as f:
            data = f.read()  # (zipfile stops at the size the central directory declares: open_zip's bound)
    except KeyError:
        raise UserError(f"{name}: no {member} in the package: not a {_kind(name)} document, or a damaged one") from None
    except Exception as e:  # zipfile, zlib, bz2 and lzma raise many types for a damaged member
        raise UserError(f"{name}: {member}: cannot be unpacked (damaged?): {e}") from None
    if len(data) > MAX_UNPACKED:
        raise UserError(f"{name}: {member} unpacks to over {MAX_UNPACKED >> 20} MB: a zip bomb?")
    return data


def write_zip(zf: zipfile.ZipFile, changed: dict[str, bytes], name: str) -> bytes:
    """The package again, in its order with each member's compression and dates: the members in
    `changed` with their new bytes, every other byte for byte as it came."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as new:
        for info in zf.infolist():
            new.writestr(info, changed[info.filename] if info.filename in changed else read_member(zf, info.filename, name))
    return out.getvalue()


def parse_xml(data: bytes, name: str):
    """An lxml tree, read without resolving entities, loading a DTD or reaching the network, and without
    lxml's huge-tree mode (its limits on depth and text size stand); a DTD is refused outright. (No DTD
    loaded, no network, no huge trees and comments kept are lxml's defaults; entities and CDATA are not.)"""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, strip_cdata=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as e:
        raise UserError(f"{name}: not well-formed XML: {e}") from None
    if root.getroottree().docinfo.doctype:  # ("" without one; any DOCTYPE, internal subset or none, names itself)
        raise UserError(f"{name}: has a DTD (<!DOCTYPE ...>): refused (entities could expand without bound)")
    return root


def write_xml(root) -> bytes:
    from lxml import etree

    info = root.getroottree().docinfo
    return etree.tostring(root, xml_declaration=True, encoding=info.encoding or "UTF-8", standalone=info.standalone)


def _kind(name: str) -> str:
    return os.path.splitext(name)[1][1:].lower() or "Office"  # (a dot in a directory's name is no extension)
