#!/usr/bin/env python3
"""Mean SSIM of two images' luma (8×8 windows), for Benchmarks/shrink.sh.
Usage: ssim.py REFERENCE CANDIDATE   (any format ImageMagick's convert reads)."""
import subprocess
import sys

import numpy as np


def luma(path):
    pgm = subprocess.run(["convert", path, "-colorspace", "Gray", "-depth", "8", "pgm:-"],
                         check=True, capture_output=True).stdout
    # P5\n<w> <h>\n255\n<data>
    fields, rest = [], pgm
    while len(fields) < 4:
        line, rest = rest.split(b"\n", 1)
        if not line.startswith(b"#"):
            fields += line.split()
    width, height = int(fields[1]), int(fields[2])
    return np.frombuffer(rest[: width * height], dtype=np.uint8).reshape(height, width).astype(np.float64)


def box_mean(image, size=8):
    c = np.cumsum(np.cumsum(np.pad(image, ((1, 0), (1, 0))), axis=0), axis=1)
    total = c[size:, size:] - c[:-size, size:] - c[size:, :-size] + c[:-size, :-size]
    return total / (size * size)


def ssim(a, b):
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mu_a, mu_b = box_mean(a), box_mean(b)
    var_a = box_mean(a * a) - mu_a ** 2
    var_b = box_mean(b * b) - mu_b ** 2
    cov = box_mean(a * b) - mu_a * mu_b
    s = ((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a ** 2 + mu_b ** 2 + c1) * (var_a + var_b + c2))
    return float(s.mean())


if __name__ == "__main__":
    print(f"{ssim(luma(sys.argv[1]), luma(sys.argv[2])):.4f}")
