// Ossa's own GIF writer (ossa/render/image.h: encode_gif) decoded by giflib, the reference decoder: frames of
// the palette's own colours come back pixel for pixel (random noise fills the LZW table many times over, flat
// frames make the longest codes), with each frame's delay and the loop extension; sizes at the edges of the
// 12-bit code table and of the 255-byte data blocks.
#include <gtest/gtest.h>

#include <gif_lib.h>

#include <cstring>
#include <random>
#include <vector>

#include "ossa/render/image.h"

namespace ossa {
namespace {

struct Decoded {
  std::vector<Image> frames;
  std::vector<int> delays;
  bool loops = false;
};

struct Reader {
  const std::vector<uint8_t>* bytes;
  size_t at = 0;
};

int read_bytes(GifFileType* gif, GifByteType* out, int count) {
  auto* reader = static_cast<Reader*>(gif->UserData);
  const size_t n = std::min(static_cast<size_t>(count), reader->bytes->size() - reader->at);
  std::memcpy(out, reader->bytes->data() + reader->at, n);
  reader->at += n;
  return static_cast<int>(n);
}

Decoded decode(const std::vector<uint8_t>& bytes) {
  Decoded out;
  Reader reader{&bytes};
  int error = 0;
  GifFileType* gif = DGifOpen(&reader, read_bytes, &error);
  EXPECT_NE(gif, nullptr) << GifErrorString(error);
  if (!gif) return out;
  EXPECT_EQ(DGifSlurp(gif), GIF_OK) << GifErrorString(gif->Error);
  const ColorMapObject* map = gif->SColorMap;
  EXPECT_NE(map, nullptr);
  for (int i = 0; map && i < gif->ImageCount; ++i) {
    const SavedImage& saved = gif->SavedImages[i];
    Image frame{gif->SWidth, gif->SHeight,
                std::vector<uint8_t>(static_cast<size_t>(gif->SWidth) * gif->SHeight * 4)};
    for (int p = 0; p < gif->SWidth * gif->SHeight; ++p) {
      const GifColorType c = map->Colors[saved.RasterBits[p]];
      frame.rgba[p * 4] = c.Red, frame.rgba[p * 4 + 1] = c.Green, frame.rgba[p * 4 + 2] = c.Blue;
      frame.rgba[p * 4 + 3] = 255;
    }
    out.frames.push_back(std::move(frame));
    GraphicsControlBlock gcb{};
    EXPECT_EQ(DGifSavedExtensionToGCB(gif, i, &gcb), GIF_OK);
    out.delays.push_back(gcb.DelayTime);
  }
  // The loop extension: giflib keeps the extensions before the first image with that image.
  const int count = gif->ImageCount > 0 ? gif->SavedImages[0].ExtensionBlockCount : 0;
  const ExtensionBlock* blocks = gif->ImageCount > 0 ? gif->SavedImages[0].ExtensionBlocks : nullptr;
  for (int e = 0; e + 1 < count; ++e)
    if (blocks[e].Function == APPLICATION_EXT_FUNC_CODE && blocks[e].ByteCount == 11 &&
        std::memcmp(blocks[e].Bytes, "NETSCAPE2.0", 11) == 0)
      out.loops = blocks[e + 1].ByteCount == 3 && blocks[e + 1].Bytes[0] == 1 &&
                  blocks[e + 1].Bytes[1] == 0 && blocks[e + 1].Bytes[2] == 0;
  DGifCloseFile(gif, &error);
  return out;
}

// A frame of colours from the palette's 6x6x6 cube (never grey: greys take the finer ramp), so dithering
// keeps every pixel as it is. `noise`: each pixel drawn anew; else runs of one colour.
Image palette_frame(int w, int h, std::mt19937& random, bool noise) {
  Image image{w, h, std::vector<uint8_t>(static_cast<size_t>(w) * h * 4, 255)};
  std::uniform_int_distribution<int> level(0, 5);
  int r = 5, g = 0, b = 2;
  for (int p = 0; p < w * h; ++p) {
    if (noise || p % 997 == 0) do
        r = level(random), g = level(random), b = level(random);
      while (r == g && g == b);
    image.rgba[p * 4] = static_cast<uint8_t>(r * 51);
    image.rgba[p * 4 + 1] = static_cast<uint8_t>(g * 51);
    image.rgba[p * 4 + 2] = static_cast<uint8_t>(b * 51);
  }
  return image;
}

TEST(Gif, GiflibDecodesEveryPixelDelayAndTheLoop) {
  std::mt19937 random(11);
  const std::vector<std::pair<int, int>> sizes = {{1, 1},     {255, 1}, {256, 3},
                                                  {301, 207}, {64, 64}, {1000, 9}};
  for (const auto& [w, h] : sizes) {
    std::vector<Image> frames = {palette_frame(w, h, random, true), palette_frame(w, h, random, false),
                                 palette_frame(w, h, random, true)};
    const std::vector<uint8_t> bytes = encode_gif(frames, 7);
    ASSERT_FALSE(bytes.empty());
    const Decoded back = decode(bytes);
    ASSERT_EQ(back.frames.size(), frames.size()) << w << "x" << h;
    for (size_t f = 0; f < frames.size(); ++f) {
      ASSERT_EQ(back.frames[f].width, w);
      ASSERT_EQ(back.frames[f].height, h);
      EXPECT_EQ(back.frames[f].rgba, frames[f].rgba) << w << "x" << h << " frame " << f;
      EXPECT_EQ(back.delays[f], 7);
    }
    EXPECT_TRUE(back.loops);
  }
}

TEST(Gif, AnyImageComesBackAsItsDitheredPalette) {
  // Any colour: each pixel comes back as a palette colour within one cube step (51) of it per channel, or
  // within one grey step for greys; a flat mid-grey comes back as greys only.
  std::mt19937 random(3);
  std::uniform_int_distribution<int> byte(0, 255);
  Image image{97, 61, std::vector<uint8_t>(97 * 61 * 4, 255)};
  for (size_t p = 0; p < image.rgba.size(); p += 4)
    for (int c = 0; c < 3; ++c) image.rgba[p + c] = static_cast<uint8_t>(byte(random));
  const Decoded back = decode(encode_gif({image}, 10));
  ASSERT_EQ(back.frames.size(), 1u);
  for (size_t p = 0; p < image.rgba.size(); p += 4)
    for (int c = 0; c < 3; ++c)
      ASSERT_LE(std::abs(back.frames[0].rgba[p + c] - image.rgba[p + c]), 51) << p / 4;
  Image grey{16, 16, std::vector<uint8_t>(16 * 16 * 4, 128)};
  const Decoded grey_back = decode(encode_gif({grey}, 10));
  ASSERT_EQ(grey_back.frames.size(), 1u);
  for (size_t p = 0; p < grey.rgba.size(); p += 4) {
    EXPECT_EQ(grey_back.frames[0].rgba[p], grey_back.frames[0].rgba[p + 1]);
    EXPECT_LE(std::abs(grey_back.frames[0].rgba[p] - 128), 255 / 41 + 1);
  }
}

TEST(Gif, FramesOfDifferentSizesAreRefused) {
  Image a{4, 4, std::vector<uint8_t>(64, 0)}, b{5, 4, std::vector<uint8_t>(80, 0)};
  EXPECT_TRUE(encode_gif({a, b}, 10).empty());
  EXPECT_TRUE(encode_gif({}, 10).empty());
  Image lying{4, 4, std::vector<uint8_t>(10, 0)};
  EXPECT_TRUE(encode_gif({lying}, 10).empty());
}

}  // namespace
}  // namespace ossa
