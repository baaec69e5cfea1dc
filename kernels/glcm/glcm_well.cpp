// glcm_well.cpp: a basic detector of the circular crystallisation well, for
// `helix-wu glcm make --detect-well`. The well is the one large circle in a
// screen image: its rim is a dark ring, whose edges give the Hough transform
// the most votes of any circle. The ROI is that circle shrunk by a margin, so
// the rim and the detector's error stay outside it.
#include <algorithm>
#include <cmath>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "core/errors.h"
#include "glcm_server.h"

namespace helix::glcm {
namespace {

// Blur before the edge detector, so single-pixel texture does not vote for
// circles (OpenCV's documentation suggests a 7x7..9x9 Gaussian of sigma ~2).
constexpr int kBlurKernel = 9;
constexpr double kBlurSigma = 2.0;
// Canny's upper threshold on the blurred 8-bit image: a rim against the well's
// inside or the plate differs by tens of grey levels over a few pixels.
constexpr double kCannyHigh = 100;
// Votes a centre needs: a fifth of the smallest circumference searched is
// plenty for a continuous ring, and rejects texture's scattered edges.
constexpr double kMinVotesFraction = 0.2;
// The well fills most of a screen image: its radius is between a fifth of the
// shorter side and a little more than half of it (a well cropped by the frame).
constexpr double kMinRadiusFraction = 0.2, kMaxRadiusFraction = 0.55;
constexpr double kDefaultMarginFraction = 0.10;

}  // namespace

WellCircle detect_well(const GreyImage& image, const std::string& what) {
  const int side = std::min(image.width, image.height);
  const int min_radius = static_cast<int>(kMinRadiusFraction * side);
  const int max_radius = static_cast<int>(std::ceil(kMaxRadiusFraction * side));
  if (min_radius < kWindowRadius)
    throw InputError("image " + what + " is too small (" + std::to_string(image.width) + "x" +
                     std::to_string(image.height) + ") to look for a well in");
  // OpenCV only reads the pixels; the Mat wraps them without a copy.
  const cv::Mat grey(image.height, image.width, CV_8UC1, const_cast<std::uint8_t*>(image.pixels.data()));
  cv::Mat blurred;
  cv::GaussianBlur(grey, blurred, cv::Size(kBlurKernel, kBlurKernel), kBlurSigma);
  std::vector<cv::Vec4f> circles;  // x, y, radius, votes
  const double min_votes = kMinVotesFraction * 2 * M_PI * min_radius;
  // minDist = the shorter side: one well per image, so nearby weaker circles
  // (the rim's other edge, texture) are suppressed.
  cv::HoughCircles(blurred, circles, cv::HOUGH_GRADIENT, 1, side, kCannyHigh, min_votes, min_radius, max_radius);
  if (circles.empty())
    throw InputError("image " + what + ": no circular well found (give its ROI with --mask instead)");
  const auto strongest = std::max_element(circles.begin(), circles.end(),
                                          [](const cv::Vec4f& a, const cv::Vec4f& b) { return a[3] < b[3]; });
  return {(*strongest)[0], (*strongest)[1], (*strongest)[2]};
}

double default_well_margin(const WellCircle& well) { return kDefaultMarginFraction * well.radius; }

GreyImage well_mask(int width, int height, const WellCircle& well, double margin_px) {
  GreyImage mask{width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height, 0)};
  const double radius = well.radius - margin_px;
  if (radius <= 0) return mask;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const double dx = x - well.centre_x, dy = y - well.centre_y;
      if (dx * dx + dy * dy <= radius * radius) mask.pixels[static_cast<std::size_t>(y) * width + x] = 255;
    }
  return mask;
}

}  // namespace helix::glcm
