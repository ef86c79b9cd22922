"""What every kernel shares: the Numba options, a vectorisable exp, and the row chunks whose partial
column sums make the parallel `dg += ...` deterministic.

Numba itself loads only when a kernel is first needed (`load`): importing it takes ~1 s of CPU, more
than a process that decodes a few sentences with the NumPy references spends on all of its work. So
`@kernel(...)` leaves a module a stand-in (`_Pending`) for each kernel until then, and `load` makes
each one a Numba dispatcher in its module, where the kernels that call it find it when they compile.
"""

import math
import sys
import threading
import time

import numpy as np

# Options of every kernel: compiled code cached on disk; NumPy's error model (x / 0 gives inf or nan
# instead of raising), which also spares loops with a division a zero check that blocks SIMD.
JIT = {"cache": True, "error_model": "numpy", "nogil": True}

# Fast-math for loops with floating-point reductions: reassociation lets LLVM vectorise sums and
# dot products. Deliberately without 'nnan'/'ninf': no kernel relies on inf, and a NaN must still
# come out as NaN (e.g. a diverging loss).
FAST = {"reassoc", "contract", "nsz", "arcp"}

# Forward kernels whose work (elements, or multiply-adds) is below this run serially (decoding
# steps): starting a parallel region costs ~10 us, and ~100 us when another process is busy.
PARALLEL_MIN_WORK = 1 << 17

# Rows per chunk for column sums: partial sums per chunk run in parallel, then are added in chunk
# order, so the result does not depend on the number of threads.
ROWS_PER_CHUNK = 64

prange = range  # numba.prange in every kernel module once Numba loads

_pending: list = []  # (function, options) of every kernel, in the order they were declared
_loaded = False
_lock = threading.Lock()  # decoding threads may reach their first kernel together
# A kernel compiles once per installed version (~10 s for a translation's, later runs load them from the cache
# in NUMBA_CACHE_DIR): said once on a terminal, not to a log or a pipe
COMPILING = "mtcli: compiling the kernels, once after an install (later runs load them)…\n"
_told = False
_loading = 0.0  # seconds `load` took (Numba's import)
_holding = None  # Numba's TimingListener of its compiler lock (a kernel compiled or loaded from the cache)


class _Pending:
    """A kernel before Numba loads: a call (or an attribute such as py_func) loads every kernel and
    goes on to this one's dispatcher. Only a caller that imported the kernel by name before the load
    keeps this stand-in; the kernel's module (and the package) hold the dispatcher itself after it."""

    __slots__ = ("py_func",)

    def __init__(self, func):
        self.py_func = func

    def _dispatcher(self):
        load()
        return vars(sys.modules[self.py_func.__module__])[self.py_func.__name__]

    def __call__(self, *args, **kwargs):
        return self._dispatcher()(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._dispatcher(), name)


def kernel(**options):
    """@njit(**JIT, **options) when Numba loads (`load`); a `_Pending` stand-in until then."""

    def declare(func):
        if _loaded:
            import numba

            return numba.njit(**JIT, **options)(func)
        _pending.append((func, options))
        return _Pending(func)

    return declare


def load() -> None:
    """Numba imported and every declared kernel made a dispatcher in its own module (each compiles, or
    loads from the cache, at its first call). Kernel modules declared after this are bound at once."""
    global _loaded, _loading, _holding
    with _lock:
        if _loaded:
            return
        started = time.perf_counter()
        import numba
        from numba.core import config, event

        config.reload_config()  # NUMBA_CACHE_DIR as mtcli.kernels set it, even if Numba was imported before
        event.register("numba:compile", _notice(event))
        event.register("numba:compiler_lock", _releasing(event))
        _holding = event.TimingListener()
        event.register("numba:compiler_lock", _holding)
        _numba_extensions(numba)
        globals()["prange"] = numba.prange
        _bind(numba, _pending)
        _loaded, _loading = True, time.perf_counter() - started


def setup_seconds() -> float:
    """Seconds this process has spent loading Numba and compiling its kernels (or loading them from the cache):
    one-time work, charged to no line's time budget (text/budget.py: a first run on a loaded machine had left
    lines untranslated, attack 2026-12-02d's P)."""
    return _loading + (_holding.duration if _holding is not None and _holding.done else 0.0)


def loaded() -> bool:
    return _loaded


_compiler_pages: list[tuple[int, int]] | None = None  # llvmlite's mappings that may be dropped, found once


def release_compiler() -> None:
    """llvmlite's library out of this process's resident memory once kernels are loaded: loading them (even from
    the cache) runs LLVM, whose code and read-only data then stay resident (~68 MB of the shipped model's ~400 MB
    translating a file) though a decode never runs them again. Only mappings that are not writable and hold no
    page of their own are dropped: what is read again later (a kernel loaded after this) comes back from the file.
    Linux; elsewhere nothing changes."""
    global _compiler_pages
    if not _loaded or not sys.platform.startswith("linux"):
        return
    if _compiler_pages is None:
        _compiler_pages = _file_pages("libllvmlite")
    drop_pages(_compiler_pages)


def drop_pages(ranges: list[tuple[int, int]]) -> None:
    """Linux's MADV_DONTNEED over each (start, end) address range, whole pages: their resident memory given back
    (a file's pages are read from it again, anonymous ones come back as zeros)."""
    import ctypes
    import mmap

    madvise = ctypes.CDLL(None).madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    for start, end in ranges:
        madvise(start, end - start, mmap.MADV_DONTNEED)


