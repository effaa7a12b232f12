#!/usr/bin/env python3
"""Proves that a student release holds no reference source (nor the instructor's expert kernels, expert/,
which are held to the same checks as reference/).

usage: check_no_reference.py <unpacked release dir> <source repo> [--ptx-cache <dir>]

Reads every file of the release, binary ones included, and looks for
  (a) a reference source file: a source file under reference/, or a file whose bytes are those of a
      reference file or of a planted variant (grader/labs/*/{wrong,right,cheats,slow}/*.json, edits of the
      reference's text);
  (b) the reference's distinctive text: each line of reference/<lab>/* that is at least MIN_LINE
      characters long once its white space is collapsed and that stands in no file the release ships
      legitimately (the source repo's tracked files less the reference and instructor-only material),
      searched in the white-space-collapsed text of every file (in binaries, in their printable runs),
      also as a JSON string would escape it;
  (c) PTX: the markers of a PTX module in plain text, and, where nvcc is at hand, the .entry lines of
      the reference's own PTX (nvcc -ptx of each reference .cu).
Prints each finding (file, what matched, where it comes from) and exits 1; otherwise prints one line
and exits 0. Exit 2: usage error.

--ptx-cache <dir>: keeps each reference .cu's PTX entry lines in <dir>, under a hash of everything nvcc -ptx
read to make them (nvcc and its version, the command, the source, every file in its include folders), for the
next check of the same reference: nvcc -ptx of the reference takes seconds, the rest of the check less than one.
"""
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MIN_LINE = 24
SOURCE_EXTENSIONS = {".cu", ".cuh", ".h", ".hpp", ".cpp", ".c", ".inc"}
PTX_MARKERS = [b".address_size", b".visible .entry", b".target sm_"]
WHITESPACE = re.compile(rb"\s+")
# A binary's text lives in runs of printable characters; nothing shorter than a distinctive line matters.
PRINTABLE_RUN = re.compile(rb"[\x20-\x7e\t\r\n]{%d,}" % MIN_LINE)
# What the release must never hold, in the instructor's tree: the reference, the planted variants (edits
# of the reference), and the instructor-only parts of the grader.
INSTRUCTOR_ONLY = re.compile(r"^(reference/|expert/|grader/labs/[^/]+/(wrong|right|cheats|slow)/|grader/class/|grader/release/)")
# Sources whose text must never ship: the reference, and the expert kernels of the roofline report.
SECRET_ROOTS = ("reference/", "expert/")
PLANTED_VARIANT = re.compile(r"^grader/labs/[^/]+/(wrong|right|cheats|slow)/")


def normalize(data: bytes) -> bytes:
    return WHITESPACE.sub(b" ", data).strip()


def tracked_files(repo: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(repo), "ls-files", "-z"], check=True, capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p and (repo / p).is_file()]


def searchable_text(data: bytes) -> bytes:
    """A file's text as the search sees it: white space collapsed; for a binary, its printable runs."""
    if b"\0" in data:
        return b"\0".join(normalize(run) for run in PRINTABLE_RUN.findall(data))
    return normalize(data)


def distinctive_lines(repo: Path, files: list[str]) -> dict[bytes, str]:
    """Reference lines that no legitimately shipped file contains, each with where it comes from."""
    legit = b"\0".join(searchable_text((repo / p).read_bytes()) for p in files if not INSTRUCTOR_ONLY.match(p))
    found: dict[bytes, str] = {}
    for path in files:
        if not path.startswith(SECRET_ROOTS):
            continue
        for number, line in enumerate((repo / path).read_bytes().splitlines(), 1):
            text = normalize(line)
            if len(text) >= MIN_LINE and text not in found and text not in legit:
                found[text] = f"{path}:{number}"
    return found


def find_nvcc() -> str | None:
    nvcc = shutil.which("nvcc")
    if nvcc is None and os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        nvcc = "/usr/local/cuda/bin/nvcc"
    return nvcc


