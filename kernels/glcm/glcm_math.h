// glcm_math.h: deterministic natural log and exp for the glcm kind.
//
// Contents: HELIX_GLCM_HD (host/device marker), glcm_log(x), glcm_exp(x), glcm_expm1(x).
//
// Why our own: libm's log/exp differ between hosts and from CUDA's, in the
// last bit. The Haralick features are compared bit for bit between the CPU
// reference and a later GPU port, and recomputed by the project's validator,
// so every transcendental here is built from IEEE basic operations (+ - * /,
// exactly rounded) and the exact frexp/ldexp/floor. With no FMA contraction
// (host -ffp-contract=off, device --fmad=false, set project-wide) both give
// the same double on every machine.
#pragma once
#include <cmath>

#ifdef __CUDACC__
#define HELIX_GLCM_HD __host__ __device__ __forceinline__
#else
#define HELIX_GLCM_HD inline
#endif

namespace helix::glcm {

// ln 2 split in two (fdlibm's split): kLn2High has its low 21 bits zero, so e * kLn2High is
// exact for any |e| < 2^21; kLn2Low carries the rest.
constexpr double kLn2High = 6.93147180369123816490e-01;
constexpr double kLn2Low = 1.90821492927058770002e-10;

// Natural log of a positive, finite, normal x. Returns ln(x) to within ~1 ulp.
// x = m * 2^e with m in [sqrt(1/2), sqrt(2)) (frexp, exact); then
// ln(m) = 2 atanh(u), u = (m-1)/(m+1), |u| <= 0.1716, as the odd series
// 2u (1 + u^2/3 + u^4/5 + ...) in Horner form: 13 terms leave a remainder
// below 0.0295^13/27 ~ 3e-22, far under double precision.
HELIX_GLCM_HD double glcm_log(double x) {
  int exponent = 0;
  double m = frexp(x, &exponent);  // m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m = m * 2;
    exponent = exponent - 1;
  }
  const double u = (m - 1) / (m + 1);
  const double u2 = u * u;
  double series = 1.0 / 25.0;
  for (int k = 11; k >= 0; --k) series = series * u2 + 1.0 / (2 * k + 1);
  const double e = static_cast<double>(exponent);
  return e * kLn2High + (2 * u * series + e * kLn2Low);
}

// e^x for finite x <= 709 (underflows to 0 below -745). Returns within ~1 ulp.
// x = k ln2 + r with k = floor(x / ln2 + 1/2) and |r| <= ln2/2 (Cody-Waite:
// k * kLn2High is exact, so r keeps its low bits); e^r is its Taylor series
// to r^20/20! (remainder < 0.35^21/21! ~ 1e-29) in Horner form; the result is
// scaled by 2^k with the exact ldexp.
HELIX_GLCM_HD double glcm_exp(double x) {
  if (x < -745.0) return 0.0;
  const double k = floor(x * 1.44269504088896340736 + 0.5);
  const double r = (x - k * kLn2High) - k * kLn2Low;
  double series = 1.0;
  for (int n = 20; n >= 1; --n) series = 1.0 + series * r / n;
  return ldexp(series, static_cast<int>(k));
}

// e^x - 1 for finite x <= 709, to within a few ulp of the result also when
// x is near 0, where glcm_exp(x) - 1 keeps only the bits of x above ulp(1)
// (for x = -1e-12 it has about 4 correct digits). For |x| <= ln2/2 it sums
// (e^x - 1) / x = 1 + x/2! + x^2/3! + ... to x^20/21! in Horner form
// (remainder below 0.35^21/22! ~ 1e-31) and multiplies by x; beyond, e^x is at
// least sqrt 2 or at most 1/sqrt 2 away from 1 and glcm_exp(x) - 1 loses at
// most two bits.
HELIX_GLCM_HD double glcm_expm1(double x) {
  if (x < -0.34657359027997265471 || x > 0.34657359027997265471) return glcm_exp(x) - 1.0;
  double series = 1.0;
  for (int n = 22; n >= 2; --n) series = 1.0 + series * x / n;
  return x * series;
}

}  // namespace helix::glcm
