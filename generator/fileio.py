"""The safe file layer: every file genreport reads from its user, and every file it writes, goes through here.

Reading (:func:`read_regular`): regular files only (a FIFO, a device or a socket is refused before a byte is
read, and opening never blocks), at most ``limit`` bytes (a file that grows while it is read is still cut off).
:func:`read_private` reads genreport's own files (its cache) the same way, and refuses a symbolic link.

Writing (:func:`write_file`, :func:`write_chunks`): a temporary file beside the destination, renamed over it,
so a reader sees the old file or the new one and never half of one; the temporary file is removed on every
failure (a full disk, Ctrl-C); a symbolic link at the destination is never written through; an existing file
is replaced only when the caller says so (``overwrite``). A ``private`` file (the cache's) is readable by this
user only, and so are the folders made for it (:func:`private_folder`).

Locking (:func:`folder_lock`): one writer per output folder at a time; a second waits, bounded, then fails
with a message that says so.

Recording (:func:`recording`): while active, every file read through :func:`read_regular` and every file a
lookup found missing (:func:`looked_at`) is noted with its hash, so a cache can tell later whether any of
them changed or appeared.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import hashlib
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from genreport.errors import BuildError

SPEC_LIMIT = 1_000_000  # bytes: specs are a few kB
LOCK_TIMEOUT = 120.0  # seconds a build waits for another build writing the same folder


class ReadError(Exception):
    """A file that is not read: ``reason`` is one of missing, folder, special, link, too_big, os."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


class WriteError(BuildError):
    """A file or folder that is not written; the message says why and what to do (exit status 2)."""


# ----------------------------------------------------------------------------------------------- reading

