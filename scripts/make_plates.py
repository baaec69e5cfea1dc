#!/usr/bin/python3
"""make_plates.py: crystallisation-plate-like test images for the glcm demo.

There is no public crystallisation-screen image in Debian, so each "plate" is
a real texture shipped by python3-skimage (brick, grass, gravel) seen through
a circular well: the texture inside the well, a dark rim around it, a flat
mid-grey plate outside. helix-wu's well detector finds the well; the features
describe the real texture inside it.

    /usr/bin/python3 scripts/make_plates.py OUT_DIR [SIZE] [WELL_RADIUS]
"""
import os
import sys

import numpy as np
from PIL import Image
from skimage import data


def plate(texture, size, well_radius):
    y, x = np.mgrid[0:size, 0:size]
    r = np.hypot(x - (size - 1) / 2, y - (size - 1) / 2)
    image = np.full((size, size), 150, dtype=np.uint8)  # the plate
    image[r <= well_radius + 5] = 25                      # the well's dark rim
    inside = r <= well_radius
    image[inside] = texture[:size, :size][inside]
    return image


def main():
    out = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 160
    well_radius = int(sys.argv[3]) if len(sys.argv) > 3 else 62
    os.makedirs(out, exist_ok=True)
    for name in ("brick", "grass", "gravel"):
        texture = getattr(data, name)()
        Image.fromarray(plate(texture, size, well_radius)).save(os.path.join(out, name + ".png"))
        print(f"  {out}/{name}.png: {size}x{size}, {name} texture in a well of radius {well_radius}")


if __name__ == "__main__":
    main()
