#!/usr/bin/env python3
"""The test programs' clang, with a cache of the IR it emits.

tests/meson.build points every suite's `clang` at a copy of this script
(configured with the real clang and the cache folder), so each test program
compiled to IR (`-S -emit-llvm ... -o OUT`) is compiled once per source,
flags and clang, whichever build directory asks: the ASan and TSan builds
take the LLVM 19 build's IR instead of compiling it again.  Anything else
(native compiles, preprocessing, a source in the temporary folder, such as
the random test's generated programs) runs the real clang as is.

An entry is found by a key over what decides the output besides the files
read: the clang binary (path, size, modification time), the arguments but
the output path, the working directory when debug info (which names it) is
on, the host CPU with -march=native, the environment variables clang reads
include paths from.  It holds the IR and the files clang read for it (its
-MD dependency list, system headers included), each with its size, time
and SHA-256: an entry is used only when every one of them still has the
same contents (size and time equal, or else the same hash), as ccache's
direct mode does.  Entries are written to a temporary name and renamed, so
builds running at once never read half an entry.

Usage: clang-ir-cache.py CLANG CACHE_DIR [clang args...] (tests/meson.build
configures a launcher, tests/clang-ir-cache, that supplies the first two).
"""
# Only what a hit needs is imported up front: a hit costs about a third
# of a small compile, mostly the interpreter's start (json, tempfile and
# subprocess would double it).
import hashlib
import os
import sys

ENV_KEYS = ("CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",
            "SOURCE_DATE_EPOCH")


def run_clang(clang, args):
    os.execv(clang, [clang] + args)


def output_path(args):
    """The -o operand of an IR compile, or None when this is not one."""
    if "-emit-llvm" not in args or "-S" not in args:
        return None
    for k, a in enumerate(args):
        if a in ("-M", "-MM", "-MD", "-MMD", "-E", "-"):
            return None
    if args.count("-o") != 1:
        return None
    k = args.index("-o")
    return args[k + 1] if k + 1 < len(args) else None


SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".ll", ".bc")


def in_temporary_folder(args):
    """Whether an input lies in the temporary folder (the random test's
    generated programs): its path, part of the key, is never seen again."""
    tmp = os.path.realpath(os.environ.get("TMPDIR") or "/tmp") + os.sep
    return any(a.endswith(SOURCE_SUFFIXES) and
               os.path.realpath(a).startswith(tmp) for a in args)


def cpu_fingerprint():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            return [line for line in f if line.startswith(("model name", "flags"))][:2]
    except OSError:
        return []


def key_of(clang, args):
    real = os.path.realpath(clang)
    st = os.stat(real)
    out = args.index("-o")
    kept = args[:out] + args[out + 2:]
    parts = {"clang": [real, st.st_size, st.st_mtime_ns], "args": kept,
             "env": [os.environ.get(k) for k in ENV_KEYS]}
    if any(a.startswith("-g") for a in kept):
        parts["cwd"] = os.getcwd()  # DW_AT_comp_dir
    if any("native" in a for a in kept):
        parts["cpu"] = cpu_fingerprint()
    blob = repr(sorted(parts.items())).encode()
    return hashlib.sha256(blob).hexdigest()


def file_hash(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def deps_unchanged(deps):
    for path, size, mtime, digest in deps:
        try:
            st = os.stat(path)
        except OSError:
            return False
        if st.st_size == size and st.st_mtime_ns == mtime:
            continue
        if st.st_size != size or file_hash(path) != digest:
            return False
    return True


def read_depfile(path):
    """The prerequisites of a make-style depfile, as absolute paths."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read().replace("\\\n", " ")
    _, _, rest = text.partition(": ")
    deps, word, k = [], "", 0
    while k < len(rest):
        c = rest[k]
        if c == "\\" and k + 1 < len(rest) and rest[k + 1] == " ":
            word += " "
            k += 2
            continue
        if c.isspace():
            if word:
                deps.append(word)
            word = ""
        else:
            word += c
        k += 1
    if word:
        deps.append(word)
    return [os.path.abspath(d) for d in deps]


def atomic_write(path, data):
    tmp = os.path.join(os.path.dirname(path) or ".",
                       ".tmp-%d-%s" % (os.getpid(), os.path.basename(path)))
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def main():
    clang, cache, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    out = output_path(args)
    if out is None or not cache or in_temporary_folder(args):
        run_clang(clang, args)
    key = key_of(clang, args)
    entry = os.path.join(cache, key[:2], key)
    try:
        # the manifest: the IR's hash, then "size mtime_ns sha256 path" per
        # file clang read
        with open(entry + ".deps", encoding="utf-8",
                  errors="surrogateescape") as f:
            lines = f.read().split("\n")
        deps = []
        for line in lines[1:]:
            if line:
                size, mtime, digest, path = line.split(" ", 3)
                deps.append((path, int(size), int(mtime), digest))
        if deps and deps_unchanged(deps):
            with open(entry + ".ll", "rb") as f:
                data = f.read()
            if hashlib.sha256(data).hexdigest() == lines[0]:
                atomic_write(out, data)
                return 0
    except (OSError, ValueError):
        pass
    # A miss: compile, and record what clang read.
    import subprocess
    depfile = out + ".ir-cache.d"
    rc = subprocess.call([clang] + args + ["-MD", "-MF", depfile])
    if rc != 0:
        return rc
    try:
        lines = []
        for path in read_depfile(depfile):
            st = os.stat(path)
            lines.append("%d %d %s %s" % (st.st_size, st.st_mtime_ns,
                                          file_hash(path), path))
        with open(out, "rb") as f:
            data = f.read()
        os.makedirs(os.path.dirname(entry), exist_ok=True)
        atomic_write(entry + ".ll", data)
        manifest = "\n".join([hashlib.sha256(data).hexdigest()] + lines)
        atomic_write(entry + ".deps", manifest.encode("utf-8", "surrogateescape"))
    except OSError:
        pass  # an unwritable cache only costs the next build a compile
    finally:
        try:
            os.unlink(depfile)
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