def _file_pages(library: str) -> list[tuple[int, int]]:
    """Address ranges of `library`'s mappings that are read-only and hold no private copy of a page (dropped, they
    are read again from the file as they were), from /proc/self/smaps."""
    found, mapping = [], None
    try:
        with open("/proc/self/smaps") as smaps:
            for line in smaps:
                field = line.split()
                if not field[0].endswith(":"):  # a mapping's first line: range, permissions, offset, device, inode, path
                    mapping = field if len(field) > 5 and library in field[5] and "w" not in field[1] else None
                elif mapping is not None and field[0] == "Anonymous:" and field[1] == "0":
                    start, end = (int(a, 16) for a in mapping[0].split("-"))
                    found.append((start, end))
    except OSError:  # no /proc
        return []
    return found


def _notice(event):
    """A listener of Numba's compile events that writes COMPILING at the first one, on a terminal."""

    class Notice(event.Listener):
        def on_start(self, _):
            global _told
            if not _told and sys.stderr is not None and sys.stderr.isatty():
                _told = True
                sys.stderr.write(COMPILING)
                sys.stderr.flush()

        def on_end(self, _):
            pass

    return Notice()


def _releasing(event):
    """A listener that calls release_compiler each time a thread lets go of Numba's compiler lock (a kernel loaded
    from the cache or compiled; not inside a nested hold): LLVM's pages are out of memory at once, not at the end
    of the first batch, whose decoding had been the peak of a file's translation (2,000 lines at beam 4: LLVM's 67
    MB of the 371 MB resident at the peak)."""
    from numba.core.compiler_lock import global_compiler_lock

    class Releasing(event.Listener):
        def on_start(self, _):
            pass

        def on_end(self, _):
            if not global_compiler_lock.is_locked():  # (held by this thread: a nested compile goes on)
                release_compiler()

    return Releasing()


def _bind(numba, kernels) -> None:
    for func, options in kernels:
        module = vars(sys.modules[func.__module__])
        module[func.__name__] = numba.njit(**JIT, **options)(func)
        if module.get("prange") is range:
            module["prange"] = numba.prange


def _numba_extensions(numba) -> None:
    """What only exists inside Numba: the bit cast under exp_nonpos, and exp_nonpos itself."""
    from numba import types
    from numba.extending import intrinsic, overload

    @intrinsic
    def bits_as_float(typingctx, bits):
        """Reinterprets an int64 (int32) as a float64 (float32), like a C union."""
        if bits not in (types.int64, types.int32):
            return None
        float_type = types.float64 if bits == types.int64 else types.float32

        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], context.get_value_type(float_type))

        return float_type(bits), codegen

    @overload(exp_nonpos)
    def exp_nonpos_overload(x):
        if x == types.float32:
            return lambda x: _exp_nonpos_f32(x)
        if isinstance(x, types.Float):
            return lambda x: _exp_nonpos_f64(x)
        return None

    globals()["_bits_as_float"] = bits_as_float

_bits_as_float = None  # Numba's intrinsic, made by load()
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 split in two (Cody-Waite): n * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_EXP_TAYLOR = tuple(1.0 / math.factorial(k) for k in range(13, -1, -1))  # 1/13!, ..., 1/1!, 1/0!
_LN2_HI_F32 = np.float32(0.693359375)
_LN2_LO_F32 = np.float32(-2.12194440e-4)
_EXP_F32 = tuple(np.float32(c) for c in (  # Cephes expf: exp(r) ~ 1 + r + r^2 * poly(r)
    1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
    5.0000001201e-1))


# Both set fastmath explicitly (without 'reassoc') so that it is not inherited from a fast-math
# caller: reassociation would fold the two halves of ln 2 back together and lose precision.
@kernel(fastmath={"contract"})
def _exp_nonpos_f64(x):
    n = math.floor(x * _LOG2E + 0.5)
    r = (x - n * _LN2_HI) - n * _LN2_LO  # |r| <= ln(2) / 2
    p = 0.0
    for c in _EXP_TAYLOR:  # truncation error < 2e-17 relative
        p = p * r + c
    two_n = _bits_as_float((np.int64(max(-1022.0, n)) + 1023) << 52)  # max(-1022, NaN) = -1022
    return 0.0 if x <= -708.0 else p * two_n  # NaN in, NaN out


@kernel(fastmath={"contract"})
def _exp_nonpos_f32(x):
    n = np.floor(x * np.float32(_LOG2E) + np.float32(0.5))
    r = (x - n * _LN2_HI_F32) - n * _LN2_LO_F32
    p = np.float32(0.0)
    for c in _EXP_F32:
        p = p * r + c
    p = p * r * r + r + np.float32(1.0)
    two_n = _bits_as_float(np.int32((np.int32(max(np.float32(-126.0), n)) + 127) << 23))
    return np.float32(0.0) if x <= np.float32(-87.0) else p * two_n


def exp_nonpos(x):
    """exp(x) for x <= 0, in x's precision to ~1 ulp, flushed to 0 where exp(x) would be denormal;
    NaN stays NaN.
    Unlike math.exp it is no library call, so loops around it vectorise (several times faster).
    Callable from Numba code only (float32 or float64 argument)."""
    raise NotImplementedError("exp_nonpos is for Numba-compiled code")


@kernel()
def chunk_rows(chunk, n_rows):
    """The rows of chunk number `chunk` (ROWS_PER_CHUNK rows each, the last one shorter)."""
    return range(chunk * ROWS_PER_CHUNK, min(n_rows, (chunk + 1) * ROWS_PER_CHUNK))


@kernel()
def add_chunk_sums(dst, part):
    """dst (C,) += sum over chunks of part (n_chunks, C), in chunk order."""
    for c in range(part.shape[0]):
        for k in range(dst.shape[0]):
            dst[k] += part[c, k]
