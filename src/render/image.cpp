#include "ossa/render/image.h"

#include "ossa/core/file_io.h"

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

namespace {
// Fixed palette: 216 colours of a 6x6x6 cube, then 40 greys (RGB triplets).
std::vector<uint8_t> fixed_palette() {
  std::vector<uint8_t> colors;
  for (int r = 0; r < 6; ++r)
    for (int g = 0; g < 6; ++g)
      for (int b = 0; b < 6; ++b)
        colors.insert(colors.end(), {static_cast<uint8_t>(r * 51), static_cast<uint8_t>(g * 51),
                                     static_cast<uint8_t>(b * 51)});
  for (int i = 0; i < 40; ++i) {
    const auto v = static_cast<uint8_t>((i + 1) * 255 / 41);
    colors.insert(colors.end(), {v, v, v});
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

void put_u16(std::vector<uint8_t>& out, int value) {
  out.push_back(static_cast<uint8_t>(value & 0xFF));
  out.push_back(static_cast<uint8_t>((value >> 8) & 0xFF));
}

// GIF's LZW (variable-length codes from 9 to 12 bits over 8-bit pixels, least significant bit first, in data
// sub-blocks of up to 255 bytes). The code table is a flat array indexed by (prefix code, next pixel): 1 M
// entries of 16 bits, cleared each time it fills (every 3,838 new codes).
class LzwWriter {
 public:
  explicit LzwWriter(std::vector<uint8_t>& out) : out_(out), table_(kMaxCodes * 256, 0) {}

  void write(const std::vector<uint8_t>& pixels) {
    out_.push_back(kMinCodeSize);
    emit(kClear);
    int prefix = -1;
    for (uint8_t pixel : pixels) {
      if (prefix < 0) {
        prefix = pixel;
        continue;
      }
      uint16_t& entry = table_[static_cast<size_t>(prefix) * 256 + pixel];
      if (entry != 0) {  // (no code is 0 in the table: codes start at kFirst)
        prefix = entry;
        continue;
      }
      emit(prefix);
      if (next_ < kMaxCodes - 1) {
        entry = static_cast<uint16_t>(next_);
        // A decoder adds this code when it reads the next one, and widens its codes once the next free code
        // needs another bit: the same moment here.
        if (next_ == (1 << size_) && size_ < 12) ++size_;
        ++next_;
      } else {  // the table is full: start again
        emit(kClear);
        std::fill(table_.begin(), table_.end(), uint16_t{0});
        size_ = kMinCodeSize + 1;
        next_ = kFirst;
      }
      prefix = pixel;
    }
    if (prefix >= 0) emit(prefix);
    emit(kEnd);
    if (bit_count_ > 0) block_.push_back(static_cast<uint8_t>(bits_ & 0xFF));
    flush_block();
    out_.push_back(0);  // block terminator
  }

 private:
  static constexpr int kMinCodeSize = 8, kClear = 256, kEnd = 257, kFirst = 258, kMaxCodes = 4096;

  void emit(int code) {
    bits_ |= static_cast<uint32_t>(code) << bit_count_;
    bit_count_ += size_;
    while (bit_count_ >= 8) {
      block_.push_back(static_cast<uint8_t>(bits_ & 0xFF));
      bits_ >>= 8;
      bit_count_ -= 8;
      if (block_.size() == 255) flush_block();
    }
  }
  void flush_block() {
    if (block_.empty()) return;
    out_.push_back(static_cast<uint8_t>(block_.size()));
    out_.insert(out_.end(), block_.begin(), block_.end());
    block_.clear();
  }

  std::vector<uint8_t>& out_;
  std::vector<uint16_t> table_;
  std::vector<uint8_t> block_;
  uint32_t bits_ = 0;
  int bit_count_ = 0, size_ = kMinCodeSize + 1, next_ = kFirst;
};
}  // namespace

std::vector<uint8_t> encode_gif(const std::vector<Image>& frames, int delay_cs) {
  if (frames.empty()) return {};
  const int w = frames[0].width, h = frames[0].height;
  if (w <= 0 || h <= 0 || w > 65535 || h > 65535 ||
      static_cast<uint64_t>(w) * h * frames.size() > kMaxImageBytes)
    return {};
  for (const Image& frame : frames)
    if (frame.width != w || frame.height != h || frame.rgba.size() != static_cast<size_t>(w) * h * 4)
      return {};
  std::vector<uint8_t> out = {'G', 'I', 'F',
                              '8', '9', 'a'};  // 89a: frame delays and looping need its extensions
  put_u16(out, w);
  put_u16(out, h);
  out.insert(out.end(), {0xF7, 0, 0});  // a global colour table of 256 entries, 8 bits a channel
  const std::vector<uint8_t> palette = fixed_palette();
  out.insert(out.end(), palette.begin(), palette.end());
  // NETSCAPE2.0 application extension: loop forever.
  const std::string netscape = "NETSCAPE2.0";
  out.insert(out.end(), {0x21, 0xFF, 11});
  out.insert(out.end(), netscape.begin(), netscape.end());
  out.insert(out.end(), {3, 1, 0, 0, 0});
  std::vector<uint8_t> indices(static_cast<size_t>(w) * h);
  const int delay = std::clamp(delay_cs, 0, 65535);
  for (const Image& frame : frames) {
    out.insert(out.end(), {0x21, 0xF9, 4, 0});  // graphic control: no disposal, no transparency
    put_u16(out, delay);
    out.insert(out.end(), {0, 0});
    out.push_back(0x2C);  // the image: at (0, 0), the whole screen, no local colour table, not interlaced
    put_u16(out, 0);
    put_u16(out, 0);
    put_u16(out, w);
    put_u16(out, h);
    out.push_back(0);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        indices[static_cast<size_t>(y) * w + x] =
            palette_index(&frame.rgba[(static_cast<size_t>(y) * w + x) * 4], x, y);
    LzwWriter(out).write(indices);
  }
  out.push_back(0x3B);  // trailer
  return out;
}

Result<bool> write_gif(const std::vector<Image>& frames, int delay_cs, const std::string& path) {
  if (frames.empty()) return Result<bool>::failure(path + ": no frames");
  const int w = frames[0].width, h = frames[0].height;
  if (w <= 0 || h <= 0 || w > 65535 || h > 65535 ||
      static_cast<uint64_t>(w) * h * frames.size() > kMaxImageBytes)
    return Result<bool>::failure(path + ": " + std::to_string(frames.size()) + " frames of " +
                                 std::to_string(w) + "x" + std::to_string(h) + " are too large to write");
  const std::vector<uint8_t> bytes = encode_gif(frames, delay_cs);
  if (bytes.empty()) return Result<bool>::failure(path + ": frames differ in size");
  return write_file_atomically(path, bytes);
}

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
