#include "ossa/render/image.h"

#include <gif_lib.h>
#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace ossa {

Result<bool> write_png(const Image& image, const std::string& path) {
  stbi_write_png_compression_level = 6;
  if (image.width <= 0 || image.height <= 0) return Result<bool>::failure(path + ": empty image");
  if (!stbi_write_png(path.c_str(), image.width, image.height, 4, image.rgba.data(), image.width * 4))
    return Result<bool>::failure(path + ": cannot write PNG");
  return true;
}

Result<Image> read_png(const std::string& path) {
  int w = 0, h = 0, n = 0;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &n, 4);
  if (!data) return Result<Image>::failure(path + ": cannot read image (" + stbi_failure_reason() + ")");
  Image image{w, h, std::vector<uint8_t>(data, data + static_cast<size_t>(w) * h * 4)};
  stbi_image_free(data);
  return image;
}

namespace {
// Fixed palette: 216 colours of a 6x6x6 cube, then 40 greys.
std::vector<GifColorType> fixed_palette() {
  std::vector<GifColorType> colors;
  for (int r = 0; r < 6; ++r)
    for (int g = 0; g < 6; ++g)
      for (int b = 0; b < 6; ++b)
        colors.push_back({static_cast<GifByteType>(r * 51), static_cast<GifByteType>(g * 51),
                          static_cast<GifByteType>(b * 51)});
  for (int i = 0; i < 40; ++i) {
    auto v = static_cast<GifByteType>((i + 1) * 255 / 41);
    colors.push_back({v, v, v});
  }
  return colors;
}

// Ordered (4x4 Bayer) dithering onto the fixed palette; near-grey pixels use the finer grey ramp.
uint8_t palette_index(const uint8_t* px, int x, int y) {
  static const int bayer[4][4] = {{0, 8, 2, 10}, {12, 4, 14, 6}, {3, 11, 1, 9}, {15, 7, 13, 5}};
  const float threshold = (bayer[y & 3][x & 3] + 0.5f) / 16.f - 0.5f;
  const int r = px[0], g = px[1], b = px[2];
  if (std::abs(r - g) < 6 && std::abs(g - b) < 6 && std::abs(r - b) < 6) {
    float v = (r + g + b) / 3.f / 255.f * 41.f + threshold;  // greys 1..40 at (i+1)/41, black = cube 0
    int level = std::clamp(static_cast<int>(v + 0.5f), 0, 41);
    if (level == 0) return 0;
    if (level == 41) return 215;
    return static_cast<uint8_t>(216 + level - 1);
  }
  auto q = [&](int c) { return std::clamp(static_cast<int>(c / 51.f + threshold + 0.5f), 0, 5); };
  return static_cast<uint8_t>(q(r) * 36 + q(g) * 6 + q(b));
}
}  // namespace

Result<bool> write_gif(const std::vector<Image>& frames, int delay_cs, const std::string& path) {
  if (frames.empty()) return Result<bool>::failure(path + ": no frames");
  const int w = frames[0].width, h = frames[0].height;
  int error = 0;
  GifFileType* gif = EGifOpenFileName(path.c_str(), false, &error);
  if (!gif) return Result<bool>::failure(path + ": cannot open for writing (" + GifErrorString(error) + ")");
  EGifSetGifVersion(gif, true);  // GIF89a: frame delays and looping need its extensions
  std::vector<GifColorType> colors = fixed_palette();
  ColorMapObject* map = GifMakeMapObject(256, colors.data());
  auto fail = [&](const char* what) {
    GifFreeMapObject(map);
    EGifCloseFile(gif, &error);
    return Result<bool>::failure(path + ": " + what);
  };
  if (EGifPutScreenDesc(gif, w, h, 8, 0, map) == GIF_ERROR) return fail("cannot write the header");
  // NETSCAPE2.0 extension: loop forever.
  unsigned char app[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
  unsigned char loop[] = {1, 0, 0};
  if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
      EGifPutExtensionBlock(gif, sizeof app, app) == GIF_ERROR ||
      EGifPutExtensionBlock(gif, sizeof loop, loop) == GIF_ERROR || EGifPutExtensionTrailer(gif) == GIF_ERROR)
    return fail("cannot write the loop extension");
  std::vector<GifByteType> line(w);
  for (const Image& frame : frames) {
    if (frame.width != w || frame.height != h) return fail("frames differ in size");
    GraphicsControlBlock gcb{DISPOSAL_UNSPECIFIED, false, delay_cs, NO_TRANSPARENT_COLOR};
    GifByteType ext[4];
    EGifGCBToExtension(&gcb, ext);
    if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, ext) == GIF_ERROR)
      return fail("cannot write frame timing");
    if (EGifPutImageDesc(gif, 0, 0, w, h, false, nullptr) == GIF_ERROR) return fail("cannot write a frame");
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x)
        line[x] = palette_index(&frame.rgba[(static_cast<size_t>(y) * w + x) * 4], x, y);
      if (EGifPutLine(gif, line.data(), w) == GIF_ERROR) return fail("cannot write pixels");
    }
  }
  GifFreeMapObject(map);
  if (EGifCloseFile(gif, &error) == GIF_ERROR)
    return Result<bool>::failure(path + ": cannot finish the file");
  // giflib creates files readable by their owner only; images are meant to be shared like the PNGs.
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::permissions(
      path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read,
      fs::perm_options::replace, ec);
  return true;
}

Image contact_sheet(const std::vector<Image>& frames, int columns) {
  Image sheet;
  if (frames.empty() || columns <= 0) return sheet;
  const int w = frames[0].width, h = frames[0].height;
  const int rows = (static_cast<int>(frames.size()) + columns - 1) / columns;
  sheet.width = w * std::min<int>(columns, static_cast<int>(frames.size()));
  sheet.height = h * rows;
  // Cells without a frame take the first frame's corner pixel (the background), not transparent black, which
  // viewers show as white on a dark sheet.
  sheet.rgba.resize(static_cast<size_t>(sheet.width) * sheet.height * 4);
  for (size_t p = 0; p < sheet.rgba.size(); p += 4) std::copy_n(frames[0].rgba.data(), 4, &sheet.rgba[p]);
  for (size_t i = 0; i < frames.size(); ++i) {
    const int ox = static_cast<int>(i % columns) * w, oy = static_cast<int>(i / columns) * h;
    for (int y = 0; y < h; ++y)
      std::copy_n(&frames[i].rgba[static_cast<size_t>(y) * w * 4], static_cast<size_t>(w) * 4,
                  &sheet.rgba[(static_cast<size_t>(oy + y) * sheet.width + ox) * 4]);
  }
  return sheet;
}

ImageDifference compare_images(const Image& a, const Image& b, int threshold) {
  ImageDifference d;
  if (a.width != b.width || a.height != b.height) {
    d.fraction_over = 1;
    d.max_difference = 255;
    return d;
  }
  size_t over = 0, pixels = static_cast<size_t>(a.width) * a.height;
  for (size_t p = 0; p < pixels; ++p) {
    int worst = 0;
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(a.rgba[p * 4 + c] - b.rgba[p * 4 + c]));
    d.max_difference = std::max(d.max_difference, worst);
    over += worst > threshold;
  }
  d.fraction_over = pixels ? static_cast<double>(over) / pixels : 0;
  return d;
}

}  // namespace ossa
