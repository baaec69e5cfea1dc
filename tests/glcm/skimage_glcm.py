#!/usr/bin/python3
"""skimage_glcm.py: skimage's GLCM features over helix's circular windows.

Independent reference for tests/glcm/glcm_skimage_test.cpp. For one image that
skimage.data ships, a window radius, window centres and distances, it writes:

  OUT_PIXELS  the 8-bit grey image, raw row-major bytes (the test loads it);
  OUT_JSON    {"width", "height",
               "displacements": {"d": [[dx, dy], ...]} for d = 1..25, from
                   round(sqrt(dx^2 + dy^2)) == d in floating point (the C++
                   side uses the exact integer form; the test checks they agree),
               "glcms": one entry per (centre, divisor, distance, displacement):
                   skimage's graycoprops contrast, ASM, correlation and
                   homogeneity, plus the integer counts when there are <= 16 levels,
               "means": per (centre, divisor, distance) the mean of those four
                   over the distance's displacements, in the set's order}

How skimage sees a circular window: the (2R+1)^2 crop is quantised to L
levels and every pixel outside the disc is set to an extra level L. Then
graycomatrix(levels=L+1, symmetric=True) counts every pair, and dropping row
and column L leaves exactly the pairs with both ends in the disc. graycoprops
normalises the matrix it is given (p = c / sum c), so it gets the L x L counts.
A displacement (dx, dy) (dx along columns, dy along rows) is passed as
distance hypot(dx, dy) and angle atan2(dy, dx): skimage's offsets are
round(sin(angle) * distance) rows and round(cos(angle) * distance) columns,
which this script checks give back (dy, dx).

Usage: skimage_glcm.py OUT_JSON OUT_PIXELS IMAGE RADIUS "cx,cy;cx,cy" "d,d,..."
"""
import json
import math
import sys

import numpy as np
import skimage.data
from skimage.feature import graycomatrix, graycoprops

PROPS = ("contrast", "ASM", "correlation", "homogeneity")


def displacement_set(d):
    out = []
    for dy in range(0, d + 1):
        for dx in range(-d, d + 1):
            if dy == 0 and dx <= 0:
                continue
            if int(math.floor(math.sqrt(dx * dx + dy * dy) + 0.5)) == d:
                out.append([dx, dy])
    return out


def main():
    out_json, out_pixels, name, radius = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    centres = [tuple(int(v) for v in c.split(",")) for c in sys.argv[5].split(";")]
    distances = [int(v) for v in sys.argv[6].split(",")]
    image = getattr(skimage.data, name)()
    if image.ndim != 2 or image.dtype != np.uint8:
        sys.exit(f"skimage_glcm: {name} is not an 8-bit grey image")
    image.tofile(out_pixels)
    sets = {d: displacement_set(d) for d in range(1, 26)}
    side = 2 * radius + 1
    yy, xx = np.mgrid[-radius:radius + 1, -radius:radius + 1]
    outside = xx * xx + yy * yy > radius * radius
    glcms, means = [], []
    for cx, cy in centres:
        crop = image[cy - radius:cy + radius + 1, cx - radius:cx + radius + 1]
        assert crop.shape == (side, side), "window leaves the image"
        for divisor in (4, 8, 16):
            levels = 256 // divisor
            q = (crop // divisor).astype(np.uint8)
            q[outside] = levels
            for d in distances:
                sums = dict.fromkeys(PROPS, 0.0)
                for dx, dy in sets[d]:
                    angle, dist = math.atan2(dy, dx), math.hypot(dx, dy)
                    assert round(math.sin(angle) * dist) == dy and round(math.cos(angle) * dist) == dx
                    full = graycomatrix(q, [dist], [angle], levels=levels + 1, symmetric=True, normed=False)
                    counts = full[:levels, :levels, :, :]
                    entry = {"cx": cx, "cy": cy, "divisor": divisor, "distance": d, "dx": dx, "dy": dy}
                    for prop in PROPS:
                        entry[prop] = float(graycoprops(counts, prop)[0, 0])
                        sums[prop] += entry[prop]
                    if levels <= 16:
                        entry["counts"] = [int(v) for v in counts[:, :, 0, 0].ravel()]
                    glcms.append(entry)
                mean = {"cx": cx, "cy": cy, "divisor": divisor, "distance": d}
                mean.update({prop: sums[prop] / len(sets[d]) for prop in PROPS})
                means.append(mean)
    with open(out_json, "w") as f:
        json.dump({"width": int(image.shape[1]), "height": int(image.shape[0]),
                   "displacements": {str(d): s for d, s in sets.items()},
                   "glcms": glcms, "means": means}, f)


if __name__ == "__main__":
    main()
