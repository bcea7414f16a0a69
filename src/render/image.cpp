#include "ossa/render/image.h"

#include "ossa/core/file_io.h"

#ifdef OSSA_HAVE_GIF  // giflib (Linux); the Windows build writes PNG only
#include <gif_lib.h>
#endif

// stb (Debian's libstb-dev headers) compiled here, private to this file: static functions only, so no other
// copy can interpose. assimp's libdraco exports an older stb_image whose symbols a dynamic link would bind
// to instead of libstb's, and that copy crashes on a 90-byte PNM file (found by fuzz_image). Only the formats
// textures come in are compiled: fewer decoders, less to attack.
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#define STBI_NO_STDIO
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#include <stb_image.h>
#include <stb_image_write.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace ossa {

namespace {
// Byte sinks for stb and giflib: images are encoded in memory, then written whole (file_io.h).
void append_bytes(void* context, void* data, int size) {
  auto* out = static_cast<std::vector<uint8_t>*>(context);
  out->insert(out->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
}
#ifdef OSSA_HAVE_GIF
int append_gif_bytes(GifFileType* gif, const GifByteType* data, int size) {
  append_bytes(gif->UserData, const_cast<GifByteType*>(data), size);
  return size;
}
#endif
}  // namespace

Result<bool> write_png(const Image& image, const std::string& path) {
  stbi_write_png_compression_level = 6;
  if (image.width <= 0 || image.height <= 0) return Result<bool>::failure(path + ": empty image");
  // stb computes sizes in int: refuse what it cannot hold instead of overflowing.
  if (static_cast<uint64_t>(image.width) * image.height * 4 > kMaxImageBytes ||
      image.rgba.size() != static_cast<size_t>(image.width) * image.height * 4)
    return Result<bool>::failure(path + ": a " + std::to_string(image.width) + "x" +
                                 std::to_string(image.height) + " image is too large to write");
  std::vector<uint8_t> png;
  if (!stbi_write_png_to_func(append_bytes, &png, image.width, image.height, 4, image.rgba.data(),
                              image.width * 4))
    return Result<bool>::failure(path + ": cannot encode PNG");
  return write_file_atomically(path, png);
}

Result<Image> read_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : -1;
  if (size < 0 || size > (std::streamoff{256} << 20))
    return Result<Image>::failure(path + ": cannot read image (missing, unreadable or over 256 MB)");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (size && !in.read(reinterpret_cast<char*>(bytes.data()), size))
    return Result<Image>::failure(path + ": cannot read image");
  auto image = decode_image(bytes, 16384);
  if (!image) return Result<Image>::failure(path + ": " + image.error());
  return image;
}

namespace {
// Debian's stb_image (2022-09) trusts the symbol counts of a JPEG Huffman table (DHT): counts summing to
// more than 256 write past its 257-entry tables into the decoder's state, function pointers included
// (found by fuzz_image; later stb versions check). This walks the markers the way stb reads them (bytes
// that are not FF skipped one at a time, segments skipped by their length, so every marker in entropy-coded
// data is seen too: FF 00 is a stuffed byte, FF D0-D7 a restart) and refuses any DHT stb could parse whose
// counts sum past 256.
std::string jpeg_huffman_error(std::span<const uint8_t> b) {
  const size_t size = b.size();
  auto byte = [&](size_t i) -> unsigned { return i < size ? b[i] : 0; };  // stb reads 0 past the end
  size_t i = 0;
  if (byte(i) != 0xFF) return {};
  while (byte(i) == 0xFF && i < size) ++i;
  if (byte(i) != 0xD8) return {};  // not a JPEG
  ++i;
  while (i < size) {
    if (b[i] != 0xFF) {  // stb skips anything else between segments, a byte at a time
      ++i;
      continue;
    }
    while (i < size && b[i] == 0xFF) ++i;
    if (i >= size) break;
    const unsigned marker = b[i++];
    if (marker == 0x00 || (marker >= 0xD0 && marker <= 0xD9) || marker == 0x01) continue;  // no length
    const size_t length = byte(i) << 8 | byte(i + 1);
    if (marker == 0xC4) {
      long remaining = static_cast<long>(length) - 2;
      size_t at = i + 2;
      while (remaining > 0) {
        const unsigned q = byte(at++);
        if ((q >> 4) > 1 || (q & 15) > 3) break;  // stb refuses the table
        unsigned symbols = 0;
        for (int k = 0; k < 16; ++k) symbols += byte(at++);
        if (symbols > 256)
          return "a malformed JPEG Huffman table (" + std::to_string(symbols) + " symbols, at most 256)";
        at += symbols;
        remaining -= 17 + static_cast<long>(symbols);
      }
    }
    i += length;
  }
  return {};
}
// stb_image grows its buffer for a PNG's image data to what each chunk's length field claims before reading
// it: 125 bytes claiming 2 GB allocate 2 GB (found by fuzz_image). Every chunk must fit in the file.
std::string png_chunk_error(std::span<const uint8_t> b) {
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (b.size() < 8 || std::memcmp(b.data(), signature, 8) != 0) return {};  // not a PNG
  size_t i = 8;
  while (b.size() - i >= 8) {
    const uint64_t length = uint64_t{b[i]} << 24 | b[i + 1] << 16 | b[i + 2] << 8 | b[i + 3];
    if (length > b.size() - i - 8)
      return "a PNG chunk claims " + std::to_string(length) + " bytes, more than the file holds";
    if (std::memcmp(b.data() + i + 4, "IEND", 4) == 0) break;
    i += 8 + length + std::min<uint64_t>(4, b.size() - i - 8 - length);  // data, then the CRC
  }
  return {};
}
}  // namespace

