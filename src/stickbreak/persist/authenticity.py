"""Who wrote a checkpoint: an HMAC-SHA256 under a key only this user can read.

A checkpoint's SHA-256 catches damage, not edits: anyone can recompute it. Its HMAC is keyed by
32 random bytes kept in ``~/.config/stickbreak/checkpoint.key`` (``$XDG_CONFIG_HOME``, or the file
named by ``$STICKBREAK_KEY_FILE``), made on first use, readable by its owner only. A checkpoint
whose HMAC does not match under this key was edited, or written by another user or machine, and
is resumed only when the caller says it trusts the file (``resume(..., trust=True)``,
``stickbreak resume DIR --trust``): resuming runs what the file says, including, for the command
line, the output paths it writes to. Where the key cannot be made (no writable home), checkpoints
carry no HMAC and resuming them needs ``trust`` too.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

KEY_ENV = "STICKBREAK_KEY_FILE"
KEY_BYTES = 32


def key_path() -> Path:
    if os.environ.get(KEY_ENV):
        return Path(os.environ[KEY_ENV])
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(config) / "stickbreak" / "checkpoint.key"


def load_key(create: bool) -> bytes | None:
    """This user's key (made when missing and ``create``), or None where it cannot be read or made."""
    path = key_path()
    try:
        return _read(path)
    except FileNotFoundError:
        if not create:
            return None
    except OSError:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # made by another run just now
        return _read(path)
    except OSError:
        return None
    with os.fdopen(fd, "wb") as fh:
        fh.write(secrets.token_bytes(KEY_BYTES))
    return _read(path)


def _read(path: Path) -> bytes | None:
    key = path.read_bytes()
    return key if len(key) == KEY_BYTES else None


def new_mac(key: bytes):
    """A fresh HMAC-SHA256 under ``key``, updated like a hashlib digest."""
    return hmac.new(key, digestmod=hashlib.sha256)


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())
