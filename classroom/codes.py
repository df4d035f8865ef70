"""Class codes, teacher keys and student ids.

A class code is read aloud and typed on a phone: 5 characters from an alphabet without look-alikes (no 0/O,
1/I/L, 2/Z, 5/S, 8/B, 6/G, U/V), 21^5 = 4.1 million codes. A typed code is upper-cased and its spaces and
dashes dropped before it is looked up. The teacher key is a 144-bit random token; the database keeps only its
SHA-256 (the token is random, so a plain hash suffices) and a given key is compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

ALPHABET = "ACDEFHJKMNPQRTWXY3479"  # 21 letters and digits, none mistaken for another
CODE_LENGTH = 5
MIN_CODE, MAX_CODE = 4, 6  # a typed code outside these lengths is refused unread
_CODE_RE = re.compile(f"[{ALPHABET}]{{{MIN_CODE},{MAX_CODE}}}")
MEMBER_ID_RE = re.compile(r"[A-Za-z0-9_-]{16}")
TEACHER_KEY_RE = re.compile(r"[A-Za-z0-9_-]{24}")


def new_code(length: int = CODE_LENGTH) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def normalize_code(raw: object) -> str | None:
    """A typed or linked code as stored ('ab c-d e' -> 'ABCDE'), or None when it cannot be one."""
    if not isinstance(raw, str) or len(raw) > 40:
        return None
    code = re.sub(r"[\s\-·.]", "", raw).upper()
    return code if _CODE_RE.fullmatch(code) else None


def new_teacher_key() -> str:
    return secrets.token_urlsafe(18)  # 24 characters


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def key_matches(given: object, stored_hash: str) -> bool:
    """Whether `given` is the teacher key whose hash is stored; constant time in the hash's characters."""
    if not isinstance(given, str) or not TEACHER_KEY_RE.fullmatch(given):
        return False
    return hmac.compare_digest(key_hash(given), stored_hash)


def new_member_id() -> str:
    return secrets.token_urlsafe(12)  # 16 characters


def valid_member_id(raw: object) -> bool:
    return isinstance(raw, str) and MEMBER_ID_RE.fullmatch(raw) is not None