Result<Image> decode_image(std::span<const uint8_t> bytes, int max_side, bool flip) {
  if (bytes.empty()) return Result<Image>::failure("no image data");
  if (std::string bad = jpeg_huffman_error(bytes); !bad.empty()) return Result<Image>::failure(bad);
  if (std::string bad = png_chunk_error(bytes); !bad.empty()) return Result<Image>::failure(bad);
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) return Result<Image>::failure("image data over 2 GB");
  const int length = static_cast<int>(bytes.size());
  int w = 0, h = 0, n = 0;
  if (!stbi_info_from_memory(bytes.data(), length, &w, &h, &n))
    return Result<Image>::failure(std::string("could not be decoded (") + stbi_failure_reason() + ")");
  if (w <= 0 || h <= 0 || w > max_side || h > max_side)
    return Result<Image>::failure("is " + std::to_string(w) + "x" + std::to_string(h) + " pixels, over the " +
                                  std::to_string(max_side) + "-pixel limit per side");
  stbi_set_flip_vertically_on_load_thread(flip);
  unsigned char* pixels = stbi_load_from_memory(bytes.data(), length, &w, &h, &n, 4);
  stbi_set_flip_vertically_on_load_thread(false);
  if (!pixels)
    return Result<Image>::failure(std::string("could not be decoded (") + stbi_failure_reason() + ")");
  Image image{w, h, std::vector<uint8_t>(pixels, pixels + static_cast<size_t>(w) * h * 4)};
  stbi_image_free(pixels);
  return image;
}

#ifdef OSSA_HAVE_GIF
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
  if (w <= 0 || h <= 0 || w > 65535 || h > 65535 ||
      static_cast<uint64_t>(w) * h * frames.size() > kMaxImageBytes)
    return Result<bool>::failure(path + ": " + std::to_string(frames.size()) + " frames of " +
                                 std::to_string(w) + "x" + std::to_string(h) + " are too large to write");
  int error = 0;
  std::vector<uint8_t> bytes;
  GifFileType* gif = EGifOpen(&bytes, append_gif_bytes, &error);
  if (!gif) return Result<bool>::failure(path + ": cannot start a GIF (" + GifErrorString(error) + ")");
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
    if (frame.width != w || frame.height != h || frame.rgba.size() != static_cast<size_t>(w) * h * 4)
      return fail("frames differ in size");
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
  return write_file_atomically(path, bytes);
}
#else
Result<bool> write_gif(const std::vector<Image>&, int, const std::string& path) {
  return Result<bool>::failure(
      path + ": this build writes no GIF (giflib is not built for Windows here); write .png");
}
#endif

Image contact_sheet(const std::vector<Image>& frames, int columns) {
  Image sheet;
  if (frames.empty() || columns <= 0) return sheet;
  const int w = frames[0].width, h = frames[0].height;
  const int rows = (static_cast<int>(frames.size()) + columns - 1) / columns;
  if (static_cast<uint64_t>(w) * std::min<size_t>(columns, frames.size()) * h * rows * 4 > kMaxImageBytes)
    return sheet;
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
