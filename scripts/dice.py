#!/usr/bin/python3
"""dice.py: Dice coefficient per class between two helix label maps (.hxl).

    python3 scripts/dice.py SEGMENTATION.hxl TRUTH.hxl

Label map format (kernels/mrf/mrf_files.h): 8 bytes "HXLAB001" | u32 nx, ny, nz |
u64 frame bytes | zstd frame of nx*ny*nz uint8 labels (0 air, 1 bone, 2 liver),
little-endian. The frame is decompressed with the `zstd` command (Debian package
zstd), so no Python module beyond the standard library is needed.

Prints one line per class: label, name, voxels in each map, Dice = 2|A∩B|/(|A|+|B|).
Exits 1 with one line on stderr when a file is malformed or the sizes differ.
"""
import shutil
import struct
import subprocess
import sys

CLASS_NAMES = ["air", "bone", "liver"]
HEADER = struct.Struct("<8s3IQ")


def decompress(frame, path):
    """One zstd frame -> bytes: the `zstd` command, else the zstandard module."""
    if shutil.which("zstd"):
        run = subprocess.run(["zstd", "-d", "-q", "-c"], input=frame, stdout=subprocess.PIPE)
        if run.returncode != 0:
            sys.exit(f"dice: error: {path}: zstd could not decompress the label frame")
        return run.stdout
    try:
        import zstandard
    except ImportError:
        sys.exit("dice: error: needs the zstd command (apt-get install zstd) or the zstandard module")
    return zstandard.ZstdDecompressor().decompress(frame, max_output_size=1 << 32)


def read_labels(path):
    """Returns ((nx, ny, nz), labels as bytes); exits on a malformed file."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HEADER.size:
        sys.exit(f"dice: error: {path} is too short for a label map")
    magic, nx, ny, nz, frame_bytes = HEADER.unpack_from(data)
    if magic != b"HXLAB001":
        sys.exit(f"dice: error: {path} is not a helix label map (magic {magic!r})")
    frame = data[HEADER.size:]
    if len(frame) != frame_bytes:
        sys.exit(f"dice: error: {path}: frame is {len(frame)} bytes, header says {frame_bytes}")
    labels = decompress(frame, path)
    if len(labels) != nx * ny * nz:
        sys.exit(f"dice: error: {path}: {len(labels)} labels for {nx}x{ny}x{nz} voxels")
    return (nx, ny, nz), labels


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: dice.py SEGMENTATION.hxl TRUTH.hxl")
    dims_a, a = read_labels(sys.argv[1])
    dims_b, b = read_labels(sys.argv[2])
    if dims_a != dims_b:
        sys.exit(f"dice: error: sizes differ: {dims_a} vs {dims_b}")
    # Joint histogram of label pairs: (x, y) counted at x * 256 + y.
    joint = [0] * (256 * 256)
    for x, y in zip(a, b):
        joint[x * 256 + y] += 1
    print(f"{'label':>5}  {'class':<6} {'segmented':>10} {'truth':>10} {'dice':>7}")
    for label, name in enumerate(CLASS_NAMES):
        count_a = a.count(label)
        count_b = b.count(label)
        both = joint[label * 256 + label]
        dice = 2.0 * both / (count_a + count_b) if count_a + count_b else float("nan")
        print(f"{label:>5}  {name:<6} {count_a:>10} {count_b:>10} {dice:>7.4f}")


if __name__ == "__main__":
    main()
