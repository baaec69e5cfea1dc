#!/usr/bin/python3
"""otb_haralick.py: OTB's Haralick textures over windows of images skimage ships.

Independent reference for tests/glcm/glcm_otb_test.cpp. Runs
otbcli_HaralickTextureExtraction (Debian otb-bin, OTB 8.1) and writes what the
test compares with helix's CPU reference.

What OTB counts (OTB 8.1 ScalarImageToTexturesFilter and
ScalarImageToAdvancedTexturesFilter, read, not copied): for an output pixel,
the window W is the (2 xrad + 1) x (2 yrad + 1) square around it; every pixel
p of W whose neighbour p + (xoff, yoff) lies anywhere in the image (not only
in W) adds one pair, and the GLCM is symmetric (each pair counted both ways).
So OTB's GLCM of W is helix's glcm_of_rectangle() over W stretched by the
offset: the rectangle spanning W and W + offset, whose pairs with both ends
inside are exactly those starting in W.

Layout. Each window becomes a tile of side T = 2 (radius + margin) + 1, where
margin is the largest offset component, cut from the 8-bit image around the
window's centre; the tiles of one radius form a mosaic, one row per window and
one column per level divisor (4, 8, 16). `-step T` makes OTB compute only the
tile centres (output pixel (col, row) is tile (col, row)), and each tile's
stretched rectangle stays inside its tile, so tiles do not see each other.

Quantisation. OTB gets the grey levels g = v // divisor, and
min = -64, max = 63, nbbin = 128: bins of width (max + 1 - min) / nbbin = 1
from -64, so OTB's level is g + 64 for every divisor. The +64 keeps every
i + j >= nbbin, the only part of the sum histogram OTB keeps (it stores it in
the upper half of an array whose lower half holds the difference histogram).

Usage: otb_haralick.py OUT_DIR "name,cx,cy;name,cx,cy;..." "r,r,..." "dx,dy;dx,dy;..."
Writes OUT_DIR/otb.json:
  {"mosaics": [{"radius", "tile", "width", "height", "pixels" (raw 8-bit file
                in OUT_DIR, row-major), "tiles": [{"image", "cx", "cy", "row",
                "col", "divisor"}],
                "results": [{"dx", "dy", "row", "col", "simple": {name: value},
                             "advanced": {name: value}}]}]}
OTB's values are float32 (its output images are float) widened exactly to double.
"""
import concurrent.futures
import json
import os
import subprocess
import sys

import numpy as np
import skimage.data
import tifffile

DIVISORS = (4, 8, 16)
OTB_MIN, OTB_MAX, OTB_BINS = -64, 63, 128
SIMPLE = ("energy", "entropy", "correlation", "inverse_difference_moment", "inertia",
          "cluster_shade", "cluster_prominence", "haralick_correlation")
ADVANCED = ("mean", "variance", "dissimilarity", "sum_average", "sum_variance", "sum_entropy",
            "difference_entropy", "difference_variance", "ic1", "ic2")
APP = "otbcli_HaralickTextureExtraction"


def build_mosaic(windows, radius, margin):
    """The 8-bit mosaic (for helix) and the grey-level mosaic (for OTB)."""
    side = 2 * (radius + margin) + 1
    half = radius + margin
    pixels = np.zeros((side * len(windows), side * len(DIVISORS)), np.uint8)
    levels = np.zeros_like(pixels)
    tiles = []
    for row, (name, cx, cy) in enumerate(windows):
        image = getattr(skimage.data, name)()
        if image.ndim != 2 or image.dtype != np.uint8:
            sys.exit(f"otb_haralick: {name} is not an 8-bit grey image")
        crop = image[cy - half:cy + half + 1, cx - half:cx + half + 1]
        if crop.shape != (side, side):
            sys.exit(f"otb_haralick: tile around ({cx},{cy}) leaves {name}")
        for col, divisor in enumerate(DIVISORS):
            y, x = row * side, col * side
            pixels[y:y + side, x:x + side] = crop
            levels[y:y + side, x:x + side] = crop // divisor
            tiles.append({"image": name, "cx": cx, "cy": cy, "row": row, "col": col, "divisor": divisor})
    return side, pixels, levels, tiles


def run_otb(levels_path, out_path, texture, radius, dx, dy, step):
    command = [APP, "-in", levels_path, "-channel", "1",
               "-parameters.xrad", str(radius), "-parameters.yrad", str(radius),
               "-parameters.xoff", str(dx), "-parameters.yoff", str(dy),
               "-parameters.min", str(OTB_MIN), "-parameters.max", str(OTB_MAX),
               "-parameters.nbbin", str(OTB_BINS), "-texture", texture, "-step", str(step),
               "-out", out_path, "float"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"otb_haralick: {' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    return tifffile.imread(out_path)


def main():
    out_dir = sys.argv[1]
    windows = [(n, int(x), int(y)) for n, x, y in (w.split(",") for w in sys.argv[2].split(";"))]
    radii = [int(r) for r in sys.argv[3].split(",")]
    offsets = [tuple(int(v) for v in o.split(",")) for o in sys.argv[4].split(";")]
    margin = max(max(abs(dx), abs(dy)) for dx, dy in offsets)
    mosaics, jobs = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for radius in radii:
            side, pixels, levels, tiles = build_mosaic(windows, radius, margin)
            raw_name = f"mosaic_r{radius}.raw"
            pixels.tofile(os.path.join(out_dir, raw_name))
            levels_path = os.path.join(out_dir, f"levels_r{radius}.tif")
            tifffile.imwrite(levels_path, levels)
            mosaic = {"radius": radius, "tile": side, "width": int(pixels.shape[1]),
                      "height": int(pixels.shape[0]), "pixels": raw_name, "tiles": tiles, "results": []}
            mosaics.append(mosaic)
            for dx, dy in offsets:
                outs = {t: pool.submit(run_otb, levels_path,
                                       os.path.join(out_dir, f"{t}_r{radius}_{dx}_{dy}.tif"), t, radius, dx, dy, side)
                        for t in ("simple", "advanced")}
                jobs.append((mosaic, dx, dy, outs))
        for mosaic, dx, dy, outs in jobs:
            simple, advanced = outs["simple"].result(), outs["advanced"].result()
            for tile in mosaic["tiles"]:
                r, c = tile["row"], tile["col"]
                mosaic["results"].append({
                    "dx": dx, "dy": dy, "row": r, "col": c,
                    "simple": {n: float(v) for n, v in zip(SIMPLE, simple[r, c])},
                    "advanced": {n: float(v) for n, v in zip(ADVANCED, advanced[r, c])}})
    with open(os.path.join(out_dir, "otb.json"), "w") as f:
        json.dump({"mosaics": mosaics}, f)


if __name__ == "__main__":
    main()