def read_regular(path: str | os.PathLike, limit: int = SPEC_LIMIT) -> bytes:
    """The bytes of the regular file at ``path`` (symbolic links followed), at most ``limit`` of them.

    Raises :class:`ReadError` for a missing file, a folder, anything but a regular file (checked before
    opening and again on the open file, which is opened non-blocking so a FIFO swapped in between cannot
    hang), a file over ``limit`` bytes, and any other OS error.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ReadError("missing", "file not found") from None
    except (OSError, ValueError) as exc:
        raise ReadError("os", f"cannot read the file: {_reason(exc)}") from None
    _check_kind(info, limit)
    data = _read_open(path, _READ_FLAGS, limit)
    _note(path, hashlib.sha256(data).hexdigest())
    return data


def read_private(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the regular file at ``path``, one genreport wrote for itself (a cache entry), at most ``limit``.

    As :func:`read_regular`, but a symbolic link at ``path`` is refused, never followed (checked before opening
    and by the open itself), and the read is not recorded (a cache is not an input). A file of this user's that
    others may read (an earlier genreport wrote it so) is made private to this user.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise ReadError("missing", "file not found") from None
    except (OSError, ValueError) as exc:
        raise ReadError("os", f"cannot read the file: {_reason(exc)}") from None
    if stat.S_ISLNK(info.st_mode):
        raise ReadError("link", "is a symbolic link")
    _check_kind(info, limit)
    return _read_open(path, _READ_FLAGS | getattr(os, "O_NOFOLLOW", 0), limit, private=True)


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def _read_open(path, flags: int, limit: int, private: bool = False) -> bytes:
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise ReadError("missing", "file not found") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a link swapped in after the check
            raise ReadError("link", "is a symbolic link") from None
        raise ReadError("os", f"cannot read the file: {_reason(exc)}") from None
    try:
        info = os.fstat(fd)
        _check_kind(info, limit)  # the file opened is the file checked
        if private and info.st_mode & 0o077 and _mine(info):
            os.fchmod(fd, stat.S_IMODE(info.st_mode) & 0o700)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise ReadError("os", f"cannot read the file: {_reason(exc)}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise ReadError("too_big", f"file is over {limit:,} bytes")
    return b"".join(chunks)


def _check_kind(info: os.stat_result, limit: int) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise ReadError("folder", "is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise ReadError("special", "is not a regular file (a device, pipe or socket)")
    if info.st_size > limit:
        raise ReadError("too_big", f"file is over {limit:,} bytes")


def file_hash(path: str | os.PathLike, limit: int = SPEC_LIMIT) -> str | None:
    """SHA-256 of a file read as :func:`read_regular` reads it, or None when it would not be read."""
    try:
        return hashlib.sha256(read_regular(path, limit)).hexdigest()
    except ReadError:
        return None


# ----------------------------------------------------------------------------------------------- recording

_RECORD: contextvars.ContextVar[dict[str, str | None] | None] = contextvars.ContextVar("genreport_read_log",
                                                                                        default=None)


@contextlib.contextmanager
def recording() -> Iterator[dict[str, str | None]]:
    """Note every file read (absolute path -> SHA-256) and every file looked for but missing (-> None)."""
    log: dict[str, str | None] = {}
    token = _RECORD.set(log)
    try:
        yield log
    finally:
        _RECORD.reset(token)


def looked_at(path: str | os.PathLike) -> None:
    """A lookup considered ``path`` and found no file there: had it existed, it would have been used."""
    log = _RECORD.get()
    if log is not None:
        log.setdefault(os.path.abspath(path), None)


def _note(path, digest: str) -> None:
    log = _RECORD.get()
    if log is not None:
        log[os.path.abspath(path)] = digest


# ----------------------------------------------------------------------------------------------- writing

def describe(exc: OSError) -> str:
    """What went wrong with a write, and what to do, without guessing a cause the error does not state."""
    code = getattr(exc, "errno", None)
    text = _reason(exc)
    if code in (errno.ENOSPC, errno.EDQUOT):
        return f"{text}; free some space and build again (the previous files are unchanged)"
    if code in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{text}; check that the folder is writable"
    return text


def folder_blocker(folder: str | os.PathLike) -> tuple[Path, str] | None:
    """What keeps ``folder`` from being a folder that can be made: (the path, "is a file, not a folder" or "is a
    symbolic link to X, which does not exist"), for the first of it or its parents that is there and is no folder;
    None where none is.  A link to a folder is the user's choice and is followed; a dangling one is not followed to
    make folders where it points."""
    path = Path(folder)  # as the user wrote it, for the message
    for p in [*reversed(path.parents), path]:
        if not os.path.lexists(p) or p.is_dir():
            continue
        if p.is_symlink():
            return p, f"is a symbolic link to {os.readlink(p)}, which does not exist"
        return p, "is a file, not a folder"
    return None


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc)


def write_file(path: str | os.PathLike, data: bytes, overwrite: bool = True, private: bool = False) -> Path:
    """Write ``data`` to ``path`` atomically; see :func:`write_chunks`."""
    return write_chunks(path, [data], overwrite, private)


def write_chunks(path: str | os.PathLike, chunks: Iterable[bytes], overwrite: bool = True,
                 private: bool = False) -> Path:
    """Write ``chunks`` to ``path`` atomically: a temporary file beside it, then one rename.

    Raises :class:`WriteError` when ``path`` is a symbolic link or a folder (never written through), when it
    exists and ``overwrite`` is false (checked again at the rename, so a file that appears meanwhile is kept),
    and for any OS error (the temporary file is removed on every failure, an interrupt included).

    ``private`` (genreport's own files: its cache): the file is readable and writable by this user only, the
    folders made for it are this user's only (0700), and a symbolic link or a special file at ``path`` is
    replaced (the rename replaces the name itself; what a link points to is never opened).
    """
    path = Path(path)
    if not private:
        _refuse_link_or_folder(path)
    elif os.path.isdir(path) and not os.path.islink(path):
        raise WriteError(f"{path} is a folder; name a file")
    if not overwrite and os.path.lexists(path):
        raise WriteError(f"{path} exists; pass --force to replace it")
    try:
        if private:
            _make_private_folders(path.parent)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        # mkstemp: a name no one can guess, made with O_EXCL and mode 0600, so nothing planted is written through
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {describe(exc)}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
        if not private:
            os.chmod(tmp, 0o666 & ~_umask())
        if overwrite:
            os.replace(tmp, path)
        else:
            _link_new(tmp, path)
    except OSError as exc:
        _unlink(tmp)
        raise WriteError(f"cannot write {path}: {describe(exc)}") from None
    except BaseException:
        _unlink(tmp)
        raise
    return path


def private_folder(root: str | os.PathLike, *names: str) -> Path:
    """``root/names...`` as folders that only this user can open: genreport's cache.

    A missing folder is made with mode 0700 (``root``'s missing parents too). Each of ``names`` must be a folder
    itself, never a symbolic link (``root`` may be one: where the cache lives is the user's choice), and one of
    this user's that others may open (an earlier genreport made it so) is made private. Raises
    :class:`WriteError` where one of them is a link or not a folder, or cannot be made.
    """
    folder = Path(root)
    try:
        _make_private_folders(folder)
        for name in names:
            folder = folder / name
            try:
                os.mkdir(folder, 0o700)
                continue
            except FileExistsError:
                pass
            info = os.lstat(folder)
            if not stat.S_ISDIR(info.st_mode):
                kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a folder"
                raise WriteError(f"{folder} is {kind}; remove it (genreport keeps its cache there)")
            if info.st_mode & 0o077 and _mine(info):
                os.chmod(folder, stat.S_IMODE(info.st_mode) & 0o700)
    except OSError as exc:
        raise WriteError(f"cannot make {folder}: {describe(exc)}") from None
    return folder


def sweep_temporaries(folder: str | os.PathLike, older_than: float = 3600.0) -> None:
    """Remove the temporary files (``*.tmp``) that processes killed while writing left in ``folder``, those older
    than ``older_than`` seconds (one being written now is younger); a link is removed as a link."""
    now = time.time()
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    if now - entry.stat(follow_symlinks=False).st_mtime > older_than:
                        os.unlink(entry.path)


def _mine(info: os.stat_result) -> bool:
    return hasattr(os, "getuid") and info.st_uid == os.getuid()


def _make_private_folders(folder: Path) -> None:
    """Make ``folder`` and its missing parents with mode 0700 (``Path.mkdir`` gives parents the default mode)."""
    missing = []
    while not os.path.isdir(folder):
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for part in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(part, 0o700)


def _link_new(tmp: str, path: Path) -> None:
    """Move ``tmp`` to ``path`` only if nothing is there yet (hard link, then unlink)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise WriteError(f"{path} exists; pass --force to replace it") from None
    except OSError:  # a file system without hard links: check, then rename
        if os.path.lexists(path):
            raise WriteError(f"{path} exists; pass --force to replace it") from None
        os.replace(tmp, path)
        return
    _unlink(tmp)


def _refuse_link_or_folder(path: Path) -> None:
    try:
        path.is_symlink()
        path.is_dir()
    except OSError as exc:  # a name too long for the file system, say
        raise WriteError(f"cannot write {path}: {describe(exc)}") from None
    if path.is_symlink():
        raise WriteError(f"{path} is a symbolic link; genreport does not write through links "
                         "(remove the link, or name another file)")
    if path.is_dir():
        raise WriteError(f"{path} is a folder; name a file")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _unlink(path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def remove_tree(path: str | os.PathLike) -> None:
    """Remove a folder, a file or a symbolic link at ``path`` (a link itself, never what it points to)."""
    path = Path(path)
    if path.is_symlink() or (os.path.lexists(path) and not path.is_dir()):
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


# ----------------------------------------------------------------------------------------------- locking

def private_dir(out_root: Path) -> Path:
    """``OUT/.stamps``: genreport's own files in an output root (git-ignored); never a symbolic link."""
    folder = Path(out_root) / ".stamps"
    if folder.is_symlink():
        raise WriteError(f"{folder} is a symbolic link; remove it (genreport keeps its stamps and locks there)")
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not os.path.lexists(ignore):
        with contextlib.suppress(WriteError):
            write_file(ignore, b"*\n", overwrite=False)
    return folder


@contextlib.contextmanager
def folder_lock(out_root: Path, name: str, timeout: float | None = None) -> Iterator[None]:
    """Hold the lock of ``out_root/name`` (a lock file in ``OUT/.stamps``); wait at most ``timeout`` seconds.

    Another build of the same folder waits for this one; past the timeout it fails with a clear message.
    The lock is released by the operating system if the process dies, so a killed build never blocks the next.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no advisory locks, writes are still atomic
        yield
        return
    if timeout is None:
        timeout = float(os.environ.get("GENREPORT_LOCK_TIMEOUT", LOCK_TIMEOUT))
    dest = Path(out_root) / name
    try:
        lock = private_dir(Path(out_root)) / f"lock-{name}"
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
                     0o644)
    except OSError as exc:
        raise WriteError(f"cannot write {dest}: {describe(exc)}") from None
    try:
        deadline = time.monotonic() + timeout
        delay = 0.01
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise WriteError(f"another genreport build is writing {dest} and did not finish within "
                                     f"{timeout:g} s; nothing was written (try again when it has finished)") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.2)
        yield
    finally:
        os.close(fd)  # closing releases the lock
