// ossa/render/image.h — RGBA8 images: PNG and animated GIF output, contact sheets, pixel comparison.
//
// Rows run top to bottom. GIFs use one fixed 256-colour palette (a 6x6x6 colour cube plus 40 greys) with 4x4
// ordered dithering, so they are deterministic and need no per-frame palette search.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ossa/core/result.h"

namespace ossa {

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;  // width * height * 4, top row first
};

// The largest image (or all frames of a GIF) written or composed, in RGBA bytes: 1 GiB. Larger requests are
// refused before anything is allocated (stb's encoder computes sizes in int).
constexpr uint64_t kMaxImageBytes = uint64_t{1} << 30;

// Writers encode in memory, then write the file whole (ossa/core/file_io.h).
Result<bool> write_png(const Image& image, const std::string& path);
Result<Image> read_png(const std::string& path);
// A PNG, JPEG, TGA, BMP, ... file's bytes as RGBA8 (flipped bottom row first when `flip`). The header's size
// is checked before decoding: a few hundred bytes can claim gigapixels. Larger sides are refused by name.
constexpr int kMaxTextureSide = 8192;
Result<Image> decode_image(std::span<const uint8_t> bytes, int max_side = kMaxTextureSide, bool flip = false);
// An animated GIF of `frames` (all the same size), `delay_cs` hundredths of a second each, looping forever:
// ordered dithering onto a fixed palette (a 6x6x6 colour cube and 40 greys), LZW written by Ossa itself (no
// giflib), so every platform writes GIFs. Empty when the frames differ in size or exceed kMaxImageBytes.
std::vector<uint8_t> encode_gif(const std::vector<Image>& frames, int delay_cs);
Result<bool> write_gif(const std::vector<Image>& frames, int delay_cs, const std::string& path);
// Frames side by side, `columns` per row; an empty image when the sheet would exceed kMaxImageBytes.
Image contact_sheet(const std::vector<Image>& frames, int columns);

struct ImageDifference {
  double fraction_over = 0;  // fraction of pixels whose largest channel difference exceeds the threshold
  int max_difference = 0;    // largest channel difference (0-255)
};
ImageDifference compare_images(const Image& a, const Image& b, int threshold);

}  // namespace ossa