def ptx_cache_key(nvcc_identity: bytes, command: list[str], source: Path, includes: list[Path]) -> str:
    """A hash of what nvcc -ptx reads: nvcc, the command, the source and every file of its own folder and of
    its include folders."""
    digest = hashlib.sha256(nvcc_identity + b"\0" + "\0".join(command).encode() + b"\0")
    folders = [source.parent] + includes
    inputs = [source] + sorted({f for d in folders if d.is_dir() for f in d.rglob("*") if f.is_file()})
    for f in inputs:
        digest.update(str(f).encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()


def ptx_entry_lines(repo: Path, files: list[str], cache: Path | None = None) -> dict[bytes, str]:
    """The .entry lines of the PTX nvcc makes of each reference .cu (kernel entry points as PTX spells them),
    taken from the cache where it holds them for the same inputs."""
    nvcc = find_nvcc()
    if nvcc is None:
        return {}
    sources = [p for p in files if p.startswith(SECRET_ROOTS) and p.endswith(".cu")]
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        version = subprocess.run([nvcc, "--version"], capture_output=True).stdout
        nvcc_identity = os.path.realpath(nvcc).encode() + b"\0" + version

    def compile_one(path: str) -> dict[bytes, str]:
        lab = path.split("/")[1]
        includes = [repo / "labs" / lab, repo / "labs" / "common", repo / "grader" / "include", repo / "grader" / "labs" / lab]
        config = repo / "labs" / lab / "lab.json"
        if config.is_file():
            includes += [repo / "grader" / "shared" / name for name in json.loads(config.read_text()).get("grader_shared", [])]
        command = [nvcc, "-ptx", "-std=c++17", "-arch=compute_75", *[f"-I{d}" for d in includes], str(repo / path)]
        kept = cache / (ptx_cache_key(nvcc_identity, command, repo / path, includes) + ".json") if cache is not None else None
        if kept is not None and kept.is_file():
            lines = [line.encode("latin-1") for line in json.loads(kept.read_text())]
        else:
            with tempfile.TemporaryDirectory() as tmp:
                ptx = Path(tmp) / "reference.ptx"
                result = subprocess.run(command + ["-o", str(ptx)], capture_output=True, text=True)
                if result.returncode != 0:
                    raise RuntimeError(f"nvcc -ptx {path} failed:\n{result.stderr}")
                lines = [line for line in ptx.read_bytes().splitlines() if b".entry" in line]
            if kept is not None:
                partial = kept.with_suffix(f".{os.getpid()}.tmp")
                partial.write_text(json.dumps([line.decode("latin-1") for line in lines]))
                partial.replace(kept)
        return {normalize(line): f"PTX of {path}" for line in lines}

    entries: dict[bytes, str] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for found in pool.map(compile_one, sources):
            entries.update(found)
    return entries


def check(release: Path, repo: Path, ptx_cache: Path | None = None) -> int:
    files = tracked_files(repo)
    references = [p for p in files if p.startswith("reference/")]
    if not references:
        print(f"check_no_reference: {repo} tracks no reference/ files: give the instructor's repository", file=sys.stderr)
        return 2
    by_content = {(repo / p).read_bytes(): p for p in files if p.startswith(SECRET_ROOTS) or PLANTED_VARIANT.match(p)}
    lines = distinctive_lines(repo, files)
    entries = ptx_entry_lines(repo, files, ptx_cache)
    # The JSON spelling of a line too: a planted variant carries the reference's text as JSON strings.
    needles = dict(lines)
    for text, where in lines.items():
        escaped = json.dumps(text.decode("utf-8", "replace"))[1:-1].encode()
        needles.setdefault(escaped, where + " (JSON-escaped)")
    needles.update(entries)

    findings: list[str] = []
    checked = 0
    size = 0
    for path in sorted(p for p in release.rglob("*") if p.is_file() and not p.is_symlink()):
        name = path.relative_to(release).as_posix()
        data = path.read_bytes()
        checked += 1
        size += len(data)
        if name.startswith(SECRET_ROOTS) and path.suffix in SOURCE_EXTENSIONS:
            findings.append(f"{name}: a source file under {name.split('/')[0]}/")
        if data in by_content:
            findings.append(f"{name}: identical to {by_content[data]}")
        for marker in PTX_MARKERS:
            if marker in data:
                findings.append(f"{name}: PTX text in plain sight ({marker.decode()!r})")
        text = searchable_text(data)
        hits = [(needle, where) for needle, where in needles.items() if needle in text]
        for needle, where in hits[:5]:
            findings.append(f"{name}: reference text {needle.decode('utf-8', 'replace')!r} ({where})")
        if len(hits) > 5:
            findings.append(f"{name}: ... and {len(hits) - 5} more lines of reference text")

    if findings:
        for finding in findings:
            print("LEAK " + finding)
        print(f"check_no_reference: FAILED: {len(findings)} findings in {release}")
        return 1
    ptx = f"{len(entries)} PTX entry lines" if entries else "no PTX entry lines (nvcc not found)"
    print(f"check_no_reference: pass: {checked} files ({size / 1e6:.1f} MB) in {release} hold none of "
          f"{len(references)} reference files, {len(lines)} distinctive reference lines, {ptx}, or PTX markers")
    return 0


def main() -> int:
    args = sys.argv[1:]
    cache = None
    if len(args) == 4 and args[2] == "--ptx-cache":
        cache = Path(args[3])
        args = args[:2]
    if len(args) != 2 or not Path(args[0]).is_dir() or not Path(args[1]).is_dir():
        print(next(line for line in __doc__.splitlines() if line.startswith("usage:")), file=sys.stderr)
        return 2
    return check(Path(args[0]), Path(args[1]), cache)


if __name__ == "__main__":
    sys.exit(main())
