// libFuzzer target: texture decoding (decode_image: stb behind a size check) on any bytes: an image or a
// message, never a crash, never more than max_side x max_side pixels decoded.
#include <cstdint>
#include <span>

#include "ossa/render/image.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto image = ossa::decode_image(std::span<const uint8_t>(data, size), 1024, size % 2 == 0);
  if (image && (image->width > 1024 || image->height > 1024 ||
                image->rgba.size() != static_cast<size_t>(image->width) * image->height * 4))
    __builtin_trap();
  return 0;
}
